package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the node writes and waits around its CSI volumes. */
class CsiVolumesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aFinishedNodeExpansionWritesTheCapacityAndDropsTheResizeCondition() throws Exception {
    JsonNode claim =
        JSON.readTree(
            """
            {"status": {"phase": "Bound", "capacity": {"storage": "1Gi"},
              "conditions": [
                {"type": "FileSystemResizePending", "status": "True"},
                {"type": "ModifyingVolume", "status": "True"}]}}
            """);
    JsonNode patch = JSON.readTree(CsiVolumes.resizedStatus(claim, "2Gi"));
    assertThat(patch.at("/status/capacity/storage").asText()).isEqualTo("2Gi");
    assertThat(patch.at("/status/conditions")).hasSize(1);
    assertThat(patch.at("/status/conditions/0/type").asText()).isEqualTo("ModifyingVolume");
  }

  @Test
  void mountsAreRetriedWithTheKubeletsVolumeBackOff() {
    assertThat(PodWorker.volumeBackOff(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(PodWorker.volumeBackOff(2)).isEqualTo(Duration.ofSeconds(1));
    assertThat(PodWorker.volumeBackOff(5)).isEqualTo(Duration.ofSeconds(8));
    assertThat(PodWorker.volumeBackOff(30)).isEqualTo(Duration.ofSeconds(122));
  }
}
