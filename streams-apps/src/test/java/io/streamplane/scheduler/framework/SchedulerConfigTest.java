package io.streamplane.scheduler.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerConfigTest {

  private static final String HEADER =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

  @Test
  void defaultsAreKubeSchedulersDefaultProfile() {
    SchedulerConfig config = SchedulerConfig.defaults();

    assertThat(config.schedulerName()).isEqualTo("default-scheduler");
    assertThat(config.percentageOfNodesToScore()).isZero();
    assertThat(config.scoreWeights())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "NodeResourcesFit", 1,
                "NodeResourcesBalancedAllocation", 1,
                "NodeAffinity", 2,
                "TaintToleration", 3));
  }

  @Test
  void theExampleFileDisablesOverridesAndResetsWeights() throws IOException {
    SchedulerConfig config = SchedulerConfig.parse(resource("/scheduler-config.yaml"));

    assertThat(config.schedulerName()).isEqualTo("bin-packing-scheduler");
    assertThat(config.percentageOfNodesToScore()).isEqualTo(30);
    // TaintToleration listed without a weight gets 1, as "a weight of zero is not permitted".
    assertThat(config.scoreWeights())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("NodeResourcesFit", 5, "NodeAffinity", 2, "TaintToleration", 1));
  }

  @Test
  void aDocumentWithoutProfilesIsTheDefaultProfile() {
    assertThat(SchedulerConfig.parse(HEADER)).isEqualTo(SchedulerConfig.defaults());
  }

  @Test
  void theProfilePercentageOverridesTheGlobalOne() {
    String yaml =
        HEADER
            + "percentageOfNodesToScore: 30\n"
            + "profiles:\n- schedulerName: s\n  percentageOfNodesToScore: 70\n";

    assertThat(SchedulerConfig.parse(yaml).percentageOfNodesToScore()).isEqualTo(70);
  }

  @Test
  void disablingEverythingThenEnablingOnePlugin() {
    String yaml =
        HEADER
            + "profiles:\n- plugins:\n    score:\n      disabled: [{name: '*'}]\n"
            + "      enabled: [{name: NodeAffinity, weight: 4}]\n";

    SchedulerConfig config = SchedulerConfig.parse(yaml);

    assertThat(config.schedulerName()).isEqualTo("default-scheduler");
    assertThat(config.scoreWeights()).containsExactly(Map.entry("NodeAffinity", 4));
  }

  @Test
  void badDocumentsAreRejectedWithTheReason() {
    assertThatThrownBy(() -> SchedulerConfig.parse("apiVersion: v1\nkind: Pod\n"))
        .hasMessageContaining("apiVersion must be kubescheduler.config.k8s.io/v1, got 'v1'");
    assertThatThrownBy(() -> SchedulerConfig.parse(HEADER + "percentageOfNodesToScore: 101\n"))
        .hasMessageContaining("between 0 and 100");
    assertThatThrownBy(
            () ->
                SchedulerConfig.parse(
                    HEADER + "profiles:\n- plugins: {score: {enabled: [{name: ImageLocality}]}}\n"))
        .hasMessageContaining("'ImageLocality' is not implemented");
    assertThatThrownBy(
            () ->
                SchedulerConfig.parse(
                    HEADER + "profiles:\n- schedulerName: a\n- schedulerName: b\n"))
        .hasMessageContaining("only one scheduler profile");
    assertThatThrownBy(() -> SchedulerConfig.parse("profiles: [unclosed"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not valid YAML");
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = SchedulerConfigTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
