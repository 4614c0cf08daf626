package io.streamplane.scheduler.framework;

import static io.streamplane.scheduler.framework.Fixtures.container;
import static io.streamplane.scheduler.framework.Fixtures.info;
import static io.streamplane.scheduler.framework.Fixtures.node;
import static io.streamplane.scheduler.framework.Fixtures.pod;
import static io.streamplane.scheduler.framework.Fixtures.req;
import static io.streamplane.scheduler.framework.Fixtures.spec;
import static io.streamplane.scheduler.framework.Fixtures.taint;
import static io.streamplane.scheduler.framework.Fixtures.withLabels;
import static io.streamplane.scheduler.framework.Fixtures.withTaints;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Affinity;
import io.streamplane.api.NodeAffinity;
import io.streamplane.api.NodeSelectorTerm;
import io.streamplane.api.Pod;
import io.streamplane.api.PreferredSchedulingTerm;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScoresTest {

  private static long[] scores(Score score, Pod pod, NodeInfo... nodes) {
    long[] raw = new long[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      raw[i] = score.score(pod, PodRequests.of(pod), nodes[i]);
    }
    score.normalize(raw);
    return raw;
  }

  @Test
  void leastAllocatedPrefersTheNodeWithMoreFreeCpuAndMemory() {
    NodeInfo empty = info("empty", "4", "8Gi");
    NodeInfo busy = empty.withPod(PodRequests.of(pod("2", "0")));

    // empty: cpu (4-1)/4 = 75, memory (8-2)/8 = 75; busy: cpu 25, memory 75 -> 50.
    assertThat(scores(new NodeResourcesFitPlugin(), pod("1", "2Gi"), empty, busy))
        .containsExactly(75, 50);
  }

  @Test
  void leastAllocatedCountsPodsWithoutRequestsAtTheDefaults() {
    NodeInfo empty = info("empty", "1", "1000Mi");
    NodeInfo withBestEffortPods = empty;
    for (int i = 0; i < 4; i++) {
      withBestEffortPods = withBestEffortPods.withPod(PodRequests.of(pod(null, null)));
    }

    // Best-effort pod on empty: cpu 100m of 1 -> 90, memory 200Mi of 1000Mi -> 80; average 85.
    // Four more such pods: cpu 500m -> 50, memory 1000Mi -> 0; average 25.
    assertThat(scores(new NodeResourcesFitPlugin(), pod(null, null), empty, withBestEffortPods))
        .containsExactly(85, 25);
  }

  @Test
  void balancedAllocationPrefersEqualCpuAndMemoryFractions() {
    NodeInfo node = info("n", "4", "8Gi");

    // 1 cpu / 2Gi: fractions 0.25 and 0.25 -> 100. 2 cpu / 1Gi: 0.5 and 0.125, std 0.1875 -> 81.
    assertThat(scores(new BalancedAllocationPlugin(), pod("1", "2Gi"), node)).containsExactly(100);
    assertThat(scores(new BalancedAllocationPlugin(), pod("2", "1Gi"), node)).containsExactly(81);
  }

  @Test
  void preferredNodeAffinityAddsMatchingWeightsAndNormalizesToTheBest() {
    Pod pod =
        pod(
            spec(container("1", "1Gi"))
                .setAffinity(
                    Affinity.newBuilder()
                        .setNodeAffinity(
                            NodeAffinity.newBuilder()
                                .setPreferredDuringSchedulingIgnoredDuringExecution(
                                    List.of(
                                        preferred(10, req("zone", "In", "a")),
                                        preferred(5, req("disk", "In", "ssd"))))
                                .build())
                        .build())
                .build());
    NodeInfo both =
        info(withLabels(node("both", "4", "8Gi", "110"), Map.of("zone", "a", "disk", "ssd")));
    NodeInfo ssd = info(withLabels(node("ssd", "4", "8Gi", "110"), Map.of("disk", "ssd")));
    NodeInfo none = info("none", "4", "8Gi");

    assertThat(scores(new NodeAffinityPlugin(), pod, both, ssd, none)).containsExactly(100, 33, 0);
  }

  @Test
  void preferNoScheduleTaintsLowerTheScoreInReverse() {
    NodeInfo clean = info("clean", "4", "8Gi");
    NodeInfo one =
        info(withTaints(node("one", "4", "8Gi", "110"), taint("a", "", "PreferNoSchedule")));
    NodeInfo two =
        info(
            withTaints(
                node("two", "4", "8Gi", "110"),
                taint("a", "", "PreferNoSchedule"),
                taint("b", "", "PreferNoSchedule")));

    assertThat(scores(new TaintTolerationPlugin(), pod("1", "1Gi"), clean, one, two))
        .containsExactly(100, 50, 0);
  }

  private static PreferredSchedulingTerm preferred(
      int weight, io.streamplane.api.NodeSelectorRequirement requirement) {
    return PreferredSchedulingTerm.newBuilder()
        .setWeight(weight)
        .setPreference(
            NodeSelectorTerm.newBuilder().setMatchExpressions(List.of(requirement)).build())
        .build();
  }
}
