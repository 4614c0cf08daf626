package io.streamplane.controller.endpoints;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerPort;
import io.streamplane.api.EndpointAddress;
import io.streamplane.api.EndpointPort;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.EndpointSubset;
import io.streamplane.api.Endpoints;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.api.Pod;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Intent;
import io.streamplane.controller.PodReadiness;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;

/**
 * Kubernetes' endpoints controller on the one controller contract: each Service with a selector has
 * an Endpoints object of its name whose subsets are the pods it selects — ready ones as {@code
 * addresses}, the others as {@code notReadyAddresses} (all as addresses with {@code
 * publishNotReadyAddresses}), pods being deleted or finished left out — at the ports its ports'
 * target ports name for each pod (a named target port looked up in the pod's containers, so pods
 * may differ), grouped by those ports as {@code RepackSubsets} groups them, addresses sorted by IP.
 * A deleted Service's Endpoints are deleted. In the same pass, the Service's EndpointSlices are
 * brought to the same pods as kube-controller-manager's endpointslice controller keeps them ({@link
 * EndpointSliceReconciler}); a deleted Service's slices go with it through the garbage collector,
 * as their controller reference asks. And the Endpoints of a Service without a selector are
 * mirrored into EndpointSlices as kube-controller-manager's endpointslicemirroring controller
 * mirrors them ({@link EndpointSliceReconciler#mirror}); those slices are deleted once the
 * Endpoints or the Service are gone, or the Service has a selector.
 *
 * <p>Keyed by namespace, so one namespace's Services and pods are on one task: the cache holds the
 * namespace's Services ({@code <ns>/s/}), pods ({@code <ns>/p/}), Endpoints ({@code <ns>/e/}), the
 * EndpointSlices the endpointslice controller manages ({@code <ns>/l/}) and those the mirroring
 * controller keeps ({@code <ns>/m/}); a change marks the Services it concerns ({@code <ns>/d/}, by
 * name), which the next reconcile recomputes and then forgets. A pod's change is matched against
 * the namespace's Services, and each marked Service reads the namespace's pods: work in proportion
 * to the namespace, not to the pod alone. When a task starts, every Service without a selector is
 * marked ({@link #resync}), as the mirroring controller's initial list queues every Endpoints
 * object: Endpoints written before their Service was mirrored are mirrored then.
 */
public final class EndpointsController implements Controller<EndpointsController.View> {

  private static final UserInfo ACTOR = ControllerActors.serviceAccount("endpoint-controller");
  private static final UserInfo SLICE_ACTOR =
      ControllerActors.serviceAccount("endpointslice-controller");
  private static final UserInfo MIRROR_ACTOR =
      ControllerActors.serviceAccount("endpointslicemirroring-controller");
  private static final String SERVICES = "/s/";
  private static final String PODS = "/p/";
  private static final String ENDPOINTS = "/e/";
  private static final String SLICES = "/l/";
  private static final String MIRRORED = "/m/";
  private static final String DIRTY = "/d/";

  /**
   * The Services to recompute by name (each as its last event, a deleted one as its deletion, or as
   * the event of a mirrored slice when there is no Service), the pods, the Endpoints, the managed
   * EndpointSlices and the mirrored ones by the name of their Service.
   */
  public record View(
      Map<String, ResourceEvent> dirty,
      List<Pod> pods,
      Map<String, Endpoints> endpoints,
      Map<String, List<EndpointSlice>> slices,
      Map<String, List<EndpointSlice>> mirrored) {}

  @Override
  public String name() {
    return "endpoints";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = (SpecificRecord) KindObjects.of(event);
    boolean concerned =
        object instanceof Service
            || object instanceof Pod
            || object instanceof Endpoints
            || object instanceof EndpointSlice;
    return concerned && event.getNamespace() != null && !event.getNamespace().isEmpty()
        ? List.of(event.getNamespace())
        : List.of();
  }

  @Override
  public boolean observe(String ns, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = (SpecificRecord) KindObjects.of(event);
    boolean deleted = event.getType() == EventType.DELETED;
    String name = event.getName();
    if (object instanceof Service) {
      cache.putOrDelete(ns + SERVICES + name, deleted ? null : event);
      cache.put(ns + DIRTY + name, event);
      return true;
    }
    if (object instanceof Endpoints) {
      cache.putOrDelete(ns + ENDPOINTS + name, deleted ? null : event);
      if (cache.get(ns + SERVICES + name) != null) {
        cache.put(ns + DIRTY + name, cache.get(ns + SERVICES + name));
        return true;
      }
      return false;
    }
    if (object instanceof EndpointSlice slice) {
      boolean managed = EndpointSliceReconciler.managed(slice);
      boolean mirrored = EndpointSliceReconciler.mirrored(slice);
      cache.putOrDelete(ns + SLICES + name, deleted || !managed ? null : event);
      cache.putOrDelete(ns + MIRRORED + name, deleted || !mirrored ? null : event);
      String service =
          managed || mirrored
              ? slice.getMetadata().getLabels().get(EndpointSliceReconciler.SERVICE_NAME)
              : null;
      if (service == null) {
        return false;
      }
      if (cache.get(ns + SERVICES + service) != null) {
        cache.put(ns + DIRTY + service, cache.get(ns + SERVICES + service));
        return true;
      }
      // A mirrored slice of no Service is to be deleted; a Service's deletion already marked
      // stays the mark, so that its Endpoints are deleted too.
      if (mirrored && !deleted && cache.get(ns + DIRTY + service) == null) {
        cache.put(ns + DIRTY + service, event);
        return true;
      }
      return false;
    }
    Pod pod = (Pod) object;
    ResourceEvent before = cache.get(ns + PODS + name);
    Pod old = before == null ? null : (Pod) KindObjects.of(before);
    cache.putOrDelete(ns + PODS + name, deleted ? null : event);
    boolean marked = false;
    for (ResourceEvent serviceEvent : cache.values(ns + SERVICES)) {
      Service service = (Service) KindObjects.of(serviceEvent);
      if (selects(service, pod) || (old != null && selects(service, old))) {
        cache.put(ns + DIRTY + serviceEvent.getName(), serviceEvent);
        marked = true;
      }
    }
    return marked;
  }

  @Override
  public View view(String ns, ControllerCache cache) {
    Map<String, ResourceEvent> dirty = new TreeMap<>();
    cache
        .scan(ns + DIRTY)
        .forEach(entry -> dirty.put(entry.key.substring((ns + DIRTY).length()), entry.value));
    if (dirty.isEmpty()) {
      return new View(Map.of(), List.of(), Map.of(), Map.of(), Map.of());
    }
    List<Pod> pods = new ArrayList<>();
    cache.values(ns + PODS).forEach(e -> pods.add((Pod) KindObjects.of(e)));
    Map<String, Endpoints> endpoints = new TreeMap<>();
    cache
        .values(ns + ENDPOINTS)
        .forEach(e -> endpoints.put(e.getName(), (Endpoints) KindObjects.of(e)));
    return new View(
        dirty, pods, endpoints, byService(cache, ns + SLICES), byService(cache, ns + MIRRORED));
  }

  private static Map<String, List<EndpointSlice>> byService(ControllerCache cache, String prefix) {
    Map<String, List<EndpointSlice>> slices = new TreeMap<>();
    for (ResourceEvent e : cache.values(prefix)) {
      EndpointSlice slice = (EndpointSlice) KindObjects.of(e);
      slices
          .computeIfAbsent(
              slice.getMetadata().getLabels().get(EndpointSliceReconciler.SERVICE_NAME),
              s -> new ArrayList<>())
          .add(slice);
    }
    return slices;
  }

  @Override
  public Result reconcile(String ns, View view, Expectations expectations, Instant now) {
    List<Intent> intents = new ArrayList<>();
    List<Intent> sliceIntents = new ArrayList<>();
    List<Intent> mirrorIntents = new ArrayList<>();
    for (Map.Entry<String, ResourceEvent> mark : view.dirty().entrySet()) {
      ResourceEvent event = mark.getValue();
      boolean deleted = event.getType() == EventType.DELETED;
      Service service = KindObjects.of(event) instanceof Service marked ? marked : null;
      mirrorIntents.addAll(
          EndpointSliceReconciler.mirror(
              deleted ? null : service,
              view.endpoints().get(mark.getKey()),
              view.mirrored().getOrDefault(mark.getKey(), List.of())));
      if (service == null) {
        continue;
      }
      if (!deleted) {
        List<Pod> selected = view.pods().stream().filter(pod -> selects(service, pod)).toList();
        sliceIntents.addAll(
            EndpointSliceReconciler.reconcile(
                service, selected, view.slices().getOrDefault(event.getName(), List.of())));
      }
      Endpoints current = view.endpoints().get(event.getName());
      boolean managed =
          event.getType() != EventType.DELETED
              && service.getMetadata().getDeletionTimestamp() == null
              && service.getSpec() != null
              && service.getSpec().getSelector() != null
              && !service.getSpec().getSelector().isEmpty();
      if (!managed) {
        if (event.getType() == EventType.DELETED && current != null) {
          intents.add(Intent.delete("endpoints", "", current, null));
        }
        continue;
      }
      List<EndpointSubset> subsets = subsets(service, view.pods());
      Map<String, String> labels =
          service.getMetadata().getLabels() == null
              ? new TreeMap<>()
              : new TreeMap<>(service.getMetadata().getLabels());
      if ("None".equals(service.getSpec().getClusterIP())) {
        labels.put("service.kubernetes.io/headless", "");
      }
      if (current == null) {
        intents.add(
            Intent.create(
                "endpoints",
                "",
                Endpoints.newBuilder()
                    .setMetadata(
                        ObjectMeta.newBuilder()
                            .setName(event.getName())
                            .setNamespace(ns)
                            .setLabels(labels.isEmpty() ? null : labels)
                            .build())
                    .setSubsets(subsets)
                    .build()));
      } else if (!normalized(current.getSubsets()).equals(subsets)
          || !labelsOf(current).equals(labels)) {
        Endpoints updated = Endpoints.newBuilder(current).build();
        updated.setSubsets(subsets);
        updated.setMetadata(
            ObjectMeta.newBuilder(current.getMetadata())
                .setLabels(labels.isEmpty() ? null : labels)
                .build());
        intents.add(Intent.update("endpoints", "", updated));
      }
    }
    List<Decision> decisions = new ArrayList<>(Result.by(ACTOR, intents));
    decisions.addAll(Result.by(SLICE_ACTOR, sliceIntents));
    decisions.addAll(Result.by(MIRROR_ACTOR, mirrorIntents));
    return Result.of(decisions, null).forgetting();
  }

  /** Marks every Service without a selector, and returns the namespaces that have one. */
  @Override
  public List<String> resync(ControllerCache cache) {
    Set<String> namespaces = new TreeSet<>();
    for (var entry : cache.scan("")) {
      int slash = entry.key.indexOf('/');
      if (slash > 0
          && entry.key.startsWith(SERVICES, slash)
          && KindObjects.of(entry.value) instanceof Service service
          && (service.getSpec() == null
              || service.getSpec().getSelector() == null
              || service.getSpec().getSelector().isEmpty())) {
        String ns = entry.key.substring(0, slash);
        cache.put(ns + DIRTY + entry.key.substring(slash + SERVICES.length()), entry.value);
        namespaces.add(ns);
      }
    }
    return List.copyOf(namespaces);
  }

  /** The marked Services are decided: forget the marks, keep the cache. */
  @Override
  public void forget(String ns, ControllerCache cache) {
    cache.scan(ns + DIRTY).forEach(entry -> cache.delete(entry.key));
  }

  private static Map<String, String> labelsOf(Endpoints endpoints) {
    Map<String, String> labels = endpoints.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  private static List<EndpointSubset> normalized(List<EndpointSubset> subsets) {
    return subsets == null ? List.of() : subsets;
  }

  static boolean selects(Service service, Pod pod) {
    Map<String, String> selector =
        service.getSpec() == null ? null : service.getSpec().getSelector();
    if (selector == null || selector.isEmpty()) {
      return false;
    }
    Map<String, String> labels =
        pod.getMetadata() == null || pod.getMetadata().getLabels() == null
            ? Map.of()
            : pod.getMetadata().getLabels();
    return selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  /** The subsets of a Service over the namespace's pods, as the endpoints controller packs them. */
  static List<EndpointSubset> subsets(Service service, List<Pod> pods) {
    boolean publishNotReady = Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses());
    Map<List<EndpointPort>, List<EndpointAddress>> ready = new LinkedHashMap<>();
    Map<List<EndpointPort>, List<EndpointAddress>> notReady = new LinkedHashMap<>();
    List<ServicePort> servicePorts =
        service.getSpec().getPorts() == null ? List.of() : service.getSpec().getPorts();
    for (Pod pod : pods) {
      String ip = pod.getStatus() == null ? null : pod.getStatus().getPodIP();
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      if (!selects(service, pod)
          || ip == null
          || ip.isEmpty()
          || "Succeeded".equals(phase)
          || "Failed".equals(phase)
          || (pod.getMetadata().getDeletionTimestamp() != null && !publishNotReady)) {
        continue;
      }
      List<EndpointPort> ports = new ArrayList<>();
      for (ServicePort sp : servicePorts) {
        int port = targetPort(sp, pod);
        if (port > 0) {
          ports.add(
              EndpointPort.newBuilder()
                  .setName(sp.getName())
                  .setPort(port)
                  .setProtocol(sp.getProtocol() == null ? "TCP" : sp.getProtocol())
                  .setAppProtocol(sp.getAppProtocol())
                  .build());
        }
      }
      EndpointAddress address =
          EndpointAddress.newBuilder()
              .setIp(ip)
              .setNodeName(pod.getSpec() == null ? null : pod.getSpec().getNodeName())
              .setHostname(hostname(service, pod))
              .setTargetRef(
                  ObjectReference.newBuilder()
                      .setKind("Pod")
                      .setNamespace(pod.getMetadata().getNamespace())
                      .setName(pod.getMetadata().getName())
                      .setUid(pod.getMetadata().getUid())
                      .build())
              .build();
      (publishNotReady || PodReadiness.isReady(pod) ? ready : notReady)
          .computeIfAbsent(ports, p -> new ArrayList<>())
          .add(address);
    }
    Map<List<EndpointPort>, EndpointSubset.Builder> byPorts = new LinkedHashMap<>();
    ready.forEach(
        (ports, addresses) ->
            byPorts.computeIfAbsent(ports, p -> subset(p)).setAddresses(sorted(addresses)));
    notReady.forEach(
        (ports, addresses) ->
            byPorts.computeIfAbsent(ports, p -> subset(p)).setNotReadyAddresses(sorted(addresses)));
    List<EndpointSubset> subsets = new ArrayList<>();
    byPorts.values().forEach(b -> subsets.add(b.build()));
    return subsets;
  }

  private static EndpointSubset.Builder subset(List<EndpointPort> ports) {
    return EndpointSubset.newBuilder().setPorts(ports.isEmpty() ? null : ports);
  }

  private static List<EndpointAddress> sorted(List<EndpointAddress> addresses) {
    List<EndpointAddress> sorted = new ArrayList<>(addresses);
    sorted.sort(Comparator.comparing(EndpointAddress::getIp));
    return sorted;
  }

  /** The pod's hostname when its subdomain is the Service's name (a headless Service's records). */
  private static String hostname(Service service, Pod pod) {
    if (pod.getSpec() == null
        || pod.getSpec().getHostname() == null
        || !service.getMetadata().getName().equals(pod.getSpec().getSubdomain())) {
      return null;
    }
    return pod.getSpec().getHostname();
  }

  /**
   * {@code podutil.FindPort}: a numbered target port as it is; a named one looked up among the
   * pod's containers' ports of the Service port's protocol; else 0.
   */
  static int targetPort(ServicePort port, Pod pod) {
    String protocol = Objects.requireNonNullElse(port.getProtocol(), "TCP");
    Object target = port.getTargetPort();
    if (target instanceof Integer number) {
      return number;
    }
    String name = target == null ? "" : target.toString();
    if (name.isEmpty()) {
      return port.getPort() == null ? 0 : port.getPort();
    }
    if (name.chars().allMatch(Character::isDigit)) {
      return Integer.parseInt(name);
    }
    List<Container> containers =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? List.of()
            : pod.getSpec().getContainers();
    for (Container container : containers) {
      for (ContainerPort cp :
          container.getPorts() == null ? List.<ContainerPort>of() : container.getPorts()) {
        if (name.equals(cp.getName())
            && protocol.equals(Objects.requireNonNullElse(cp.getProtocol(), "TCP"))) {
          return cp.getContainerPort();
        }
      }
    }
    return 0;
  }
}
