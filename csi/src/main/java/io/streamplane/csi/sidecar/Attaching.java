package io.streamplane.csi.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.csi.v1.ControllerPublishVolumeRequest;
import io.streamplane.csi.v1.ControllerUnpublishVolumeRequest;
import io.streamplane.csi.v1.VolumeCapability;
import java.util.Map;
import java.util.Optional;

/**
 * What external-attacher decides, as pure functions of the objects it reads (JSON as the API serves
 * them): which VolumeAttachments of its driver to attach (ControllerPublishVolume of the
 * PersistentVolume's handle to the node's CSI node ID) and to detach (a deleted attachment that
 * still carries its finalizer: ControllerUnpublishVolume, then the finalizer goes), and the writes
 * that follow either.
 */
public final class Attaching {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Attaching() {}

  /**
   * external-attacher's finalizer of {@code driver}'s attachments: {@code external-attacher/} and
   * the driver's name with every character but letters, digits and {@code -} made {@code -}.
   */
  public static String finalizer(String driver) {
    String name = driver.replaceAll("[^a-zA-Z0-9-]", "-");
    if (name.endsWith("-")) {
      name = name + "X";
    }
    return "external-attacher/" + name;
  }

  private static boolean deleted(JsonNode object) {
    JsonNode at = object.path("metadata").path("deletionTimestamp");
    return !at.isMissingNode() && !at.isNull();
  }

  private static boolean hasFinalizer(JsonNode object, String finalizer) {
    for (JsonNode f : object.path("metadata").path("finalizers")) {
      if (f.asText().equals(finalizer)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the attachment is this driver's, for node {@code nodeName}. */
  public static boolean ours(JsonNode attachment, String driver, String nodeName) {
    return driver.equals(attachment.path("spec").path("attacher").asText())
        && nodeName.equals(attachment.path("spec").path("nodeName").asText());
  }

  /** Whether the attachment is to be attached: not deleted and not yet attached. */
  public static boolean toAttach(JsonNode attachment) {
    return !deleted(attachment) && !attachment.path("status").path("attached").asBoolean(false);
  }

  /** Whether the attachment is to be detached: deleted, its finalizer still on it. */
  public static boolean toDetach(JsonNode attachment, String driver) {
    return deleted(attachment) && hasFinalizer(attachment, finalizer(driver));
  }

  /** The node's ID for {@code driver}, from its CSINode's {@code spec.drivers[]}; empty if none. */
  public static Optional<String> nodeId(JsonNode csiNode, String driver) {
    for (JsonNode d : csiNode.path("spec").path("drivers")) {
      if (d.path("name").asText().equals(driver) && !d.path("nodeID").asText("").isEmpty()) {
        return Optional.of(d.path("nodeID").asText());
      }
    }
    return Optional.empty();
  }

  /**
   * ControllerPublishVolume of the PersistentVolume's {@code csi} source to {@code nodeId}: its
   * handle, read-only flag and attributes, and a mount capability of its first access mode.
   */
  public static ControllerPublishVolumeRequest publish(JsonNode pv, String nodeId) {
    JsonNode csi = pv.path("spec").path("csi");
    ControllerPublishVolumeRequest.Builder request =
        ControllerPublishVolumeRequest.newBuilder()
            .setVolumeId(csi.path("volumeHandle").asText())
            .setNodeId(nodeId)
            .setReadonly(csi.path("readOnly").asBoolean(false))
            .setVolumeCapability(
                VolumeCapability.newBuilder()
                    .setMount(
                        VolumeCapability.MountVolume.newBuilder()
                            .setFsType(csi.path("fsType").asText("")))
                    .setAccessMode(
                        VolumeCapability.AccessMode.newBuilder()
                            .setMode(
                                Provisioning.mode(
                                    pv.path("spec").path("accessModes").path(0).asText("")))));
    csi.path("volumeAttributes")
        .fields()
        .forEachRemaining(e -> request.putVolumeContext(e.getKey(), e.getValue().asText()));
    return request.build();
  }

  /** ControllerUnpublishVolume of the PersistentVolume's handle from {@code nodeId}. */
  public static ControllerUnpublishVolumeRequest unpublish(JsonNode pv, String nodeId) {
    return ControllerUnpublishVolumeRequest.newBuilder()
        .setVolumeId(pv.path("spec").path("csi").path("volumeHandle").asText())
        .setNodeId(nodeId)
        .build();
  }

  /** The merge patch that puts the attacher's finalizer on an attachment, at its version. */
  public static Optional<ObjectNode> withFinalizer(JsonNode attachment, String driver) {
    String finalizer = finalizer(driver);
    if (hasFinalizer(attachment, finalizer)) {
      return Optional.empty();
    }
    ObjectNode patch = NODES.objectNode();
    ObjectNode metadata = patch.putObject("metadata");
    metadata.put("resourceVersion", attachment.path("metadata").path("resourceVersion").asText());
    ArrayNode finalizers = metadata.putArray("finalizers");
    attachment.path("metadata").path("finalizers").forEach(finalizers::add);
    finalizers.add(finalizer);
    return Optional.of(patch);
  }

  /** The merge patch that takes the attacher's finalizer off an attachment, at its version. */
  public static ObjectNode withoutFinalizer(JsonNode attachment, String driver) {
    String finalizer = finalizer(driver);
    ObjectNode patch = NODES.objectNode();
    ObjectNode metadata = patch.putObject("metadata");
    metadata.put("resourceVersion", attachment.path("metadata").path("resourceVersion").asText());
    ArrayNode finalizers = metadata.putArray("finalizers");
    for (JsonNode f : attachment.path("metadata").path("finalizers")) {
      if (!f.asText().equals(finalizer)) {
        finalizers.add(f);
      }
    }
    return patch;
  }

  /** The status of an attached volume: attached, the publish context, no error. */
  public static ObjectNode attached(Map<String, String> publishContext) {
    ObjectNode patch = NODES.objectNode();
    ObjectNode status = patch.putObject("status");
    status.put("attached", true);
    if (publishContext.isEmpty()) {
      status.putNull("attachmentMetadata");
    } else {
      ObjectNode metadata = status.putObject("attachmentMetadata");
      publishContext.forEach(metadata::put);
    }
    status.putNull("attachError");
    return patch;
  }

  /** The status of a failed attachment: not attached, the error with its time. */
  public static ObjectNode attachFailed(String message, String time) {
    ObjectNode patch = NODES.objectNode();
    ObjectNode status = patch.putObject("status");
    status.put("attached", false);
    ObjectNode error = status.putObject("attachError");
    error.put("time", time);
    error.put("message", message);
    return patch;
  }

  /** The status of a failed detachment: still attached, the error with its time. */
  public static ObjectNode detachFailed(String message, String time) {
    ObjectNode patch = NODES.objectNode();
    ObjectNode error = patch.putObject("status").putObject("detachError");
    error.put("time", time);
    error.put("message", message);
    return patch;
  }
}
