package io.streamplane.gateway.podautoscaler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.gateway.podautoscaler.ReplicaCalculator.CalculationException;
import io.streamplane.gateway.podautoscaler.ReplicaCalculator.PodInfo;
import io.streamplane.gateway.podautoscaler.ReplicaCalculator.PodMetric;
import io.streamplane.gateway.podautoscaler.ReplicaCalculator.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicaCalculatorTest {

  private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
  private static final Instant LONG_AGO = NOW.minus(Duration.ofHours(1));

  private static PodInfo ready(String name, long requestMilli) {
    return new PodInfo(name, "Running", false, LONG_AGO, true, LONG_AGO, requestMilli);
  }

  private static PodMetric used(long milli) {
    return new PodMetric(milli, NOW, Duration.ofSeconds(15));
  }

  @Test
  void replicasAreTheUsageRatioTimesTheReadyPodsRoundedUp() throws Exception {
    // 3 pods requesting 100m, using 90m each: 90% against 50% is a ratio of 1.8, ceil(5.4) = 6.
    List<PodInfo> pods = List.of(ready("a", 100), ready("b", 100), ready("c", 100));
    Map<String, PodMetric> metrics = Map.of("a", used(90), "b", used(90), "c", used(90));
    Result result = ReplicaCalculator.resourceReplicas(3, 50, "cpu", pods, metrics, NOW);
    assertThat(result.replicas()).isEqualTo(6);
    assertThat(result.utilization()).isEqualTo(90);
    assertThat(result.averageValue()).isEqualTo(90);
  }

  @Test
  void withinTheToleranceTheReplicasStay() throws Exception {
    List<PodInfo> pods = List.of(ready("a", 100), ready("b", 100));
    Map<String, PodMetric> metrics = Map.of("a", used(54), "b", used(54));
    assertThat(ReplicaCalculator.resourceReplicas(2, 50, "cpu", pods, metrics, NOW).replicas())
        .isEqualTo(2);
    Map<String, PodMetric> beyond = Map.of("a", used(56), "b", used(56));
    assertThat(ReplicaCalculator.resourceReplicas(2, 50, "cpu", pods, beyond, NOW).replicas())
        .isEqualTo(3);
  }

  @Test
  void onAScaleDownAMissingPodCountsAsUsingItsWholeRequest() throws Exception {
    // a and b use 10% of 100m; c has no figures. Without c: ratio 0.2 -> 1 pod. With c at 100%:
    // (10+10+100)/300 = 40% -> ratio 0.8, ceil(0.8 * 3) = 3: no scale-down past what c may use.
    List<PodInfo> pods = List.of(ready("a", 100), ready("b", 100), ready("c", 100));
    Map<String, PodMetric> metrics = Map.of("a", used(10), "b", used(10));
    Result result = ReplicaCalculator.resourceReplicas(3, 50, "cpu", pods, metrics, NOW);
    assertThat(result.replicas()).isEqualTo(3);
    assertThat(result.utilization()).isEqualTo(10);
  }

  @Test
  void onAScaleUpUnreadyPodsCountAsUsingNothing() throws Exception {
    // a uses 100% (ratio 2); b is Pending. Counting b at 0: 50% -> ratio 1 -> within tolerance.
    PodInfo pending = new PodInfo("b", "Pending", false, null, null, null, 100);
    Map<String, PodMetric> metrics = new HashMap<>(Map.of("a", used(100)));
    Result result =
        ReplicaCalculator.resourceReplicas(
            2, 50, "cpu", List.of(ready("a", 100), pending), metrics, NOW);
    assertThat(result.replicas()).isEqualTo(2);
  }

  @Test
  void aCpuFigureFromBeforeAYoungPodWasReadyDoesNotCount() throws Exception {
    // b started a minute ago and became Ready 5 s ago: its figure (taken now, over 15 s) predates
    // its readiness, so b is unready; a alone uses 100% of 100m against 50%.
    PodInfo young =
        new PodInfo("b", "Running", false, NOW.minusSeconds(60), true, NOW.minusSeconds(5), 100);
    Map<String, PodMetric> metrics = Map.of("a", used(100), "b", used(100));
    Result result =
        ReplicaCalculator.resourceReplicas(
            2, 50, "cpu", List.of(ready("a", 100), young), metrics, NOW);
    assertThat(result.utilization()).isEqualTo(100);
    assertThat(result.replicas()).isEqualTo(2); // b at 0: 50% -> within tolerance
  }

  @Test
  void deletedAndFailedPodsAreIgnoredAndNoFiguresIsAnError() {
    PodInfo deleting = new PodInfo("a", "Running", true, LONG_AGO, true, LONG_AGO, 100);
    PodInfo failed = new PodInfo("b", "Failed", false, LONG_AGO, false, LONG_AGO, 100);
    assertThatThrownBy(
            () ->
                ReplicaCalculator.resourceReplicas(
                    2, 50, "cpu", List.of(deleting, failed), Map.of("a", used(100)), NOW))
        .isInstanceOf(CalculationException.class)
        .hasMessage("did not receive metrics for targeted pods (pods might be unready)");
    assertThatThrownBy(
            () ->
                ReplicaCalculator.resourceReplicas(
                    2, 50, "cpu", List.of(ready("a", 1)), Map.of(), NOW))
        .hasMessage(
            "unable to get metrics for resource cpu: no metrics returned from resource metrics API");
  }
}
