package io.streamplane.scheduler.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
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

  @Test
  void nodeResourcesFitArgsChooseTheScoringStrategy() {
    String yaml =
        HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n"
            + "    args: {resources: [{name: cpu, weight: 1}]}\n"
            + "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
            + "        type: MostAllocated\n"
            + "        resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}]\n";

    assertThat(SchedulerConfig.parse(yaml).scoringStrategy())
        .isEqualTo(
            new ScoringStrategy(
                ScoringStrategy.Type.MostAllocated,
                List.of(
                    new ScoringStrategy.ResourceWeight("cpu", 2),
                    new ScoringStrategy.ResourceWeight("memory", 1)),
                List.of()));
  }

  @Test
  void requestedToCapacityRatioReadsItsShapeAndDefaultsItsResources() {
    String yaml =
        HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
            + "      scoringStrategy:\n        type: RequestedToCapacityRatio\n"
            + "        requestedToCapacityRatio:\n"
            + "          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]\n";

    ScoringStrategy strategy = SchedulerConfig.parse(yaml).scoringStrategy();

    assertThat(strategy.type()).isEqualTo(ScoringStrategy.Type.RequestedToCapacityRatio);
    assertThat(strategy.resources())
        .containsExactly(
            new ScoringStrategy.ResourceWeight("cpu", 1),
            new ScoringStrategy.ResourceWeight("memory", 1));
    assertThat(strategy.shape())
        .containsExactly(
            new ScoringStrategy.ShapePoint(0, 0), new ScoringStrategy.ShapePoint(100, 10));
  }

  @Test
  void withoutPluginConfigNodeResourcesFitIsLeastAllocated() {
    assertThat(SchedulerConfig.parse(HEADER + "profiles:\n- schedulerName: s\n").scoringStrategy())
        .isEqualTo(ScoringStrategy.LEAST_ALLOCATED);
    String emptyType =
        HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
            + "    args: {scoringStrategy: {resources: [{name: memory, weight: 1}]}}\n";
    assertThat(SchedulerConfig.parse(emptyType).scoringStrategy().type())
        .isEqualTo(ScoringStrategy.Type.LeastAllocated);
  }

  @Test
  void badScoringStrategiesAreRejected() {
    String prefix =
        HEADER
            + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n"
            + "    args: {scoringStrategy: ";
    assertThatThrownBy(() -> SchedulerConfig.parse(prefix + "{type: Packed}}\n"))
        .hasMessageContaining("'Packed' is not supported");
    assertThatThrownBy(
            () ->
                SchedulerConfig.parse(
                    prefix + "{type: MostAllocated, resources: [{name: cpu, weight: 101}]}}\n"))
        .hasMessageContaining("not in valid range [1, 100]");
    assertThatThrownBy(() -> SchedulerConfig.parse(prefix + "{type: RequestedToCapacityRatio}}\n"))
        .hasMessageContaining("at least one point must be specified");
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = SchedulerConfigTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
