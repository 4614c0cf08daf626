package io.streamplane.scheduler.framework;

import static io.streamplane.scheduler.framework.Fixtures.container;
import static io.streamplane.scheduler.framework.Fixtures.info;
import static io.streamplane.scheduler.framework.Fixtures.node;
import static io.streamplane.scheduler.framework.Fixtures.pod;
import static io.streamplane.scheduler.framework.Fixtures.spec;
import static io.streamplane.scheduler.framework.Fixtures.taint;
import static io.streamplane.scheduler.framework.Fixtures.withTaints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.api.Pod;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SchedulerTest {

  private static final SchedulerConfig DEFAULTS = SchedulerConfig.defaults();

  private static NodeInfo controlPlane() {
    return info(
        withTaints(
            node("cp", "8", "16Gi", "110"),
            taint("node-role.kubernetes.io/control-plane", null, "NoSchedule")));
  }

  @Test
  void failureMessageCountsAndSortsReasonsLikeKubeScheduler() {
    List<NodeInfo> nodes = List.of(controlPlane(), info("w1", "1", "4Gi"), info("w2", "1", "4Gi"));

    ScheduleResult result = Scheduler.schedule(pod("2", "1Gi"), nodes, DEFAULTS, 7);

    assertThat(result.scheduled()).isFalse();
    assertThat(result.nodeName()).isNull();
    assertThat(result.failureMessage())
        .isEqualTo(
            "0/3 nodes are available: 1 node(s) had untolerated taint"
                + " {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3"
                + " nodes are available: 3 Preemption is not helpful for scheduling.");
  }

  @Test
  void nodesThatAreOnlyFullForNowHaveNoPreemptionVictims() {
    NodeInfo full = info("w1", "4", "8Gi").withPod(PodRequests.of(pod("3500m", "7Gi")));

    ScheduleResult result =
        Scheduler.schedule(pod("1", "2Gi"), List.of(controlPlane(), full), DEFAULTS, 1);

    assertThat(result.failureMessage())
        .isEqualTo(
            "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had"
                + " untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/2"
                + " nodes are available: 1 No preemption victims found for incoming pod, 1"
                + " Preemption is not helpful for scheduling.");
  }

  @Test
  void reasonsSortAsCountPrefixedStringsAndPreemptionNeverIsNotEligible() {
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      nodes.add(info("w" + i, "1", "4Gi").withPod(PodRequests.of(pod("1", "0"))));
    }
    nodes.add(info(withTaints(node("t1", "8", "8Gi", "110"), taint("a", "", "NoSchedule"))));
    nodes.add(info(withTaints(node("t2", "8", "8Gi", "110"), taint("a", "", "NoSchedule"))));
    Pod never = pod(spec(container("1", "1Gi")).setPreemptionPolicy("Never").build());

    ScheduleResult result = Scheduler.schedule(never, nodes, DEFAULTS, 3);

    // "10 ..." sorts before "2 ..." because kube-scheduler sorts the formatted strings.
    assertThat(result.failureMessage())
        .isEqualTo(
            "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) had untolerated taint {a:"
                + " }. preemption: not eligible due to preemptionPolicy=Never.");
  }

  @Test
  void noNodesAtAll() {
    assertThat(Scheduler.schedule(pod("1", "1Gi"), List.of(), DEFAULTS, 0).failureMessage())
        .isEqualTo("no nodes available to schedule pods");
  }

  @Test
  void theLessAllocatedNodeWinsWhateverTheSeed() {
    NodeInfo busy = info("busy", "4", "8Gi").withPod(PodRequests.of(pod("2", "4Gi")));
    NodeInfo idle = info("idle", "4", "8Gi");

    for (long seed = 0; seed < 20; seed++) {
      ScheduleResult result =
          Scheduler.schedule(pod("1", "1Gi"), List.of(busy, idle), DEFAULTS, seed);
      assertThat(result.nodeName()).isEqualTo("idle");
      assertThat(result.requests().requests()).isEqualTo(new Resources(1000, 1L << 30, 0, 1));
    }
  }

  @Test
  void balancedAllocationBreaksALeastAllocatedTie() {
    // Both nodes leave the same average free fraction for a 1 cpu / 1Gi pod (LeastAllocated 50),
    // but "balanced" ends at 50% cpu and 50% memory where "skewed" ends at 75% and 25%.
    NodeInfo balanced = info("balanced", "4", "4Gi").withPod(PodRequests.of(pod("1", "1Gi")));
    NodeInfo skewed = info("skewed", "4", "4Gi").withPod(PodRequests.of(pod("2", "0")));

    for (long seed = 0; seed < 20; seed++) {
      assertThat(
              Scheduler.schedule(pod("1", "1Gi"), List.of(skewed, balanced), DEFAULTS, seed)
                  .nodeName())
          .isEqualTo("balanced");
    }
  }

  @Test
  void theSameSeedGivesTheSameDecisionAndTiesSpreadOverSeeds() {
    List<NodeInfo> identical = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      identical.add(info("n" + i, "4", "8Gi"));
    }
    Set<String> chosen = new HashSet<>();

    for (long seed = 0; seed < 200; seed++) {
      String first = Scheduler.schedule(pod("1", "1Gi"), identical, DEFAULTS, seed).nodeName();
      String again = Scheduler.schedule(pod("1", "1Gi"), identical, DEFAULTS, seed).nodeName();
      assertThat(again).isEqualTo(first);
      chosen.add(first);
    }

    assertThat(chosen).hasSize(10);
  }

  @Test
  void filteringStopsAfterThePercentageOfNodesToScore() {
    // 1,000 nodes, one idle and the rest half full: scoring every node always finds the idle one;
    // scoring 10% (100 feasible nodes from a seeded offset) finds it about one time in ten.
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      NodeInfo node = info("n" + i, "4", "8Gi");
      nodes.add(i == 500 ? node : node.withPod(PodRequests.of(pod("2", "4Gi"))));
    }
    SchedulerConfig all = new SchedulerConfig("default-scheduler", 100, DEFAULTS.scoreWeights());
    SchedulerConfig tenth = new SchedulerConfig("default-scheduler", 10, DEFAULTS.scoreWeights());
    int allFound = 0;
    int tenthFound = 0;

    for (long seed = 0; seed < 200; seed++) {
      allFound +=
          "n500".equals(Scheduler.schedule(pod("1", "1Gi"), nodes, all, seed).nodeName()) ? 1 : 0;
      tenthFound +=
          "n500".equals(Scheduler.schedule(pod("1", "1Gi"), nodes, tenth, seed).nodeName()) ? 1 : 0;
    }

    assertThat(allFound).isEqualTo(200);
    assertThat(tenthFound).isBetween(5, 50);
  }

  @Test
  void adaptiveNumberOfNodesToFindFollowsKubernetes() {
    assertThat(DEFAULTS.numFeasibleNodesToFind(50)).isEqualTo(50);
    assertThat(DEFAULTS.numFeasibleNodesToFind(100)).isEqualTo(100);
    assertThat(DEFAULTS.numFeasibleNodesToFind(500)).isEqualTo(230); // 46%
    assertThat(DEFAULTS.numFeasibleNodesToFind(1000)).isEqualTo(420); // 42%
    assertThat(DEFAULTS.numFeasibleNodesToFind(5000)).isEqualTo(500); // 10%
    assertThat(DEFAULTS.numFeasibleNodesToFind(10000)).isEqualTo(500); // 5% floor
    SchedulerConfig one = new SchedulerConfig("default-scheduler", 1, Map.of());
    assertThat(one.numFeasibleNodesToFind(1000)).isEqualTo(100); // never fewer than 100
  }

  @Test
  void aPodForAnotherSchedulerIsRefused() {
    Pod other = pod(spec(container("1", "1Gi")).setSchedulerName("my-scheduler").build());

    assertThatThrownBy(() -> Scheduler.schedule(other, List.of(info("n", "4", "8Gi")), DEFAULTS, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("my-scheduler");
    SchedulerConfig custom = new SchedulerConfig("my-scheduler", 0, Map.of());
    assertThatThrownBy(() -> Scheduler.schedule(Pod.newBuilder().build(), List.of(), custom, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("this is 'my-scheduler'");
  }

  @Test
  void bestEffortPodsSpreadEvenlyWhenEachDecisionSeesThePreviousOnes() {
    Pod bestEffort = pod(spec(container(null, null)).build());
    for (long seed = 0; seed < 20; seed++) {
      List<NodeInfo> nodes =
          new ArrayList<>(
              List.of(info("a", "4", "8Gi"), info("b", "4", "8Gi"), info("c", "4", "8Gi")));
      for (int i = 0; i < 6; i++) {
        ScheduleResult result = Scheduler.schedule(bestEffort, nodes, DEFAULTS, seed * 6 + i);
        int at = List.of("a", "b", "c").indexOf(result.nodeName());
        nodes.set(at, nodes.get(at).withPod(result.requests()));
      }
      assertThat(nodes).extracting(n -> n.requested().pods()).containsExactly(2L, 2L, 2L);
    }
  }

  @Test
  void aNodeOfBestEffortPodsAsTheBinderReportsItIsNotMistakenForAnEmptyOne() {
    PodRequests bestEffort = PodRequests.of(pod(spec(container(null, null)).build()));
    Map<String, Long> allocated = bestEffort.plus(bestEffort).toMap(); // NodeUsage.allocated
    NodeInfo busy =
        NodeInfo.of(node("busy", "4", "8Gi", "110").build(), PodRequests.fromMap(allocated));
    NodeInfo idle = info("idle", "4", "8Gi");

    for (long seed = 0; seed < 20; seed++) {
      ScheduleResult result =
          Scheduler.schedule(
              pod(spec(container(null, null)).build()), List.of(busy, idle), DEFAULTS, seed);
      assertThat(result.nodeName()).isEqualTo("idle");
    }
  }
}
