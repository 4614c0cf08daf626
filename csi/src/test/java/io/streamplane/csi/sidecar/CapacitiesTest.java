package io.streamplane.csi.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Int64Value;
import io.streamplane.csi.v1.GetCapacityRequest;
import io.streamplane.csi.v1.GetCapacityResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** external-provisioner's CSIStorageCapacity objects, from a class and GetCapacity's answer. */
class CapacitiesTest {

  private static final String DRIVER = "hostpath.csi.streamplane.io";
  private static final String KEY = "topology.hostpath.csi.streamplane.io/node";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void getCapacityAsksForTheNodesSegmentWithTheClassParameters() throws Exception {
    JsonNode storageClass =
        JSON.readTree(
            "{\"metadata\":{\"name\":\"fast\"},\"provisioner\":\""
                + DRIVER
                + "\",\"parameters\":{\"kind\":\"ssd\",\"csi.storage.k8s.io/fstype\":\"ext4\"}}");
    GetCapacityRequest request = Capacities.request(storageClass, KEY, "node-0");
    assertThat(request.getAccessibleTopology().getSegmentsMap())
        .containsExactly(Map.entry(KEY, "node-0"));
    assertThat(request.getParametersMap()).containsExactly(Map.entry("kind", "ssd"));
  }

  @Test
  void theCapacityIsPublishedForTheSegmentAndRewrittenOnlyWhenItChanges() {
    GetCapacityResponse answer =
        GetCapacityResponse.newBuilder()
            .setAvailableCapacity(1L << 30)
            .setMaximumVolumeSize(Int64Value.of(1L << 30))
            .build();
    var wanted = Capacities.capacity(DRIVER, KEY, "node-0", "fast", answer);
    assertThat(wanted.toString())
        .isEqualTo(
            "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSIStorageCapacity\","
                + "\"metadata\":{\"name\":\""
                + Capacities.name(DRIVER, "node-0", "fast")
                + "\",\"namespace\":\"kube-system\",\"labels\":{"
                + "\"csi.storage.k8s.io/drivername\":\"hostpath.csi.streamplane.io\","
                + "\"csi.storage.k8s.io/managed-by\":\"external-provisioner-node-0\"}},"
                + "\"nodeTopology\":{\"matchLabels\":{\""
                + KEY
                + "\":\"node-0\"}},\"storageClassName\":\"fast\",\"capacity\":\"1Gi\","
                + "\"maximumVolumeSize\":\"1Gi\"}");
    assertThat(Capacities.name(DRIVER, "node-0", "fast"))
        .matches("csisc-[0-9a-f]{10}")
        .isNotEqualTo(Capacities.name(DRIVER, "node-1", "fast"));
    assertThat(Capacities.ours(wanted, DRIVER, "node-0")).isTrue();
    assertThat(Capacities.ours(wanted, DRIVER, "node-1")).isFalse();

    var stored = wanted.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) stored.path("metadata"))
        .put("resourceVersion", "9");
    assertThat(Capacities.differs(stored, wanted)).isFalse();
    var less =
        Capacities.capacity(
            DRIVER,
            KEY,
            "node-0",
            "fast",
            answer.toBuilder().setAvailableCapacity(1L << 29).build());
    assertThat(Capacities.differs(stored, less)).isTrue();
    assertThat(Capacities.updated(stored, less).path("metadata").path("resourceVersion").asText())
        .isEqualTo("9");
    assertThat(Capacities.updated(stored, less).path("capacity").asText()).isEqualTo("512Mi");
  }
}
