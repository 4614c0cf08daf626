package io.streamplane.csi.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.csi.v1.ControllerPublishVolumeRequest;
import io.streamplane.csi.v1.VolumeCapability;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** external-attacher's decisions over VolumeAttachments, CSINodes and volumes. */
class AttachingTest {

  private static final String DRIVER = "attach.csi.streamplane.io";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  private static JsonNode attachment(String metadata, String status) throws Exception {
    return json(
        "{'metadata':{'name':'csi-1','resourceVersion':'4'"
            + metadata
            + "},'spec':{'attacher':'"
            + DRIVER
            + "','nodeName':'node-0','source':{'persistentVolumeName':'pv1'}},'status':{"
            + status
            + "}}");
  }

  @Test
  void theFinalizerIsTheSanitizedDriverName() {
    assertThat(Attaching.finalizer("hostpath.csi.streamplane.io"))
        .isEqualTo("external-attacher/hostpath-csi-streamplane-io");
    assertThat(Attaching.finalizer("a/b.")).isEqualTo("external-attacher/a-b-X");
  }

  @Test
  void anAttachmentIsAttachedUntilDeletedThenDetachedWhileItHasTheFinalizer() throws Exception {
    JsonNode fresh = attachment("", "");
    assertThat(Attaching.ours(fresh, DRIVER, "node-0")).isTrue();
    assertThat(Attaching.ours(fresh, DRIVER, "node-1")).isFalse();
    assertThat(Attaching.ours(fresh, "other.csi", "node-0")).isFalse();
    assertThat(Attaching.toAttach(fresh)).isTrue();
    assertThat(Attaching.toDetach(fresh, DRIVER)).isFalse();
    assertThat(Attaching.withFinalizer(fresh, DRIVER).orElseThrow().toString())
        .isEqualTo(
            "{\"metadata\":{\"resourceVersion\":\"4\","
                + "\"finalizers\":[\"external-attacher/attach-csi-streamplane-io\"]}}");

    String withFinalizer = ",'finalizers':['other','external-attacher/attach-csi-streamplane-io']";
    JsonNode attached = attachment(withFinalizer, "'attached':true");
    assertThat(Attaching.withFinalizer(attached, DRIVER)).isEmpty();
    assertThat(Attaching.toAttach(attached)).isFalse();
    assertThat(Attaching.toDetach(attached, DRIVER)).isFalse();

    JsonNode deleted =
        attachment(
            withFinalizer + ",'deletionTimestamp':'2026-01-01T00:00:00Z'", "'attached':true");
    assertThat(Attaching.toAttach(deleted)).isFalse();
    assertThat(Attaching.toDetach(deleted, DRIVER)).isTrue();
    assertThat(Attaching.withoutFinalizer(deleted, DRIVER).toString())
        .isEqualTo("{\"metadata\":{\"resourceVersion\":\"4\",\"finalizers\":[\"other\"]}}");
    JsonNode released = attachment(",'deletionTimestamp':'2026-01-01T00:00:00Z'", "");
    assertThat(Attaching.toDetach(released, DRIVER)).isFalse();
  }

  @Test
  void publishingSendsTheVolumesHandleToTheNodesCsiId() throws Exception {
    JsonNode csiNode =
        json(
            "{'spec':{'drivers':[{'name':'other','nodeID':'x'},{'name':'"
                + DRIVER
                + "','nodeID':'host-0'}]}}");
    assertThat(Attaching.nodeId(csiNode, DRIVER)).contains("host-0");
    assertThat(Attaching.nodeId(csiNode, "missing")).isEmpty();
    JsonNode pv =
        json(
            "{'metadata':{'name':'pv1'},'spec':{'accessModes':['ReadOnlyMany'],'csi':{'driver':'"
                + DRIVER
                + "','volumeHandle':'h-1','readOnly':true,'volumeAttributes':{'a':'b'}}}}");
    ControllerPublishVolumeRequest request = Attaching.publish(pv, "host-0");
    assertThat(request.getVolumeId()).isEqualTo("h-1");
    assertThat(request.getNodeId()).isEqualTo("host-0");
    assertThat(request.getReadonly()).isTrue();
    assertThat(request.getVolumeContextMap()).containsExactly(Map.entry("a", "b"));
    assertThat(request.getVolumeCapability().getAccessMode().getMode())
        .isEqualTo(VolumeCapability.AccessMode.Mode.MULTI_NODE_READER_ONLY);
    assertThat(Attaching.unpublish(pv, "host-0").getVolumeId()).isEqualTo("h-1");
  }

  @Test
  void theStatusSaysAttachedWithItsMetadataOrTheError() {
    assertThat(Attaching.attached(Map.of("attachedTo", "node-0")).toString())
        .isEqualTo(
            "{\"status\":{\"attached\":true,\"attachmentMetadata\":{\"attachedTo\":\"node-0\"},"
                + "\"attachError\":null}}");
    assertThat(
            Attaching.attachFailed("rpc error: code = Internal desc = x", "2026-01-01T00:00:00Z")
                .toString())
        .isEqualTo(
            "{\"status\":{\"attached\":false,\"attachError\":{\"time\":\"2026-01-01T00:00:00Z\","
                + "\"message\":\"rpc error: code = Internal desc = x\"}}}");
  }
}
