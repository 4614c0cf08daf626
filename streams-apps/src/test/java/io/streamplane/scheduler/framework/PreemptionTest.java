package io.streamplane.scheduler.framework;

import static io.streamplane.scheduler.framework.Fixtures.container;
import static io.streamplane.scheduler.framework.Fixtures.node;
import static io.streamplane.scheduler.framework.Fixtures.pod;
import static io.streamplane.scheduler.framework.Fixtures.spec;
import static io.streamplane.scheduler.framework.Fixtures.taint;
import static io.streamplane.scheduler.framework.Fixtures.withTaints;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.LabelSelector;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodDisruptionBudgetSpec;
import io.streamplane.api.PodDisruptionBudgetStatus;
import io.streamplane.api.PodStatus;
import io.streamplane.log.PlacedPod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PreemptionTest {

  private static final SchedulerConfig DEFAULTS = SchedulerConfig.defaults();

  /** Nodes of 4 CPUs and the pods placed on them; the view's requests are the pods' sums. */
  private final Map<String, List<PlacedPod>> placed = new HashMap<>();

  private final List<NodeInfo> nodes = new ArrayList<>();

  private void place(String name, String cpu, PlacedPod... pods) {
    NodeInfo info = NodeInfo.of(node(name, cpu, "64Gi", "110").build());
    for (PlacedPod p : pods) {
      info = info.withPod(PodRequests.fromMap(p.getRequests()));
    }
    nodes.add(info);
    placed.put(name, List.of(pods));
  }

  private static PlacedPod placed(String name, int priority, String cpu, long startTime) {
    return placed(name, priority, cpu, startTime, Map.of("app", name.replaceAll("-.*", "")));
  }

  private static PlacedPod placed(
      String name, int priority, String cpu, long startTime, Map<String, String> labels) {
    return PlacedPod.newBuilder()
        .setKey("pods//default/" + name)
        .setUid("uid-" + name)
        .setNamespace("default")
        .setName(name)
        .setPriority(priority)
        .setLabels(labels)
        .setStartTime(startTime)
        .setRequests(PodRequests.of(pod(cpu, "1Gi")).toMap())
        .build();
  }

  private static Pod preemptor(int priority, String cpu) {
    return pod(spec(container(cpu, "1Gi")).setPriority(priority).build());
  }

  private static PodDisruptionBudget budget(String app, int disruptionsAllowed) {
    return PodDisruptionBudget.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(app).setNamespace("default").build())
        .setSpec(
            PodDisruptionBudgetSpec.newBuilder()
                .setSelector(LabelSelector.newBuilder().setMatchLabels(Map.of("app", app)).build())
                .build())
        .setStatus(
            PodDisruptionBudgetStatus.newBuilder()
                .setDisruptionsAllowed(disruptionsAllowed)
                .setCurrentHealthy(0)
                .setDesiredHealthy(0)
                .setExpectedPods(0)
                .build())
        .build();
  }

  private ScheduleResult schedule(Pod pod, List<PodDisruptionBudget> budgets) {
    return Scheduler.schedule(pod, nodes, placed, budgets, DEFAULTS, 3, VolumeBinding.none());
  }

  private static List<String> victims(ScheduleResult result) {
    return result.preemption().victims().stream().map(PlacedPod::getName).toList();
  }

  @Test
  void theFewestLowestPriorityVictimsThatMakeRoomArePreempted() {
    place(
        "n1",
        "4",
        placed("low-a", 10, "1", 1),
        placed("low-b", 10, "1", 2),
        placed("mid", 100, "1", 3),
        placed("peer", 1000, "1", 4));

    ScheduleResult result = schedule(preemptor(1000, "2"), List.of());

    assertThat(result.scheduled()).isFalse();
    assertThat(result.preemption().nodeName()).isEqualTo("n1");
    // mid, the most important of the lower ones, is given back first and still leaves room; the
    // two of priority 10 must go.
    assertThat(victims(result)).containsExactly("low-a", "low-b");
    assertThat(result.failureMessage()).isEqualTo("0/1 nodes are available: 1 Insufficient cpu.");
  }

  @Test
  void oneBigLowPodRatherThanTwoSmallerOnesOfHigherPriority() {
    place(
        "n1", "4", placed("big", 10, "2", 1), placed("s-1", 20, "1", 1), placed("s-2", 20, "1", 2));

    assertThat(victims(schedule(preemptor(1000, "2"), List.of()))).containsExactly("big");
  }

  @Test
  void podsOfEqualOrHigherPriorityAreNeverVictims() {
    place("n1", "4", placed("peer-a", 500, "2", 1), placed("peer-b", 600, "2", 2));

    ScheduleResult result = schedule(preemptor(500, "1"), List.of());

    assertThat(result.preemption()).isNull();
    assertThat(result.failureMessage())
        .isEqualTo(
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1"
                + " No preemption victims found for incoming pod.");
  }

  @Test
  void aNodeWhereEvenAllLowerPodsGoneIsNotEnoughIsNoCandidate() {
    place("n1", "4", placed("low", 0, "1", 1), placed("high", 2000, "3", 1));
    nodes.add(
        NodeInfo.of(
            withTaints(
                node("tainted", "8", "64Gi", "110"), taint("dedicated", "web", "NoSchedule"))));

    ScheduleResult result = schedule(preemptor(1000, "2"), List.of());

    assertThat(result.preemption()).isNull();
    assertThat(result.failureMessage())
        .isEqualTo(
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint"
                + " {dedicated: web}. preemption: 0/2 nodes are available: 1 Insufficient cpu, 1"
                + " Preemption is not helpful for scheduling.");
  }

  @Test
  void aPodWhosePolicyIsNeverDoesNotPreempt() {
    place("n1", "4", placed("low", 0, "4", 1));
    Pod polite =
        pod(spec(container("1", "1Gi")).setPriority(1000).setPreemptionPolicy("Never").build());

    ScheduleResult result = schedule(polite, List.of());

    assertThat(result.preemption()).isNull();
    assertThat(result.failureMessage())
        .endsWith("preemption: not eligible due to preemptionPolicy=Never.");
  }

  @Test
  void aNominatedPodWaitsForTheVictimsStillTerminatingOnItsNode() {
    PlacedPod going = PlacedPod.newBuilder(placed("low", 0, "4", 1)).setTerminating(true).build();
    place("n1", "4", going);
    Pod nominated = preemptor(1000, "1");
    nominated.setStatus(PodStatus.newBuilder().setNominatedNodeName("n1").build());

    ScheduleResult result = schedule(nominated, List.of());

    assertThat(result.preemption()).isNull();
    assertThat(result.failureMessage())
        .endsWith("preemption: not eligible due to a terminating pod on the nominated node.");
  }

  @Test
  void victimsProtectedByABudgetAreKeptWhenOthersWillDo() {
    // Either pod frees enough; web's budget allows no disruption, batch has none.
    place("n1", "4", placed("web-1", 10, "2", 1), placed("batch-1", 10, "2", 2));

    ScheduleResult result = schedule(preemptor(1000, "2"), List.of(budget("web", 0)));

    assertThat(victims(result)).containsExactly("batch-1");
    assertThat(result.preemption().pdbViolations()).isZero();
  }

  @Test
  void aBudgetIsBrokenOnlyWhenNothingElseMakesRoom() {
    place("n1", "4", placed("web-1", 10, "2", 1), placed("web-2", 10, "2", 2));

    ScheduleResult result = schedule(preemptor(1000, "4"), List.of(budget("web", 1)));

    assertThat(victims(result)).containsExactly("web-1", "web-2");
    assertThat(result.preemption().pdbViolations()).isEqualTo(1);
  }

  @Test
  void theNodeIsChosenByViolationsThenHighestVictimThenSumThenCountThenLatestStart() {
    // a: breaks a budget; b: a victim of priority 50; c: two victims of 10 (sum 20); d: one of 10
    // started at 5; e: one of 10 started at 9 — the latest start wins among d and e.
    place("a", "2", placed("web-1", 1, "2", 1));
    place("b", "2", placed("mid-1", 50, "2", 1));
    place("c", "2", placed("two-1", 10, "1", 1), placed("two-2", 10, "1", 1));
    place("d", "2", placed("one-d", 10, "2", 5));
    place("e", "2", placed("one-e", 10, "2", 9));
    List<PodDisruptionBudget> budgets = List.of(budget("web", 0));

    assertThat(schedule(preemptor(1000, "2"), budgets).preemption().nodeName()).isEqualTo("e");
    nodes.removeIf(n -> n.name().equals("e"));
    assertThat(schedule(preemptor(1000, "2"), budgets).preemption().nodeName()).isEqualTo("d");
    nodes.removeIf(n -> n.name().equals("d"));
    assertThat(schedule(preemptor(1000, "2"), budgets).preemption().nodeName()).isEqualTo("c");
    nodes.removeIf(n -> n.name().equals("c"));
    assertThat(schedule(preemptor(1000, "2"), budgets).preemption().nodeName()).isEqualTo("b");
    nodes.removeIf(n -> n.name().equals("b"));
    assertThat(schedule(preemptor(1000, "2"), budgets).preemption().nodeName()).isEqualTo("a");
  }

  @Test
  void theChoiceIsTheSameWhateverTheSeed() {
    place("x", "2", placed("x-1", 10, "2", 1));
    place("y", "2", placed("y-1", 5, "2", 1));
    for (long seed = 0; seed < 20; seed++) {
      assertThat(
              Scheduler.schedule(
                      preemptor(1000, "2"),
                      nodes,
                      placed,
                      List.of(),
                      DEFAULTS,
                      seed,
                      VolumeBinding.none())
                  .preemption()
                  .nodeName())
          .isEqualTo("y");
    }
  }
}
