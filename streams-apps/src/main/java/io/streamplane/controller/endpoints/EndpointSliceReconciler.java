package io.streamplane.controller.endpoints;

import io.streamplane.api.DiscoveryV1EndpointPort;
import io.streamplane.api.Endpoint;
import io.streamplane.api.EndpointConditions;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodIP;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.api.ServiceSpec;
import io.streamplane.controller.Intent;
import io.streamplane.controller.Owners;
import io.streamplane.schema.objects.KubeObjects;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * kube-controller-manager's endpointslice controller for one Service ({@code
 * staging/src/k8s.io/endpointslice}'s {@code Reconciler}), as a pure function of the Service, the
 * pods it selects and the slices the controller manages for it: each pod with an address becomes an
 * endpoint (its IP, {@code ready} when Ready and not terminating or when the Service publishes
 * not-ready addresses, {@code serving} when Ready, {@code terminating} once its deletion is asked,
 * its node, a reference to it, its hostname when its subdomain is the Service's name); endpoints
 * are grouped by the ports the Service's target ports resolve to on their pod (a named target port
 * may differ from pod to pod), at most {@value #MAX_ENDPOINTS_PER_SLICE} to a slice.
 *
 * <p>As the Reconciler does, an endpoint stays in the slice that holds it; a slice is rewritten
 * only when one of its endpoints or its labels change, emptied slices are deleted, new endpoints go
 * to the slices being rewritten anyway, then to the unchanged slice they fill closest to full, then
 * to new slices; a slice about to be deleted is reused for one about to be created; a Service with
 * no endpoints keeps one empty placeholder slice. So a converged Service writes nothing.
 *
 * <p>Slices carry {@code kubernetes.io/service-name}, {@code
 * endpointslice.kubernetes.io/managed-by} and the Service's labels ({@code
 * service.kubernetes.io/headless} for a headless Service), and a controller reference to it, so the
 * garbage collector deletes them with it. A new slice is named {@code <service>-<5 chars>} with
 * {@code generateName: <service>-}; the suffix is derived from the Service's uid and the first free
 * slot rather than drawn at random, so a decision taken twice creates the same slice.
 *
 * <p>Limits: endpoints have no {@code zone} (the namespace-keyed controller does not see nodes,
 * which would have to be routed to every namespace) and so no topology hints, a pod on a node that
 * does not exist is not left out, and the {@code endpoints.kubernetes.io/last-change-trigger-time}
 * annotation is not written. Address types are the Service's {@code ipFamilies}, else the family of
 * its cluster IP, else IPv4 (kube-apiserver gives every selecting Service its families; a headless
 * Service here has none).
 */
public final class EndpointSliceReconciler {

  static final int MAX_ENDPOINTS_PER_SLICE = 100;
  static final String SERVICE_NAME = "kubernetes.io/service-name";
  static final String MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
  static final String CONTROLLER = "endpointslice-controller.k8s.io";
  private static final String HEADLESS = "service.kubernetes.io/headless";
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final String RESOURCE = "endpointslices";
  private static final String GROUP = "discovery.k8s.io";

  private EndpointSliceReconciler() {}

  /** Whether a slice is one this controller manages, for the Service named in its label. */
  static boolean managed(EndpointSlice slice) {
    Map<String, String> labels = slice.getMetadata().getLabels();
    return labels != null
        && CONTROLLER.equals(labels.get(MANAGED_BY))
        && labels.get(SERVICE_NAME) != null;
  }

  /**
   * The writes that bring the managed slices of {@code service} to its {@code pods} (those it
   * selects): creates, then updates, then deletes. None for a Service without a selector or of type
   * ExternalName, whose slices (if any) are left as they are, as Kubernetes leaves them.
   */
  public static List<Intent> reconcile(
      Service service, List<Pod> pods, List<EndpointSlice> existing) {
    ServiceSpec spec = service.getSpec();
    if (spec == null
        || spec.getSelector() == null
        || spec.getSelector().isEmpty()
        || "ExternalName".equals(spec.getType())) {
      return List.of();
    }
    List<String> addressTypes = addressTypes(spec);
    Plan plan = new Plan(service, existing);
    Map<String, List<EndpointSlice>> byType = new TreeMap<>();
    for (EndpointSlice slice : sortedByName(existing)) {
      if (addressTypes.contains(slice.getAddressType())) {
        byType.computeIfAbsent(slice.getAddressType(), t -> new ArrayList<>()).add(slice);
      } else {
        plan.delete.add(slice);
      }
    }
    List<Pod> sortedPods = new ArrayList<>(pods);
    sortedPods.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    for (String addressType : addressTypes) {
      plan.byAddressType(addressType, sortedPods, byType.getOrDefault(addressType, List.of()));
    }
    List<Intent> intents = new ArrayList<>();
    if (service.getMetadata().getDeletionTimestamp() == null) {
      plan.create.forEach(slice -> intents.add(Intent.create(RESOURCE, GROUP, slice)));
    }
    plan.update.forEach(slice -> intents.add(Intent.update(RESOURCE, GROUP, slice)));
    plan.delete.forEach(slice -> intents.add(Intent.delete(RESOURCE, GROUP, slice, null)));
    return intents;
  }

  /** {@code getAddressTypesForService}, for a cluster whose pods have IPv4 addresses. */
  private static List<String> addressTypes(ServiceSpec spec) {
    List<String> types = new ArrayList<>();
    for (String family : spec.getIpFamilies() == null ? List.<String>of() : spec.getIpFamilies()) {
      if (family.equals("IPv4") || family.equals("IPv6")) {
        types.add(family);
      }
    }
    if (types.isEmpty()) {
      String clusterIP = spec.getClusterIP();
      boolean v6 = clusterIP != null && !clusterIP.equals("None") && clusterIP.contains(":");
      types.add(v6 ? "IPv6" : "IPv4");
    }
    return types;
  }

  /** The decisions of one reconcile, and the names they have taken. */
  private static final class Plan {
    final Service service;
    final List<EndpointSlice> create = new ArrayList<>();
    final List<EndpointSlice> update = new ArrayList<>();
    final List<EndpointSlice> delete = new ArrayList<>();
    final Set<String> taken = new HashSet<>();
    int nextSlot;

    Plan(Service service, List<EndpointSlice> existing) {
      this.service = service;
      existing.forEach(s -> taken.add(s.getMetadata().getName()));
    }

    /** {@code reconcileByAddressType}. */
    void byAddressType(String addressType, List<Pod> pods, List<EndpointSlice> existing) {
      List<EndpointSlice> toCreate = new ArrayList<>();
      List<EndpointSlice> toUpdate = new ArrayList<>();
      List<EndpointSlice> toDelete = new ArrayList<>();
      Map<String, List<EndpointSlice>> existingByPorts = new LinkedHashMap<>();
      for (EndpointSlice slice : existing) {
        if (ownedBy(slice, service)) {
          existingByPorts
              .computeIfAbsent(portKey(slice.getPorts()), k -> new ArrayList<>())
              .add(slice);
        } else {
          toDelete.add(slice);
        }
      }
      Map<String, List<DiscoveryV1EndpointPort>> desiredPorts = new LinkedHashMap<>();
      Map<String, LinkedHashMap<String, Endpoint>> desired = new LinkedHashMap<>();
      for (Pod pod : pods) {
        if (!shouldBeInEndpoints(pod)) {
          continue;
        }
        List<DiscoveryV1EndpointPort> ports = endpointPorts(service, pod);
        String key = portKey(ports);
        desiredPorts.putIfAbsent(key, ports);
        LinkedHashMap<String, Endpoint> set =
            desired.computeIfAbsent(key, k -> new LinkedHashMap<>());
        Endpoint endpoint = endpoint(pod, service, addressType);
        if (!endpoint.getAddresses().isEmpty()) {
          set.put(hash(endpoint), endpoint);
        }
      }
      desired.forEach(
          (key, endpoints) ->
              byPorts(
                  existingByPorts.getOrDefault(key, List.of()),
                  endpoints,
                  addressType,
                  desiredPorts.get(key),
                  toCreate,
                  toUpdate,
                  toDelete));
      existingByPorts.forEach(
          (key, slices) -> {
            if (!desired.containsKey(key)) {
              toDelete.addAll(slices);
            }
          });
      if (existing.size() == toDelete.size() && toCreate.isEmpty()) {
        EndpointSlice placeholder = newSlice(addressType, List.of());
        if (toDelete.size() == 1 && samePlaceholder(toDelete.get(0), placeholder)) {
          toDelete.clear();
        } else {
          toCreate.add(placeholder);
        }
      }
      // finalize: a slice about to be deleted takes the place of one about to be created.
      for (int i = 0; i < toDelete.size() && !toCreate.isEmpty(); ) {
        EndpointSlice deleted = toDelete.get(i);
        if (addressType.equals(deleted.getAddressType()) && ownedBy(deleted, service)) {
          EndpointSlice reused = toCreate.remove(toCreate.size() - 1);
          EndpointSlice updated = KubeObjects.copy(deleted);
          updated.setMetadata(
              ObjectMeta.newBuilder(deleted.getMetadata())
                  .setLabels(reused.getMetadata().getLabels())
                  .build());
          updated.setPorts(reused.getPorts());
          updated.setEndpoints(reused.getEndpoints());
          toUpdate.add(updated);
          toDelete.remove(i);
        } else {
          i++;
        }
      }
      for (EndpointSlice slice : toCreate) {
        slice.getMetadata().setName(freeName());
        create.add(slice);
      }
      update.addAll(toUpdate);
      delete.addAll(toDelete);
    }

    /** {@code reconcileByPortMapping}: the slices of one port set. */
    private void byPorts(
        List<EndpointSlice> existing,
        LinkedHashMap<String, Endpoint> desired,
        String addressType,
        List<DiscoveryV1EndpointPort> ports,
        List<EndpointSlice> toCreate,
        List<EndpointSlice> toUpdate,
        List<EndpointSlice> toDelete) {
      List<EndpointSlice> updating = new ArrayList<>();
      List<EndpointSlice> unchanged = new ArrayList<>();
      Map<String, String> wanted = labels(service);
      for (EndpointSlice slice : existing) {
        List<Endpoint> kept = new ArrayList<>();
        boolean changed = false;
        List<Endpoint> endpoints = endpointsOf(slice);
        for (Endpoint endpoint : endpoints) {
          Endpoint got = desired.remove(hash(endpoint));
          if (got != null) {
            kept.add(got);
            changed |= !equalBeyondHash(got, endpoint);
          }
        }
        boolean labelsChanged = labelsChanged(slice, service);
        if (changed || endpoints.size() != kept.size()) {
          if (kept.isEmpty()) {
            toDelete.add(slice);
          } else {
            updating.add(withEndpoints(slice, kept, wanted));
          }
        } else if (labelsChanged) {
          updating.add(withEndpoints(slice, kept, wanted));
        } else {
          unchanged.add(slice);
        }
      }
      if (!desired.isEmpty() && !updating.isEmpty()) {
        updating.sort(
            Comparator.comparingInt((EndpointSlice s) -> -endpointsOf(s).size())
                .thenComparing(s -> s.getMetadata().getName()));
        for (EndpointSlice slice : updating) {
          fill(slice, desired);
        }
      }
      while (!desired.isEmpty()) {
        EndpointSlice toFill = null;
        if (desired.size() < MAX_ENDPOINTS_PER_SLICE && !unchanged.isEmpty()) {
          toFill = closestToFull(unchanged, desired.size());
        }
        if (toFill == null) {
          toFill = newSlice(addressType, ports);
          fill(toFill, desired);
          toCreate.add(toFill);
        } else {
          unchanged.remove(toFill);
          toFill = withEndpoints(toFill, endpointsOf(toFill), null);
          fill(toFill, desired);
          updating.add(toFill);
        }
      }
      toUpdate.addAll(updating);
    }

    /** A name for a new slice: {@code <service>-<5 chars>}, the first free slot's. */
    private String freeName() {
      ObjectMeta meta = service.getMetadata();
      String name;
      do {
        name = sliceName(meta.getName(), Objects.requireNonNullElse(meta.getUid(), ""), nextSlot++);
      } while (!taken.add(name));
      return name;
    }

    private EndpointSlice newSlice(String addressType, List<DiscoveryV1EndpointPort> ports) {
      ObjectMeta meta = service.getMetadata();
      return EndpointSlice.newBuilder()
          .setApiVersion(GROUP + "/v1")
          .setKind("EndpointSlice")
          .setMetadata(
              ObjectMeta.newBuilder()
                  .setGenerateName(meta.getName() + "-")
                  .setNamespace(meta.getNamespace())
                  .setLabels(labels(service))
                  .setOwnerReferences(List.of(Owners.controllerRef("v1", "Service", meta)))
                  .build())
          .setAddressType(addressType)
          .setEndpoints(new ArrayList<>())
          .setPorts(new ArrayList<>(ports))
          .build();
    }

    /** {@code placeholderSliceCompare}: all but the metadata, of which namespace and labels. */
    private static boolean samePlaceholder(EndpointSlice existing, EndpointSlice placeholder) {
      return Objects.equals(existing.getAddressType(), placeholder.getAddressType())
          && empty(existing.getEndpoints())
          && empty(existing.getPorts())
          && Objects.equals(
              existing.getMetadata().getNamespace(), placeholder.getMetadata().getNamespace())
          && Objects.equals(labelsOf(existing), placeholder.getMetadata().getLabels());
    }
  }

  /** {@code <service>-<5 chars>}, the suffix a function of the Service's uid and the slot. */
  static String sliceName(String service, String uid, int slot) {
    CRC32 crc = new CRC32();
    crc.update(("endpointslice#" + uid + "#" + slot).getBytes(StandardCharsets.UTF_8));
    long hash = crc.getValue();
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      suffix.append(ALPHABET.charAt((int) (hash % ALPHABET.length())));
      hash /= ALPHABET.length();
    }
    return service + "-" + suffix;
  }

  private static void fill(EndpointSlice slice, LinkedHashMap<String, Endpoint> desired) {
    var it = desired.entrySet().iterator();
    while (it.hasNext() && slice.getEndpoints().size() < MAX_ENDPOINTS_PER_SLICE) {
      slice.getEndpoints().add(it.next().getValue());
      it.remove();
    }
  }

  /** {@code getSliceToFill}: the unchanged slice that {@code count} endpoints fill most. */
  private static EndpointSlice closestToFull(List<EndpointSlice> slices, int count) {
    int closest = MAX_ENDPOINTS_PER_SLICE;
    EndpointSlice best = null;
    for (EndpointSlice slice : slices) {
      int diff = MAX_ENDPOINTS_PER_SLICE - (count + endpointsOf(slice).size());
      if (diff >= 0 && diff < closest) {
        closest = diff;
        best = slice;
        if (diff == 0) {
          break;
        }
      }
    }
    return best;
  }

  /** A copy of {@code slice} to rewrite, with these endpoints (and labels, unless null). */
  private static EndpointSlice withEndpoints(
      EndpointSlice slice, List<Endpoint> endpoints, Map<String, String> labels) {
    EndpointSlice copy = KubeObjects.copy(slice);
    copy.setEndpoints(new ArrayList<>(endpoints));
    if (labels != null) {
      copy.setMetadata(ObjectMeta.newBuilder(copy.getMetadata()).setLabels(labels).build());
    }
    return copy;
  }

  /** {@code ownedBy}: a reference to the Service's uid as a v1 Service. */
  private static boolean ownedBy(EndpointSlice slice, Service service) {
    for (OwnerReference ref : Owners.refs(slice.getMetadata())) {
      if (Objects.equals(ref.getUid(), service.getMetadata().getUid())
          && "Service".equals(ref.getKind())
          && "v1".equals(ref.getApiVersion())) {
        return true;
      }
    }
    return false;
  }

  /** {@code setEndpointSliceLabels}: the Service's labels and the reserved ones. */
  static Map<String, String> labels(Service service) {
    Map<String, String> labels = ownLabels(service.getMetadata().getLabels());
    String clusterIP = service.getSpec().getClusterIP();
    if (clusterIP == null || clusterIP.isEmpty() || clusterIP.equals("None")) {
      labels.put(HEADLESS, "");
    }
    labels.put(SERVICE_NAME, service.getMetadata().getName());
    labels.put(MANAGED_BY, CONTROLLER);
    return labels;
  }

  /**
   * Whether the slice's labels, reserved ones aside, differ from the Service's: only then does a
   * label alone rewrite a slice, as in Kubernetes.
   */
  private static boolean labelsChanged(EndpointSlice slice, Service service) {
    return !ownLabels(labelsOf(slice)).equals(ownLabels(service.getMetadata().getLabels()));
  }

  private static Map<String, String> ownLabels(Map<String, String> labels) {
    Map<String, String> own = new TreeMap<>();
    if (labels != null) {
      labels.forEach(
          (key, value) -> {
            if (!key.equals(SERVICE_NAME) && !key.equals(MANAGED_BY) && !key.equals(HEADLESS)) {
              own.put(key, value);
            }
          });
    }
    return own;
  }

  private static Map<String, String> labelsOf(EndpointSlice slice) {
    Map<String, String> labels = slice.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  /** {@code ShouldPodBeInEndpoints} with terminating pods included: not finished, addressed. */
  private static boolean shouldBeInEndpoints(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return !"Succeeded".equals(phase) && !"Failed".equals(phase) && !podIPs(pod).isEmpty();
  }

  private static List<String> podIPs(Pod pod) {
    List<String> ips = new ArrayList<>();
    if (pod.getStatus() == null) {
      return ips;
    }
    if (pod.getStatus().getPodIPs() != null) {
      for (PodIP ip : pod.getStatus().getPodIPs()) {
        if (ip.getIp() != null && !ip.getIp().isEmpty()) {
          ips.add(ip.getIp());
        }
      }
    }
    String ip = pod.getStatus().getPodIP();
    if (ips.isEmpty() && ip != null && !ip.isEmpty()) {
      ips.add(ip);
    }
    return ips;
  }

  /** {@code podToEndpoint}, without the zone. */
  static Endpoint endpoint(Pod pod, Service service, String addressType) {
    boolean serving = isReady(pod);
    boolean terminating = pod.getMetadata().getDeletionTimestamp() != null;
    boolean ready =
        Boolean.TRUE.equals(service.getSpec().getPublishNotReadyAddresses())
            || (serving && !terminating);
    List<String> addresses = new ArrayList<>();
    for (String ip : podIPs(pod)) {
      if (ip.contains(":") == addressType.equals("IPv6")) {
        addresses.add(ip);
      }
    }
    String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return Endpoint.newBuilder()
        .setAddresses(addresses)
        .setConditions(
            EndpointConditions.newBuilder()
                .setReady(ready)
                .setServing(serving)
                .setTerminating(terminating)
                .build())
        .setHostname(hostname(pod, service))
        .setTargetRef(
            ObjectReference.newBuilder()
                .setKind("Pod")
                .setNamespace(pod.getMetadata().getNamespace())
                .setName(pod.getMetadata().getName())
                .setUid(pod.getMetadata().getUid())
                .build())
        .setNodeName(nodeName == null || nodeName.isEmpty() ? null : nodeName)
        .build();
  }

  /** {@code ShouldSetHostname}: the pod's hostname when its subdomain is the Service's name. */
  private static String hostname(Pod pod, Service service) {
    if (pod.getSpec() == null
        || pod.getSpec().getHostname() == null
        || pod.getSpec().getHostname().isEmpty()
        || !service.getMetadata().getName().equals(pod.getSpec().getSubdomain())
        || !Objects.equals(
            service.getMetadata().getNamespace(), pod.getMetadata().getNamespace())) {
      return null;
    }
    return pod.getSpec().getHostname();
  }

  /**
   * {@code getEndpointPorts}: each Service port at the target port it resolves to on {@code pod}; a
   * port that resolves to nothing is left out.
   */
  static List<DiscoveryV1EndpointPort> endpointPorts(Service service, Pod pod) {
    List<DiscoveryV1EndpointPort> ports = new ArrayList<>();
    List<ServicePort> servicePorts =
        service.getSpec().getPorts() == null ? List.of() : service.getSpec().getPorts();
    for (ServicePort sp : servicePorts) {
      String protocol = Objects.requireNonNullElse(sp.getProtocol(), "TCP");
      int port = EndpointsController.targetPort(sp, pod);
      if (port > 0) {
        ports.add(
            DiscoveryV1EndpointPort.newBuilder()
                .setName(Objects.requireNonNullElse(sp.getName(), ""))
                .setProtocol(protocol)
                .setPort(port)
                .setAppProtocol(sp.getAppProtocol())
                .build());
      }
    }
    return ports;
  }

  /** {@code NewPortMapKey}: a port set's identity, whatever the order of its ports. */
  private static String portKey(List<DiscoveryV1EndpointPort> ports) {
    List<String> keys = new ArrayList<>();
    for (DiscoveryV1EndpointPort p : ports == null ? List.<DiscoveryV1EndpointPort>of() : ports) {
      keys.add(
          Objects.requireNonNullElse(p.getName(), "")
              + "/"
              + p.getProtocol()
              + "/"
              + p.getPort()
              + "/"
              + p.getAppProtocol());
    }
    keys.sort(null);
    return String.join(",", keys);
  }

  /** {@code hashEndpoint}: an endpoint's identity, its addresses, hostname and target. */
  private static String hash(Endpoint endpoint) {
    List<String> addresses =
        new ArrayList<>(endpoint.getAddresses() == null ? List.of() : endpoint.getAddresses());
    addresses.sort(null);
    ObjectReference target = endpoint.getTargetRef();
    return String.join(",", addresses)
        + "|"
        + Objects.requireNonNullElse(endpoint.getHostname(), "")
        + "|"
        + (target == null ? "" : target.getNamespace() + "/" + target.getName());
  }

  /** {@code EndpointsEqualBeyondHash}: node, zone, conditions, hints and target. */
  private static boolean equalBeyondHash(Endpoint a, Endpoint b) {
    return Objects.equals(a.getNodeName(), b.getNodeName())
        && Objects.equals(a.getZone(), b.getZone())
        && KubeObjects.same(conditions(a), conditions(b))
        && KubeObjects.same(a.getHints(), b.getHints())
        && KubeObjects.same(a.getTargetRef(), b.getTargetRef());
  }

  private static EndpointConditions conditions(Endpoint endpoint) {
    return endpoint.getConditions() == null ? new EndpointConditions() : endpoint.getConditions();
  }

  private static boolean isReady(Pod pod) {
    List<PodCondition> conditions =
        pod.getStatus() == null || pod.getStatus().getConditions() == null
            ? List.of()
            : pod.getStatus().getConditions();
    return conditions.stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static List<Endpoint> endpointsOf(EndpointSlice slice) {
    return slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
  }

  private static boolean empty(List<?> list) {
    return list == null || list.isEmpty();
  }

  private static List<EndpointSlice> sortedByName(List<EndpointSlice> slices) {
    List<EndpointSlice> sorted = new ArrayList<>(slices);
    sorted.sort(Comparator.comparing(s -> s.getMetadata().getName()));
    return sorted;
  }
}
