package io.streamplane.csi.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.csi.Bytes;
import io.streamplane.csi.v1.CapacityRange;
import io.streamplane.csi.v1.ControllerExpandVolumeRequest;
import io.streamplane.csi.v1.CreateVolumeRequest;
import io.streamplane.csi.v1.Topology;
import io.streamplane.csi.v1.TopologyRequirement;
import io.streamplane.csi.v1.Volume;
import io.streamplane.csi.v1.VolumeCapability;
import java.util.Map;
import java.util.Optional;

/**
 * What the controller sidecars decide, as pure functions of the objects they read (JSON as the API
 * serves it): external-provisioner's choice of claims and the CreateVolume request and
 * PersistentVolume it makes of one, its choice of volumes to delete, and external-resizer's choice
 * of claims to expand and the writes that follow an expansion.
 */
public final class Provisioning {

  public static final String STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
  public static final String BETA_STORAGE_PROVISIONER =
      "volume.beta.kubernetes.io/storage-provisioner";
  public static final String SELECTED_NODE = "volume.kubernetes.io/selected-node";
  public static final String PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
  public static final String STORAGE_RESIZER = "volume.kubernetes.io/storage-resizer";

  /** The prefix of class parameters meant for the sidecars, never passed to the driver. */
  static final String RESERVED_PREFIX = "csi.storage.k8s.io/";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Provisioning() {}

  private static String annotation(JsonNode object, String key) {
    return object.path("metadata").path("annotations").path(key).asText("");
  }

  /**
   * Whether {@code driver} is to provision {@code claim}: Pending, not bound to a volume, not being
   * deleted, and annotated for this provisioner; a claim of a WaitForFirstConsumer class only once
   * the scheduler selected its node.
   */
  public static boolean wantsVolume(JsonNode claim, JsonNode storageClass, String driver) {
    if (!claim.path("spec").path("volumeName").asText("").isEmpty()
        || !claim.path("metadata").path("deletionTimestamp").isMissingNode()
            && !claim.path("metadata").path("deletionTimestamp").isNull()) {
      return false;
    }
    String phase = claim.path("status").path("phase").asText("Pending");
    if (!phase.equals("Pending")) {
      return false;
    }
    String provisioner = annotation(claim, STORAGE_PROVISIONER);
    if (provisioner.isEmpty()) {
      provisioner = annotation(claim, BETA_STORAGE_PROVISIONER);
    }
    if (!provisioner.equals(driver)) {
      return false;
    }
    if (storageClass == null || !driver.equals(storageClass.path("provisioner").asText())) {
      return false;
    }
    boolean waits =
        "WaitForFirstConsumer".equals(storageClass.path("volumeBindingMode").asText("Immediate"));
    return !waits || !annotation(claim, SELECTED_NODE).isEmpty();
  }

  /**
   * Whether the claim is for the provisioner of node {@code nodeId} (each node's driver provisions
   * the claims whose selected node is its own, as external-provisioner with a node deployment); a
   * claim with no selected node belongs to the provisioner that takes {@code immediate} ones.
   */
  public static boolean forNode(JsonNode claim, String nodeId, boolean immediate) {
    String selected = annotation(claim, SELECTED_NODE);
    return selected.isEmpty() ? immediate : selected.equals(nodeId);
  }

  /** Whether the volume's node affinity names {@code value} for {@code topologyKey}. */
  public static boolean onNode(JsonNode pv, String topologyKey, String value) {
    for (JsonNode term :
        pv.path("spec").path("nodeAffinity").path("required").path("nodeSelectorTerms")) {
      for (JsonNode expression : term.path("matchExpressions")) {
        if (expression.path("key").asText().equals(topologyKey)) {
          for (JsonNode v : expression.path("values")) {
            if (v.asText().equals(value)) {
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  /** The PersistentVolume's name of a claim: {@code pvc-<claim uid>}. */
  public static String volumeName(JsonNode claim) {
    return "pvc-" + claim.path("metadata").path("uid").asText();
  }

  /** The bytes a claim requests. */
  public static long requestedBytes(JsonNode claim) {
    return Bytes.parse(
        claim.path("spec").path("resources").path("requests").path("storage").asText("0"));
  }

  static VolumeCapability.AccessMode.Mode mode(String accessMode) {
    return switch (accessMode) {
      case "ReadOnlyMany" -> VolumeCapability.AccessMode.Mode.MULTI_NODE_READER_ONLY;
      case "ReadWriteMany" -> VolumeCapability.AccessMode.Mode.MULTI_NODE_MULTI_WRITER;
      case "ReadWriteOncePod" -> VolumeCapability.AccessMode.Mode.SINGLE_NODE_SINGLE_WRITER;
      default -> VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER;
    };
  }

  /**
   * The CreateVolume request of a claim: named after the volume, the claim's bytes, a mount
   * capability per access mode, the class's parameters but the sidecars' own, and — when {@code
   * topology} (the selected node's segments) is given — that topology as requisite and preferred.
   */
  public static CreateVolumeRequest createVolume(
      JsonNode claim, JsonNode storageClass, Map<String, String> topology) {
    CreateVolumeRequest.Builder request =
        CreateVolumeRequest.newBuilder()
            .setName(volumeName(claim))
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(requestedBytes(claim)));
    VolumeCapability.MountVolume.Builder mount = VolumeCapability.MountVolume.newBuilder();
    String fsType = storageClass.path("parameters").path("csi.storage.k8s.io/fstype").asText("");
    mount.setFsType(fsType);
    for (JsonNode flag : storageClass.path("mountOptions")) {
      mount.addMountFlags(flag.asText());
    }
    JsonNode modes = claim.path("spec").path("accessModes");
    for (JsonNode accessMode : modes) {
      request.addVolumeCapabilities(
          VolumeCapability.newBuilder()
              .setMount(mount)
              .setAccessMode(
                  VolumeCapability.AccessMode.newBuilder().setMode(mode(accessMode.asText()))));
    }
    storageClass
        .path("parameters")
        .fields()
        .forEachRemaining(
            e -> {
              if (!e.getKey().startsWith(RESERVED_PREFIX)) {
                request.putParameters(e.getKey(), e.getValue().asText());
              }
            });
    if (topology != null && !topology.isEmpty()) {
      Topology segment = Topology.newBuilder().putAllSegments(topology).build();
      request.setAccessibilityRequirements(
          TopologyRequirement.newBuilder().addRequisite(segment).addPreferred(segment));
    }
    return request.build();
  }

  /**
   * The selected node's topology for {@code driver}: the values of the Node's labels named by the
   * keys its CSINode lists for the driver; empty when the CSINode does not list it.
   */
  public static Map<String, String> nodeTopology(JsonNode csiNode, JsonNode node, String driver) {
    Map<String, String> segments = new java.util.TreeMap<>();
    for (JsonNode entry : csiNode.path("spec").path("drivers")) {
      if (entry.path("name").asText().equals(driver)) {
        for (JsonNode key : entry.path("topologyKeys")) {
          String value = node.path("metadata").path("labels").path(key.asText()).asText("");
          if (!value.isEmpty()) {
            segments.put(key.asText(), value);
          }
        }
      }
    }
    return segments;
  }

  /**
   * The PersistentVolume of a provisioned claim: named after it, annotated with its provisioner,
   * bound ahead to the claim ({@code claimRef}), of the volume's capacity, the claim's access modes
   * and volume mode, the class's name, reclaim policy (Delete when unset) and mount options, its
   * {@code csi} source the driver's volume, and a node affinity of the volume's topology.
   */
  public static ObjectNode persistentVolume(
      JsonNode claim, JsonNode storageClass, Volume volume, String driver) {
    ObjectNode pv = NODES.objectNode();
    pv.put("apiVersion", "v1");
    pv.put("kind", "PersistentVolume");
    ObjectNode metadata = pv.putObject("metadata");
    metadata.put("name", volumeName(claim));
    metadata.putObject("annotations").put(PROVISIONED_BY, driver);
    ObjectNode spec = pv.putObject("spec");
    spec.putObject("capacity").put("storage", Bytes.format(volume.getCapacityBytes()));
    spec.set("accessModes", claim.path("spec").path("accessModes").deepCopy());
    spec.put("persistentVolumeReclaimPolicy", storageClass.path("reclaimPolicy").asText("Delete"));
    spec.put("storageClassName", storageClass.path("metadata").path("name").asText());
    spec.put("volumeMode", claim.path("spec").path("volumeMode").asText("Filesystem"));
    if (storageClass.path("mountOptions").isArray()
        && !storageClass.path("mountOptions").isEmpty()) {
      spec.set("mountOptions", storageClass.path("mountOptions").deepCopy());
    }
    ObjectNode claimRef = spec.putObject("claimRef");
    claimRef.put("kind", "PersistentVolumeClaim");
    claimRef.put("apiVersion", "v1");
    claimRef.put("namespace", claim.path("metadata").path("namespace").asText());
    claimRef.put("name", claim.path("metadata").path("name").asText());
    claimRef.put("uid", claim.path("metadata").path("uid").asText());
    claimRef.put("resourceVersion", claim.path("metadata").path("resourceVersion").asText());
    ObjectNode csi = spec.putObject("csi");
    csi.put("driver", driver);
    csi.put("volumeHandle", volume.getVolumeId());
    String fsType = storageClass.path("parameters").path("csi.storage.k8s.io/fstype").asText("");
    if (!fsType.isEmpty()) {
      csi.put("fsType", fsType);
    }
    if (!volume.getVolumeContextMap().isEmpty()) {
      ObjectNode attributes = csi.putObject("volumeAttributes");
      volume.getVolumeContextMap().forEach(attributes::put);
    }
    if (volume.getAccessibleTopologyCount() > 0) {
      ArrayNode terms =
          spec.putObject("nodeAffinity").putObject("required").putArray("nodeSelectorTerms");
      for (Topology topology : volume.getAccessibleTopologyList()) {
        ArrayNode expressions = terms.addObject().putArray("matchExpressions");
        topology
            .getSegmentsMap()
            .forEach(
                (key, value) -> {
                  ObjectNode expression = expressions.addObject();
                  expression.put("key", key);
                  expression.put("operator", "In");
                  expression.putArray("values").add(value);
                });
      }
    }
    return pv;
  }

  /**
   * The volume handle of a PersistentVolume {@code driver} is to delete: provisioned by it,
   * Released, its reclaim policy Delete, not being deleted already; empty otherwise.
   */
  public static Optional<String> toDelete(JsonNode pv, String driver) {
    boolean ours =
        driver.equals(annotation(pv, PROVISIONED_BY))
            && driver.equals(pv.path("spec").path("csi").path("driver").asText());
    boolean released = "Released".equals(pv.path("status").path("phase").asText());
    boolean delete =
        "Delete".equals(pv.path("spec").path("persistentVolumeReclaimPolicy").asText());
    JsonNode deleting = pv.path("metadata").path("deletionTimestamp");
    if (ours && released && delete && (deleting.isMissingNode() || deleting.isNull())) {
      return Optional.of(pv.path("spec").path("csi").path("volumeHandle").asText());
    }
    return Optional.empty();
  }

  /**
   * The ControllerExpandVolume request of a claim {@code driver} is to expand: Bound to {@code pv}
   * (a volume of this driver), its request above the volume's capacity; empty otherwise.
   */
  public static Optional<ControllerExpandVolumeRequest> toExpand(
      JsonNode claim, JsonNode pv, String driver) {
    if (!"Bound".equals(claim.path("status").path("phase").asText())
        || pv == null
        || !driver.equals(pv.path("spec").path("csi").path("driver").asText())) {
      return Optional.empty();
    }
    String resizer = annotation(claim, STORAGE_RESIZER);
    if (!resizer.isEmpty() && !resizer.equals(driver)) {
      return Optional.empty();
    }
    long wanted = requestedBytes(claim);
    long has = Bytes.parse(pv.path("spec").path("capacity").path("storage").asText("0"));
    if (wanted <= has) {
      return Optional.empty();
    }
    return Optional.of(
        ControllerExpandVolumeRequest.newBuilder()
            .setVolumeId(pv.path("spec").path("csi").path("volumeHandle").asText())
            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(wanted))
            .setVolumeCapability(
                VolumeCapability.newBuilder()
                    .setMount(VolumeCapability.MountVolume.getDefaultInstance())
                    .setAccessMode(
                        VolumeCapability.AccessMode.newBuilder()
                            .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)))
            .build());
  }

  /** The merge patch of a volume's capacity once the controller expanded it. */
  public static ObjectNode expandedVolume(long bytes) {
    ObjectNode patch = NODES.objectNode();
    patch.putObject("spec").putObject("capacity").put("storage", Bytes.format(bytes));
    return patch;
  }

  /**
   * The merge patch of a claim's status once the controller expanded its volume: the bytes
   * allocated, and the FileSystemResizePending condition when the node is to finish, else the
   * capacity itself.
   */
  public static ObjectNode expandedClaim(
      JsonNode claim, long bytes, boolean nodeExpansion, String now) {
    ObjectNode patch = NODES.objectNode();
    ObjectNode status = patch.putObject("status");
    status.putObject("allocatedResources").put("storage", Bytes.format(bytes));
    ArrayNode conditions = status.putArray("conditions");
    for (JsonNode condition : claim.path("status").path("conditions")) {
      String type = condition.path("type").asText();
      if (!type.equals("Resizing") && !type.equals("FileSystemResizePending")) {
        conditions.add(condition);
      }
    }
    if (nodeExpansion) {
      ObjectNode pending = conditions.addObject();
      pending.put("type", "FileSystemResizePending");
      pending.put("status", "True");
      pending.putNull("lastProbeTime");
      pending.put("lastTransitionTime", now);
      pending.put(
          "message",
          "Waiting for user to (re-)start a pod to finish file system resize of volume on node.");
    } else {
      status.putObject("capacity").put("storage", Bytes.format(bytes));
    }
    return patch;
  }

  /**
   * An Event about a claim, as a sidecar's event recorder writes it: named {@code <claim>.<hex>}
   * with the hex derived from {@code seed}, so the same decision recorded again is AlreadyExists.
   */
  public static ObjectNode claimEvent(
      JsonNode claim,
      String component,
      String type,
      String reason,
      String message,
      String seed,
      String now) {
    JsonNode meta = claim.path("metadata");
    ObjectNode event = NODES.objectNode();
    event.put("apiVersion", "v1");
    event.put("kind", "Event");
    ObjectNode metadata = event.putObject("metadata");
    metadata.put(
        "name",
        meta.path("name").asText()
            + "."
            + Long.toHexString(
                java.util
                        .UUID
                        .nameUUIDFromBytes(seed.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                        .getMostSignificantBits()
                    & 0xffffffffffffL));
    metadata.put("namespace", meta.path("namespace").asText());
    ObjectNode involved = event.putObject("involvedObject");
    involved.put("kind", "PersistentVolumeClaim");
    involved.put("apiVersion", "v1");
    involved.put("namespace", meta.path("namespace").asText());
    involved.put("name", meta.path("name").asText());
    involved.put("uid", meta.path("uid").asText());
    involved.put("resourceVersion", meta.path("resourceVersion").asText());
    event.put("type", type);
    event.put("reason", reason);
    event.put("message", message);
    event.putObject("source").put("component", component);
    event.put("firstTimestamp", now);
    event.put("lastTimestamp", now);
    event.put("count", 1);
    event.put("reportingComponent", component);
    return event;
  }
}
