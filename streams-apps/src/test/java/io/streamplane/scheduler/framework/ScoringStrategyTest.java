package io.streamplane.scheduler.framework;

import static io.streamplane.scheduler.framework.Fixtures.info;
import static io.streamplane.scheduler.framework.Fixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.api.Pod;
import io.streamplane.scheduler.framework.ScoringStrategy.ResourceWeight;
import io.streamplane.scheduler.framework.ScoringStrategy.ShapePoint;
import io.streamplane.scheduler.framework.ScoringStrategy.Type;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScoringStrategyTest {

  private static final NodeInfo EMPTY = info("empty", "4", "8Gi");
  private static final NodeInfo BUSY =
      info("busy", "4", "8Gi").withPod(PodRequests.of(pod("2", "0")));

  private static long[] scores(ScoringStrategy strategy, Pod pod, NodeInfo... nodes) {
    long[] scores = new long[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      scores[i] = new NodeResourcesFitPlugin(strategy).score(pod, PodRequests.of(pod), nodes[i]);
    }
    return scores;
  }

  @Test
  void mostAllocatedPrefersTheNodeWithLessLeftOver() {
    // empty: cpu 1/4 -> 25, memory 2/8 -> 25; busy: cpu 3/4 -> 75, memory 25 -> 50.
    assertThat(scores(ScoringStrategy.of(Type.MostAllocated), pod("1", "2Gi"), EMPTY, BUSY))
        .containsExactly(25, 50);
  }

  @Test
  void mostAllocatedCapsNonZeroRequestsAboveAllocatableAtFull() {
    NodeInfo small = info("small", "100m", "100Mi");

    // Best-effort: 100m of 100m -> 100; 200Mi of 100Mi counts as 100Mi -> 100.
    assertThat(scores(ScoringStrategy.of(Type.MostAllocated), pod(null, null), small))
        .containsExactly(100);
  }

  @Test
  void leastAllocatedWeighsResourcesAndRoundsDown() {
    ScoringStrategy cpuHeavy =
        new ScoringStrategy(
            Type.LeastAllocated,
            List.of(new ResourceWeight("cpu", 3), new ResourceWeight("memory", 1)),
            List.of());

    // busy: cpu 25 * 3 + memory 75 * 1 = 150, / 4 = 37.5 -> 37.
    assertThat(scores(cpuHeavy, pod("1", "2Gi"), EMPTY, BUSY)).containsExactly(75, 37);
    assertThat(scores(ScoringStrategy.LEAST_ALLOCATED, pod("1", "2Gi"), EMPTY, BUSY))
        .containsExactly(75, 50);
  }

  @Test
  void requestedToCapacityRatioFollowsTheShapeAndLeavesZeroScoresOut() {
    ScoringStrategy packing =
        new ScoringStrategy(
            Type.RequestedToCapacityRatio,
            List.of(),
            List.of(new ShapePoint(0, 0), new ShapePoint(100, 10)));
    ScoringStrategy spreading =
        new ScoringStrategy(
            Type.RequestedToCapacityRatio,
            List.of(),
            List.of(new ShapePoint(0, 10), new ShapePoint(100, 0)));

    assertThat(scores(packing, pod("1", "2Gi"), EMPTY, BUSY)).containsExactly(25, 50);
    assertThat(scores(spreading, pod("1", "2Gi"), EMPTY, BUSY)).containsExactly(75, 50);
    // cpu explicitly 0: its score 0 is left out of the average, memory 25 remains.
    assertThat(scores(packing, pod("0", "2Gi"), EMPTY)).containsExactly(25);
  }

  @Test
  void requestedToCapacityRatioInterpolatesBetweenPointsAndRounds() {
    ScoringStrategy steps =
        new ScoringStrategy(
            Type.RequestedToCapacityRatio,
            List.of(new ResourceWeight("cpu", 1), new ResourceWeight("memory", 2)),
            List.of(new ShapePoint(20, 2), new ShapePoint(60, 10)));

    // cpu 1/4 = 25 %: 20 + (100 - 20) * 5 / 40 = 30; memory 2/8 = 25 % -> 30 as well.
    // cpu 3/4 = 75 % (past the last point) -> 100; (100 * 1 + 30 * 2) / 3 = 53.3 -> 53.
    assertThat(scores(steps, pod("1", "2Gi"), EMPTY, BUSY)).containsExactly(30, 53);
  }

  @Test
  void theSchedulerHonoursTheProfilesStrategy() {
    SchedulerConfig spreading =
        new SchedulerConfig("default-scheduler", 100, Map.of("NodeResourcesFit", 1));
    SchedulerConfig packing = spreading.withScoringStrategy(ScoringStrategy.of(Type.MostAllocated));

    for (long seed = 0; seed < 20; seed++) {
      List<NodeInfo> nodes = List.of(EMPTY, BUSY);
      assertThat(Scheduler.schedule(pod("1", "1Gi"), nodes, packing, seed).nodeName())
          .isEqualTo("busy");
      assertThat(Scheduler.schedule(pod("1", "1Gi"), nodes, spreading, seed).nodeName())
          .isEqualTo("empty");
    }
  }

  @Test
  void invalidStrategiesAreRejectedWithKubernetesWords() {
    assertThatThrownBy(() -> new ResourceWeight("cpu", 0))
        .hasMessageContaining("not in valid range [1, 100]");
    assertThatThrownBy(() -> new ResourceWeight("nvidia.com/gpu", 1))
        .hasMessageContaining("'nvidia.com/gpu' is not accounted for");
    assertThatThrownBy(
            () -> new ScoringStrategy(Type.RequestedToCapacityRatio, List.of(), List.of()))
        .hasMessageContaining("at least one point");
    assertThatThrownBy(
            () ->
                new ScoringStrategy(
                    Type.RequestedToCapacityRatio,
                    List.of(),
                    List.of(new ShapePoint(50, 1), new ShapePoint(50, 2))))
        .hasMessageContaining("sorted in increasing order");
    assertThatThrownBy(
            () ->
                new ScoringStrategy(
                    Type.RequestedToCapacityRatio, List.of(), List.of(new ShapePoint(50, 11))))
        .hasMessageContaining("score not in valid range [0, 10]");
    assertThatThrownBy(() -> ScoringStrategy.type("Balanced"))
        .hasMessageContaining("'Balanced' is not supported");
  }
}
