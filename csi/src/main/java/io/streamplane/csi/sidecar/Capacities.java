package io.streamplane.csi.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.csi.Bytes;
import io.streamplane.csi.v1.GetCapacityRequest;
import io.streamplane.csi.v1.GetCapacityResponse;
import io.streamplane.csi.v1.Topology;
import io.streamplane.csi.v1.VolumeCapability;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * What external-provisioner's storage capacity feature publishes, as pure functions: for each
 * StorageClass of the driver and the topology segment of its node, GetCapacity with the class's
 * parameters, and a CSIStorageCapacity in {@value #NAMESPACE} saying what it answered ({@code
 * capacity}, {@code maximumVolumeSize}), its {@code nodeTopology} the segment as match labels,
 * labelled with the driver and its manager. A capacity of a class that is gone is deleted.
 */
public final class Capacities {

  public static final String NAMESPACE = "kube-system";
  public static final String DRIVER_LABEL = "csi.storage.k8s.io/drivername";
  public static final String MANAGED_BY_LABEL = "csi.storage.k8s.io/managed-by";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Capacities() {}

  /** external-provisioner's manager label of a deployment per node. */
  public static String managedBy(String nodeId) {
    return "external-provisioner-" + nodeId;
  }

  /**
   * The object's name: {@code csisc-} and a hash of driver, node and class, stable across passes.
   */
  public static String name(String driver, String nodeId, String storageClass) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  (driver + "/" + nodeId + "/" + storageClass).getBytes(StandardCharsets.UTF_8));
      return "csisc-" + HexFormat.of().formatHex(digest).substring(0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** GetCapacity for the class's parameters (but the sidecars' own) in the node's segment. */
  public static GetCapacityRequest request(
      JsonNode storageClass, String topologyKey, String nodeId) {
    GetCapacityRequest.Builder request =
        GetCapacityRequest.newBuilder()
            .setAccessibleTopology(Topology.newBuilder().putSegments(topologyKey, nodeId))
            .addVolumeCapabilities(
                VolumeCapability.newBuilder()
                    .setMount(VolumeCapability.MountVolume.getDefaultInstance())
                    .setAccessMode(
                        VolumeCapability.AccessMode.newBuilder()
                            .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER)));
    storageClass
        .path("parameters")
        .fields()
        .forEachRemaining(
            e -> {
              if (!e.getKey().startsWith(Provisioning.RESERVED_PREFIX)) {
                request.putParameters(e.getKey(), e.getValue().asText());
              }
            });
    return request.build();
  }

  /** The CSIStorageCapacity saying what GetCapacity answered for the class on the node. */
  public static ObjectNode capacity(
      String driver,
      String topologyKey,
      String nodeId,
      String storageClass,
      GetCapacityResponse answer) {
    ObjectNode object = NODES.objectNode();
    object.put("apiVersion", "storage.k8s.io/v1");
    object.put("kind", "CSIStorageCapacity");
    ObjectNode metadata = object.putObject("metadata");
    metadata.put("name", name(driver, nodeId, storageClass));
    metadata.put("namespace", NAMESPACE);
    ObjectNode labels = metadata.putObject("labels");
    labels.put(DRIVER_LABEL, driver);
    labels.put(MANAGED_BY_LABEL, managedBy(nodeId));
    object.putObject("nodeTopology").putObject("matchLabels").put(topologyKey, nodeId);
    object.put("storageClassName", storageClass);
    object.put("capacity", Bytes.format(answer.getAvailableCapacity()));
    if (answer.hasMaximumVolumeSize()) {
      object.put("maximumVolumeSize", Bytes.format(answer.getMaximumVolumeSize().getValue()));
    }
    return object;
  }

  /** Whether the stored object says something else than the one to publish. */
  public static boolean differs(JsonNode stored, JsonNode wanted) {
    for (String field : new String[] {"storageClassName", "capacity", "maximumVolumeSize"}) {
      if (!stored.path(field).asText("").equals(wanted.path(field).asText(""))) {
        return true;
      }
    }
    return !stored.path("nodeTopology").equals(wanted.path("nodeTopology"));
  }

  /** The stored object with the published fields of {@code wanted}, at its version. */
  public static ObjectNode updated(JsonNode stored, ObjectNode wanted) {
    ObjectNode object = wanted.deepCopy();
    ((ObjectNode) object.path("metadata"))
        .put("resourceVersion", stored.path("metadata").path("resourceVersion").asText());
    return object;
  }

  /** Whether a stored capacity is this node's driver's, by its labels. */
  public static boolean ours(JsonNode stored, String driver, String nodeId) {
    Map<String, String> wanted = Map.of(DRIVER_LABEL, driver, MANAGED_BY_LABEL, managedBy(nodeId));
    JsonNode labels = stored.path("metadata").path("labels");
    return wanted.entrySet().stream()
        .allMatch(e -> e.getValue().equals(labels.path(e.getKey()).asText()));
  }
}
