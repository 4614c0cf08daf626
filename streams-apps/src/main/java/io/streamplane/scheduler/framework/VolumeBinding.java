package io.streamplane.scheduler.framework;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.CSINode;
import io.streamplane.api.CSIStorageCapacity;
import io.streamplane.api.Node;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.PersistentVolumeSpec;
import io.streamplane.api.Pod;
import io.streamplane.api.StorageClass;
import io.streamplane.api.TopologySelectorLabelRequirement;
import io.streamplane.api.TopologySelectorTerm;
import io.streamplane.api.Volume;
import io.streamplane.controller.volume.VolumeAnnotations;
import io.streamplane.controller.volume.VolumeMatching;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.schema.objects.Quantities;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * kube-scheduler's VolumeBinding plugin, for a pod's PersistentVolumeClaims and generic ephemeral
 * volumes:
 *
 * <ul>
 *   <li>PreFilter ({@link #of}): a claim that does not exist ({@code persistentvolumeclaim "x" not
 *       found}, or, for an ephemeral volume, {@code waiting for ephemeral volume controller to
 *       create the persistentvolumeclaim "p-v"}), is Lost or being deleted, or an ephemeral claim
 *       the pod does not own, makes the pod unschedulable on every node with that message; so does
 *       an unbound claim of a class that binds at once ({@code pod has unbound immediate
 *       PersistentVolumeClaims}): the PersistentVolume controller binds it first;
 *   <li>Filter ({@link #reject}): a bound claim's volume must exist ({@code node(s) unavailable due
 *       to one or more pvc(s) bound to non-existent pv(s)}) and its node affinity admit the node
 *       ({@code node(s) had volume node affinity conflict}); an unbound WaitForFirstConsumer claim
 *       needs on the node either an Available volume that fits it (as the PV controller matches,
 *       with the node's affinity and access modes) or a class whose provisioner can make one there
 *       (not {@code kubernetes.io/no-provisioner}, its {@code allowedTopologies} matching the
 *       node): else {@code node(s) didn't find available persistent volumes to bind}; when the
 *       provisioner's CSIDriver has {@code storageCapacity: true}, a CSIStorageCapacity of the
 *       class for the node's topology must hold the claim: else {@code node(s) did not have enough
 *       free storage};
 *   <li>PreBind ({@link #bindings}): for the chosen node, the volumes to bind to their claims
 *       (claimRef and {@code pv.kubernetes.io/bound-by-controller}) and the claims to provision
 *       there ({@code volume.kubernetes.io/selected-node}).
 * </ul>
 *
 * <p>Limits: the writes of PreBind are made when the pod is proposed to its node, and the pod is
 * bound without waiting for its volumes to be bound (kube-scheduler waits in PreBind); a volume two
 * pods' claims were both matched to goes to the first write.
 */
public final class VolumeBinding {

  public static final String NAME = "VolumeBinding";
  public static final String BIND_CONFLICT =
      "node(s) didn't find available persistent volumes to bind";
  public static final String NODE_CONFLICT = "node(s) had volume node affinity conflict";
  public static final String PV_NOT_EXIST =
      "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
  public static final String UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims";
  public static final String NOT_ENOUGH_SPACE = "node(s) did not have enough free storage";

  /**
   * What the plugin reads of the cluster: the scheduler's informers of claims, volumes, classes.
   */
  public interface Objects {
    PersistentVolumeClaim claim(String namespace, String name);

    PersistentVolume volume(String name);

    StorageClass storageClass(String name);

    List<PersistentVolume> volumes();

    /** The CSIDriver of that name, or null. */
    default CSIDriver csiDriver(String name) {
      return null;
    }

    /** The CSINode of that node, or null. */
    default CSINode csiNode(String name) {
      return null;
    }

    /** Every CSIStorageCapacity, of all namespaces. */
    default List<CSIStorageCapacity> storageCapacities() {
      return List.of();
    }
  }

  /** A write PreBind makes: a volume bound to a claim, or a claim to provision on the node. */
  public record Bindings(List<PersistentVolume> volumes, List<PersistentVolumeClaim> claims) {}

  private static final VolumeBinding NONE = new VolumeBinding(null, List.of(), List.of(), null);

  private final String failure;
  private final List<PersistentVolume> boundVolumes;
  private final List<PersistentVolumeClaim> delayed;
  private final Objects objects;
  private List<PersistentVolume> allVolumes;
  private List<CSIStorageCapacity> capacities;
  private boolean noSpace; // the last bindings failed for want of storage capacity

  private VolumeBinding(
      String failure,
      List<PersistentVolume> boundVolumes,
      List<PersistentVolumeClaim> delayed,
      Objects objects) {
    this.failure = failure;
    this.boundVolumes = boundVolumes;
    this.delayed = delayed;
    this.objects = objects;
  }

  /** A pod without claims: nothing to check. */
  public static VolumeBinding none() {
    return NONE;
  }

  /** PreFilter: the pod's claims as the plugin reads them. */
  public static VolumeBinding of(Pod pod, Objects objects) {
    if (pod.getSpec() == null || pod.getSpec().getVolumes() == null) {
      return NONE;
    }
    String namespace = pod.getMetadata().getNamespace();
    List<PersistentVolume> bound = new ArrayList<>();
    List<PersistentVolumeClaim> delayed = new ArrayList<>();
    boolean immediate = false;
    boolean any = false;
    for (Volume volume : pod.getSpec().getVolumes()) {
      String claimName;
      boolean ephemeral = false;
      if (volume.getPersistentVolumeClaim() != null) {
        claimName = volume.getPersistentVolumeClaim().getClaimName();
      } else if (volume.getEphemeral() != null) {
        claimName = pod.getMetadata().getName() + "-" + volume.getName();
        ephemeral = true;
      } else {
        continue;
      }
      any = true;
      PersistentVolumeClaim claim = objects.claim(namespace, claimName);
      if (claim == null) {
        return failed(
            ephemeral
                ? "waiting for ephemeral volume controller to create the persistentvolumeclaim \""
                    + claimName
                    + "\""
                : "persistentvolumeclaim \"" + claimName + "\" not found");
      }
      String phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
      if ("Lost".equals(phase)) {
        return failed(
            "persistentvolumeclaim \""
                + claimName
                + "\" bound to non-existent persistentvolume \""
                + (claim.getSpec().getVolumeName() == null ? "" : claim.getSpec().getVolumeName())
                + "\"");
      }
      if (claim.getMetadata().getDeletionTimestamp() != null) {
        return failed("persistentvolumeclaim \"" + claimName + "\" is being deleted");
      }
      if (ephemeral && !ownedBy(claim, pod)) {
        return failed(
            "PVC "
                + namespace
                + "/"
                + claimName
                + " was not created for pod "
                + namespace
                + "/"
                + pod.getMetadata().getName()
                + " (pod is not owner)");
      }
      String volumeName = claim.getSpec().getVolumeName();
      boolean fullyBound =
          volumeName != null
              && !volumeName.isEmpty()
              && claim.getMetadata().getAnnotations() != null
              && claim.getMetadata().getAnnotations().containsKey(VolumeAnnotations.BIND_COMPLETED);
      if (fullyBound) {
        PersistentVolume pv = objects.volume(volumeName);
        bound.add(pv == null ? missing(volumeName) : pv);
        continue;
      }
      StorageClass storageClass = objects.storageClass(VolumeAnnotations.claimClass(claim));
      if (storageClass != null
          && "WaitForFirstConsumer".equals(storageClass.getVolumeBindingMode())) {
        delayed.add(claim);
      } else {
        immediate = true;
      }
    }
    if (!any) {
      return NONE;
    }
    if (immediate) {
      return failed(UNBOUND_IMMEDIATE);
    }
    return new VolumeBinding(null, bound, delayed, objects);
  }

  private static VolumeBinding failed(String message) {
    return new VolumeBinding(message, List.of(), List.of(), null);
  }

  /** A stand-in for a volume a bound claim names and that does not exist. */
  private static PersistentVolume missing(String name) {
    return PersistentVolume.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(name).build())
        .build();
  }

  private static boolean ownedBy(PersistentVolumeClaim claim, Pod pod) {
    var owners = claim.getMetadata().getOwnerReferences();
    return owners != null
        && owners.stream()
            .anyMatch(
                o ->
                    Boolean.TRUE.equals(o.getController())
                        && java.util.Objects.equals(o.getUid(), pod.getMetadata().getUid()));
  }

  /** The PreFilter's message when the pod cannot be scheduled anywhere, or null. */
  public String preFilterFailure() {
    return failure;
  }

  /** Filter: why the node cannot have the pod's volumes, or empty. */
  public Optional<Rejection> reject(NodeInfo node) {
    if (this == NONE) {
      return Optional.empty();
    }
    for (PersistentVolume pv : boundVolumes) {
      if (pv.getSpec() == null) {
        return Optional.of(Rejection.unresolvable(PV_NOT_EXIST));
      }
      if (!VolumeMatching.fitsNode(pv, node.node())) {
        return Optional.of(Rejection.unresolvable(NODE_CONFLICT));
      }
    }
    noSpace = false;
    if (!delayed.isEmpty() && bindings(node.node()) == null) {
      return Optional.of(Rejection.unresolvable(noSpace ? NOT_ENOUGH_SPACE : BIND_CONFLICT));
    }
    return Optional.empty();
  }

  /**
   * PreBind for {@code node}: each delayed claim gets a matching Available volume (bound to it) or
   * is provisioned on the node; null when some claim can have neither.
   */
  public Bindings bindings(Node node) {
    List<PersistentVolume> volumes = new ArrayList<>();
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    Set<String> chosen = new HashSet<>();
    if (allVolumes == null) {
      // Read once per pod, not once per node examined.
      allVolumes = delayed.isEmpty() ? List.of() : objects.volumes();
    }
    List<PersistentVolume> all = allVolumes;
    for (PersistentVolumeClaim claim : delayed) {
      PersistentVolume match =
          VolumeMatching.findBestMatch(claim, withAccessModes(all, claim), node, chosen, true);
      if (match != null) {
        chosen.add(match.getMetadata().getName());
        if (!VolumeMatching.boundToClaim(match, claim)) {
          volumes.add(boundTo(match, claim));
        }
        continue;
      }
      StorageClass storageClass = objects.storageClass(VolumeAnnotations.claimClass(claim));
      if (!provisionable(storageClass, node)) {
        return null;
      }
      if (!enoughCapacity(claim, storageClass, node)) {
        noSpace = true;
        return null;
      }
      String selected =
          claim.getMetadata().getAnnotations() == null
              ? null
              : claim.getMetadata().getAnnotations().get(VolumeAnnotations.SELECTED_NODE);
      if (!node.getMetadata().getName().equals(selected)) {
        Map<String, String> annotations =
            claim.getMetadata().getAnnotations() == null
                ? new HashMap<>()
                : new HashMap<>(claim.getMetadata().getAnnotations());
        annotations.put(VolumeAnnotations.SELECTED_NODE, node.getMetadata().getName());
        claims.add(
            PersistentVolumeClaim.newBuilder(claim)
                .setMetadata(
                    ObjectMeta.newBuilder(claim.getMetadata()).setAnnotations(annotations).build())
                .build());
      }
    }
    return new Bindings(volumes, claims);
  }

  /** On the scheduler's path the access modes are checked volume by volume too. */
  private static List<PersistentVolume> withAccessModes(
      List<PersistentVolume> volumes, PersistentVolumeClaim claim) {
    List<String> wanted =
        claim.getSpec().getAccessModes() == null ? List.of() : claim.getSpec().getAccessModes();
    return volumes.stream()
        .filter(
            v ->
                v.getSpec() != null
                    && v.getSpec().getAccessModes() != null
                    && v.getSpec().getAccessModes().containsAll(wanted))
        .toList();
  }

  /** {@code checkVolumeProvisions}: a provisioner, and the class's topologies admit the node. */
  private static boolean provisionable(StorageClass storageClass, Node node) {
    if (storageClass == null
        || storageClass.getProvisioner() == null
        || storageClass.getProvisioner().equals(VolumeAnnotations.NO_PROVISIONER)) {
      return false;
    }
    List<TopologySelectorTerm> topologies = storageClass.getAllowedTopologies();
    if (topologies == null || topologies.isEmpty()) {
      return true;
    }
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    for (TopologySelectorTerm term : topologies) {
      boolean all = true;
      for (TopologySelectorLabelRequirement r :
          term.getMatchLabelExpressions() == null
              ? List.<TopologySelectorLabelRequirement>of()
              : term.getMatchLabelExpressions()) {
        if (!labels.containsKey(r.getKey())
            || r.getValues() == null
            || !r.getValues().contains(labels.get(r.getKey()))) {
          all = false;
          break;
        }
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code hasEnoughCapacity}: when the class's provisioner is a CSIDriver with {@code
   * storageCapacity: true}, some CSIStorageCapacity of the class whose node topology selects the
   * node must report at least the claim's request ({@code maximumVolumeSize} when given, else
   * {@code capacity}); other drivers and claims of no size always have room.
   */
  private boolean enoughCapacity(
      PersistentVolumeClaim claim, StorageClass storageClass, Node node) {
    CSIDriver driver = objects.csiDriver(storageClass.getProvisioner());
    if (driver == null
        || driver.getSpec() == null
        || !Boolean.TRUE.equals(driver.getSpec().getStorageCapacity())) {
      return true;
    }
    var requests =
        claim.getSpec().getResources() == null
            ? null
            : claim.getSpec().getResources().getRequests();
    String request = requests == null ? null : requests.get("storage");
    long size = request == null ? 0 : Quantities.value(request);
    if (size <= 0) {
      return true;
    }
    if (capacities == null) {
      capacities = objects.storageCapacities(); // read once per pod
    }
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    for (CSIStorageCapacity capacity : capacities) {
      if (!storageClass.getMetadata().getName().equals(capacity.getStorageClassName())
          || capacity.getNodeTopology() == null
          || !LabelSelectors.matches(capacity.getNodeTopology(), labels)) {
        continue;
      }
      String reported =
          capacity.getMaximumVolumeSize() != null
              ? capacity.getMaximumVolumeSize()
              : capacity.getCapacity();
      if (reported != null && Quantities.value(reported) >= size) {
        return true;
      }
    }
    return false;
  }

  /** {@code GetBindVolumeToClaim}: the volume naming the claim, marked bound by the controller. */
  private static PersistentVolume boundTo(PersistentVolume pv, PersistentVolumeClaim claim) {
    ObjectMeta meta = claim.getMetadata();
    Map<String, String> annotations =
        pv.getMetadata().getAnnotations() == null
            ? new HashMap<>()
            : new HashMap<>(pv.getMetadata().getAnnotations());
    annotations.putIfAbsent(VolumeAnnotations.BOUND_BY_CONTROLLER, "yes");
    return PersistentVolume.newBuilder(pv)
        .setMetadata(ObjectMeta.newBuilder(pv.getMetadata()).setAnnotations(annotations).build())
        .setSpec(
            PersistentVolumeSpec.newBuilder(pv.getSpec())
                .setClaimRef(
                    ObjectReference.newBuilder()
                        .setKind("PersistentVolumeClaim")
                        .setNamespace(meta.getNamespace())
                        .setName(meta.getName())
                        .setUid(meta.getUid())
                        .setApiVersion("v1")
                        .setResourceVersion(meta.getResourceVersion())
                        .build())
                .build())
        .build();
  }
}
