package io.streamplane.controller.endpoints;

import io.streamplane.api.DiscoveryV1EndpointPort;
import io.streamplane.api.Endpoint;
import io.streamplane.api.EndpointAddress;
import io.streamplane.api.EndpointConditions;
import io.streamplane.api.EndpointPort;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.EndpointSubset;
import io.streamplane.api.Endpoints;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.PodIP;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.api.ServiceSpec;
import io.streamplane.controller.Intent;
import io.streamplane.controller.Owners;
import io.streamplane.controller.PodReadiness;
import io.streamplane.kinds.validation.IpAddresses;
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
 * <p>The same Reconciler keeps the slices of kube-controller-manager's endpointslicemirroring
 * controller ({@link #mirror}): a Service without a selector has its Endpoints' addresses copied
 * into slices, grouped by the subsets' ports as the mirroring controller groups them, but at most
 * {@value #MAX_ENDPOINTS_PER_SLICE} to a slice where that controller puts up to {@value
 * #MAX_ENDPOINTS_PER_SUBSET} in one, so that the rewriting rules below hold for both.
 *
 * <p>As the Reconciler does, an endpoint stays in the slice that holds it; a slice is rewritten
 * only when one of its endpoints or its labels change, emptied slices are deleted, new endpoints go
 * to the slices being rewritten anyway, then to the unchanged slice they fill closest to full, then
 * to new slices; a slice about to be deleted is reused for one about to be created; a Service with
 * a selector and no endpoints keeps one empty placeholder slice. So a converged Service writes
 * nothing.
 *
 * <p>Slices carry {@code kubernetes.io/service-name}, {@code
 * endpointslice.kubernetes.io/managed-by} and the Service's labels ({@code
 * service.kubernetes.io/headless} for a headless Service), and a controller reference to it, so the
 * garbage collector deletes them with it; mirrored slices carry the Endpoints' labels and
 * annotations instead, and a controller reference to the Endpoints, as the mirroring controller
 * sets it. A new slice is named {@code <service>-<5 chars>} with {@code generateName: <service>-};
 * the suffix is derived from the owner's uid and the first free slot rather than drawn at random,
 * so a decision taken twice creates the same slice.
 *
 * <p>Limits: endpoints have no {@code zone} (the namespace-keyed controller does not see nodes,
 * which would have to be routed to every namespace) and so no topology hints, a pod on a node that
 * does not exist is not left out, and the {@code endpoints.kubernetes.io/last-change-trigger-time}
 * annotation is not written. Address types are the Service's {@code ipFamilies}, else the family of
 * its cluster IP, else IPv4 (kube-apiserver gives every selecting Service its families; a headless
 * Service here has none). Only the IPv4 addresses of Endpoints are mirrored (the mirroring
 * controller also makes IPv6 slices), and no event is recorded for an address left out.
 */
public final class EndpointSliceReconciler {

  static final int MAX_ENDPOINTS_PER_SLICE = 100;
  static final int MAX_ENDPOINTS_PER_SUBSET = 1000;
  static final String SERVICE_NAME = "kubernetes.io/service-name";
  static final String MANAGED_BY = "endpointslice.kubernetes.io/managed-by";
  static final String CONTROLLER = "endpointslice-controller.k8s.io";
  static final String MIRRORING_CONTROLLER = "endpointslicemirroring-controller.k8s.io";
  static final String SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror";
  private static final String LEADER = "control-plane.alpha.kubernetes.io/leader";
  private static final String LAST_CHANGE_TRIGGER_TIME =
      "endpoints.kubernetes.io/last-change-trigger-time";
  private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
  private static final String HEADLESS = "service.kubernetes.io/headless";
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final String RESOURCE = "endpointslices";
  private static final String GROUP = "discovery.k8s.io";

  private EndpointSliceReconciler() {}

  /** Whether a slice is one the endpointslice controller manages, for the Service in its label. */
  static boolean managed(EndpointSlice slice) {
    return managedBy(slice, CONTROLLER);
  }

  /** Whether a slice is one the mirroring controller keeps, for the Endpoints in its label. */
  static boolean mirrored(EndpointSlice slice) {
    return managedBy(slice, MIRRORING_CONTROLLER);
  }

  private static boolean managedBy(EndpointSlice slice, String controller) {
    Map<String, String> labels = slice.getMetadata().getLabels();
    return labels != null
        && controller.equals(labels.get(MANAGED_BY))
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
    if (spec == null || !hasSelector(service) || "ExternalName".equals(spec.getType())) {
      return List.of();
    }
    List<Pod> sortedPods = new ArrayList<>(pods);
    sortedPods.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    Map<String, Map<String, Group>> desired = new LinkedHashMap<>();
    for (String addressType : addressTypes(spec)) {
      desired.put(addressType, fromPods(service, sortedPods, addressType));
    }
    return keep(Keeper.of(service), desired, existing);
  }

  /**
   * The writes that bring the slices the endpointslicemirroring controller keeps for the Endpoints
   * of a Service without a selector ({@code existing}, those {@link #mirrored}) to those Endpoints:
   * each IPv4 address an endpoint ({@code ready} for {@code addresses}, not for {@code
   * notReadyAddresses}, with its hostname, node and target), grouped by the subsets' ports, at most
   * {@value #MAX_ENDPOINTS_PER_SUBSET} addresses of a subset mirrored. All of them are deleted when
   * there is nothing to mirror: no Service ({@code service} null), a Service with a selector, no
   * Endpoints, Endpoints labelled {@code endpointslice.kubernetes.io/skip-mirror: "true"} or
   * holding a leader-election record.
   */
  public static List<Intent> mirror(
      Service service, Endpoints endpoints, List<EndpointSlice> existing) {
    if (service == null || hasSelector(service) || endpoints == null || skipsMirror(endpoints)) {
      List<Intent> deletes = new ArrayList<>();
      sortedByName(existing)
          .forEach(slice -> deletes.add(Intent.delete(RESOURCE, GROUP, slice, null)));
      return deletes;
    }
    return keep(Keeper.of(endpoints), Map.of("IPv4", fromEndpoints(endpoints)), existing);
  }

  /** The writes that bring {@code existing} to the {@code desired} endpoints of each type. */
  private static List<Intent> keep(
      Keeper keeper, Map<String, Map<String, Group>> desired, List<EndpointSlice> existing) {
    Plan plan = new Plan(keeper, existing);
    Map<String, List<EndpointSlice>> byType = new TreeMap<>();
    for (EndpointSlice slice : sortedByName(existing)) {
      if (desired.containsKey(slice.getAddressType())) {
        byType.computeIfAbsent(slice.getAddressType(), t -> new ArrayList<>()).add(slice);
      } else {
        plan.delete.add(slice);
      }
    }
    desired.forEach(
        (addressType, groups) ->
            plan.byAddressType(addressType, groups, byType.getOrDefault(addressType, List.of())));
    List<Intent> intents = new ArrayList<>();
    if (keeper.owner().getDeletionTimestamp() == null) {
      plan.create.forEach(slice -> intents.add(Intent.create(RESOURCE, GROUP, slice)));
    }
    plan.update.forEach(slice -> intents.add(Intent.update(RESOURCE, GROUP, slice)));
    plan.delete.forEach(slice -> intents.add(Intent.delete(RESOURCE, GROUP, slice, null)));
    return intents;
  }

  private static boolean hasSelector(Service service) {
    ServiceSpec spec = service.getSpec();
    return spec != null && spec.getSelector() != null && !spec.getSelector().isEmpty();
  }

  /** {@code shouldMirror}: not labelled to skip, not a leader-election lock. */
  private static boolean skipsMirror(Endpoints endpoints) {
    Map<String, String> labels = endpoints.getMetadata().getLabels();
    Map<String, String> annotations = endpoints.getMetadata().getAnnotations();
    return (labels != null && "true".equals(labels.get(SKIP_MIRROR)))
        || (annotations != null && annotations.containsKey(LEADER));
  }

  /**
   * Whose slices a reconcile keeps, and how: the kind and metadata of the object they name as their
   * controller (a Service, or the Endpoints being mirrored), the labels and annotations they carry
   * (annotations null: left as they are), the labels whose change alone does not rewrite a slice,
   * and whether an owner without endpoints keeps an empty placeholder slice.
   */
  private record Keeper(
      String ownerKind,
      ObjectMeta owner,
      Map<String, String> labels,
      Map<String, String> annotations,
      Set<String> uncompared,
      boolean placeholder) {

    /** The endpointslice controller's, for a Service with a selector. */
    static Keeper of(Service service) {
      return new Keeper(
          "Service",
          service.getMetadata(),
          EndpointSliceReconciler.labels(service),
          null,
          Set.of(SERVICE_NAME, MANAGED_BY, HEADLESS),
          true);
    }

    /**
     * The mirroring controller's, for Endpoints: their labels (the reserved ones overwritten) and
     * their annotations but the last change's trigger time and kubectl's last applied
     * configuration, all compared.
     */
    static Keeper of(Endpoints endpoints) {
      ObjectMeta meta = endpoints.getMetadata();
      Map<String, String> labels = new TreeMap<>();
      if (meta.getLabels() != null) {
        labels.putAll(meta.getLabels());
      }
      labels.put(SERVICE_NAME, meta.getName());
      labels.put(MANAGED_BY, MIRRORING_CONTROLLER);
      Map<String, String> annotations = new TreeMap<>();
      if (meta.getAnnotations() != null) {
        annotations.putAll(meta.getAnnotations());
      }
      annotations.remove(LAST_CHANGE_TRIGGER_TIME);
      annotations.remove(LAST_APPLIED);
      return new Keeper("Endpoints", meta, labels, annotations, Set.of(), false);
    }

    /** Whether a slice's labels or annotations differ from those wanted, as its controller sees. */
    boolean metadataChanged(EndpointSlice slice) {
      return !compared(labelsOf(slice)).equals(compared(labels))
          || (annotations != null && !annotationsOf(slice).equals(annotations));
    }

    private Map<String, String> compared(Map<String, String> labels) {
      Map<String, String> compared = new TreeMap<>(labels);
      compared.keySet().removeAll(uncompared);
      return compared;
    }

    /** A copy of {@code meta} with the wanted labels (and annotations, when kept). */
    ObjectMeta relabelled(ObjectMeta meta) {
      ObjectMeta.Builder builder = ObjectMeta.newBuilder(meta).setLabels(new TreeMap<>(labels));
      if (annotations != null) {
        builder.setAnnotations(annotations.isEmpty() ? null : new TreeMap<>(annotations));
      }
      return builder.build();
    }

    /** {@code ownedBy}: a reference to the owner's uid, of the owner's kind in v1. */
    boolean owns(EndpointSlice slice) {
      for (OwnerReference ref : Owners.refs(slice.getMetadata())) {
        if (Objects.equals(ref.getUid(), owner.getUid())
            && ownerKind.equals(ref.getKind())
            && "v1".equals(ref.getApiVersion())) {
          return true;
        }
      }
      return false;
    }
  }

  /** The endpoints wanted for one set of ports, by their {@link #hash}. */
  private record Group(
      List<DiscoveryV1EndpointPort> ports, LinkedHashMap<String, Endpoint> endpoints) {}

  /** The endpoints of the pods a Service selects, by the ports they resolve to. */
  private static Map<String, Group> fromPods(Service service, List<Pod> pods, String addressType) {
    Map<String, Group> groups = new LinkedHashMap<>();
    for (Pod pod : pods) {
      if (!shouldBeInEndpoints(pod)) {
        continue;
      }
      List<DiscoveryV1EndpointPort> ports = endpointPorts(service, pod);
      Group group =
          groups.computeIfAbsent(portKey(ports), k -> new Group(ports, new LinkedHashMap<>()));
      Endpoint endpoint = endpoint(pod, service, addressType);
      if (!endpoint.getAddresses().isEmpty()) {
        group.endpoints().put(hash(endpoint), endpoint);
      }
    }
    return groups;
  }

  /**
   * The IPv4 endpoints of an Endpoints object's subsets, by their ports: {@code addresses} ready,
   * then {@code notReadyAddresses} not ready (the later of two with the same identity wins, as in
   * an endpoint set); an address that is no IPv4 address is left out.
   */
  private static Map<String, Group> fromEndpoints(Endpoints endpoints) {
    Map<String, Group> groups = new LinkedHashMap<>();
    for (EndpointSubset subset : list(endpoints.getSubsets())) {
      List<DiscoveryV1EndpointPort> ports = new ArrayList<>();
      for (EndpointPort port : list(subset.getPorts())) {
        ports.add(
            DiscoveryV1EndpointPort.newBuilder()
                .setName(Objects.requireNonNullElse(port.getName(), ""))
                .setProtocol(Objects.requireNonNullElse(port.getProtocol(), "TCP"))
                .setPort(port.getPort())
                .setAppProtocol(port.getAppProtocol())
                .build());
      }
      Group group =
          groups.computeIfAbsent(portKey(ports), k -> new Group(ports, new LinkedHashMap<>()));
      int added = 0;
      for (boolean ready : new boolean[] {true, false}) {
        for (EndpointAddress address :
            list(ready ? subset.getAddresses() : subset.getNotReadyAddresses())) {
          if (added >= MAX_ENDPOINTS_PER_SUBSET) {
            break;
          }
          String ip = ipv4(address.getIp());
          if (ip != null) {
            Endpoint endpoint = endpoint(address, ip, ready);
            group.endpoints().put(hash(endpoint), endpoint);
            added++;
          }
        }
      }
    }
    return groups;
  }

  /** {@code addressToEndpoint}: the address, ready or not, its hostname, node and target. */
  private static Endpoint endpoint(EndpointAddress address, String ip, boolean ready) {
    String hostname = address.getHostname();
    return Endpoint.newBuilder()
        .setAddresses(new ArrayList<>(List.of(ip)))
        .setConditions(EndpointConditions.newBuilder().setReady(ready).build())
        .setHostname(hostname == null || hostname.isEmpty() ? null : hostname)
        .setNodeName(address.getNodeName())
        .setTargetRef(address.getTargetRef())
        .build();
  }

  /** An IPv4 address in dotted decimal (an IPv4-mapped IPv6 one too), else null. */
  private static String ipv4(String text) {
    byte[] ip = text == null ? null : IpAddresses.parse(text);
    if (ip == null || !IpAddresses.isV4(ip)) {
      return null;
    }
    int at = ip.length - 4;
    return (ip[at] & 0xff)
        + "."
        + (ip[at + 1] & 0xff)
        + "."
        + (ip[at + 2] & 0xff)
        + "."
        + (ip[at + 3] & 0xff);
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
    final Keeper keeper;
    final List<EndpointSlice> create = new ArrayList<>();
    final List<EndpointSlice> update = new ArrayList<>();
    final List<EndpointSlice> delete = new ArrayList<>();
    final Set<String> taken = new HashSet<>();
    int nextSlot;

    Plan(Keeper keeper, List<EndpointSlice> existing) {
      this.keeper = keeper;
      existing.forEach(s -> taken.add(s.getMetadata().getName()));
    }

    /** {@code reconcileByAddressType}. */
    void byAddressType(
        String addressType, Map<String, Group> desired, List<EndpointSlice> existing) {
      List<EndpointSlice> toCreate = new ArrayList<>();
      List<EndpointSlice> toUpdate = new ArrayList<>();
      List<EndpointSlice> toDelete = new ArrayList<>();
      Map<String, List<EndpointSlice>> existingByPorts = new LinkedHashMap<>();
      for (EndpointSlice slice : existing) {
        if (keeper.owns(slice)) {
          existingByPorts
              .computeIfAbsent(portKey(slice.getPorts()), k -> new ArrayList<>())
              .add(slice);
        } else {
          toDelete.add(slice);
        }
      }
      desired.forEach(
          (key, group) ->
              byPorts(
                  existingByPorts.getOrDefault(key, List.of()),
                  new LinkedHashMap<>(group.endpoints()),
                  addressType,
                  group.ports(),
                  toCreate,
                  toUpdate,
                  toDelete));
      existingByPorts.forEach(
          (key, slices) -> {
            if (!desired.containsKey(key)) {
              toDelete.addAll(slices);
            }
          });
      if (keeper.placeholder() && existing.size() == toDelete.size() && toCreate.isEmpty()) {
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
        if (addressType.equals(deleted.getAddressType()) && keeper.owns(deleted)) {
          EndpointSlice reused = toCreate.remove(toCreate.size() - 1);
          EndpointSlice updated = KubeObjects.copy(deleted);
          updated.setMetadata(keeper.relabelled(deleted.getMetadata()));
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
        if (changed || endpoints.size() != kept.size()) {
          if (kept.isEmpty()) {
            toDelete.add(slice);
          } else {
            updating.add(withEndpoints(slice, kept, keeper));
          }
        } else if (keeper.metadataChanged(slice)) {
          updating.add(withEndpoints(slice, kept, keeper));
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
      ObjectMeta meta = keeper.owner();
      String name;
      do {
        name = sliceName(meta.getName(), Objects.requireNonNullElse(meta.getUid(), ""), nextSlot++);
      } while (!taken.add(name));
      return name;
    }

    private EndpointSlice newSlice(String addressType, List<DiscoveryV1EndpointPort> ports) {
      ObjectMeta meta = keeper.owner();
      return EndpointSlice.newBuilder()
          .setApiVersion(GROUP + "/v1")
          .setKind("EndpointSlice")
          .setMetadata(
              keeper.relabelled(
                  ObjectMeta.newBuilder()
                      .setGenerateName(meta.getName() + "-")
                      .setNamespace(meta.getNamespace())
                      .setOwnerReferences(
                          List.of(Owners.controllerRef("v1", keeper.ownerKind(), meta)))
                      .build()))
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

  /** A copy of {@code slice} to rewrite, with these endpoints (and metadata, unless null). */
  private static EndpointSlice withEndpoints(
      EndpointSlice slice, List<Endpoint> endpoints, Keeper keeper) {
    EndpointSlice copy = KubeObjects.copy(slice);
    copy.setEndpoints(new ArrayList<>(endpoints));
    if (keeper != null) {
      copy.setMetadata(keeper.relabelled(copy.getMetadata()));
    }
    return copy;
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

  private static Map<String, String> annotationsOf(EndpointSlice slice) {
    Map<String, String> annotations = slice.getMetadata().getAnnotations();
    return annotations == null ? Map.of() : annotations;
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
    boolean serving = PodReadiness.isReady(pod);
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

  private static List<Endpoint> endpointsOf(EndpointSlice slice) {
    return slice.getEndpoints() == null ? List.of() : slice.getEndpoints();
  }

  private static boolean empty(List<?> list) {
    return list == null || list.isEmpty();
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static List<EndpointSlice> sortedByName(List<EndpointSlice> slices) {
    List<EndpointSlice> sorted = new ArrayList<>(slices);
    sorted.sort(Comparator.comparing(s -> s.getMetadata().getName()));
    return sorted;
  }
}
