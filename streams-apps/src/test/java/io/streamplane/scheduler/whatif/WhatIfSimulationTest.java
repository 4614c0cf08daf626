package io.streamplane.scheduler.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.scheduler.framework.ScoringStrategy;
import io.streamplane.scheduler.whatif.WhatIfResult.Placement;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WhatIfSimulationTest {

  private static final SchedulerConfig SPREADING = SchedulerConfig.defaults();
  private static final SchedulerConfig PACKING =
      SPREADING.withScoringStrategy(ScoringStrategy.of(ScoringStrategy.Type.MostAllocated));

  /** 10 nodes of 4 cpu; 20 pods of 500m bound round-robin, as a spreading scheduler does. */
  private static EventLog spreadCluster() {
    EventLog log = new EventLog();
    for (int n = 0; n < 10; n++) {
      log.node("node-" + n, "4", "8Gi");
    }
    for (int p = 0; p < 20; p++) {
      log.pending("web-" + p, "500m", "1Gi").bind("web-" + p, "node-" + (p % 10));
    }
    return log;
  }

  @Test
  void mostAllocatedPacksTheSamePodsOnFewerNodesThanLeastAllocated() {
    WhatIfWindow window = spreadCluster().all();

    WhatIfResult spreading = WhatIfSimulation.run(window, SPREADING);
    WhatIfResult packing = WhatIfSimulation.run(window, PACKING);

    assertThat(spreading.podsInWindow()).isEqualTo(20);
    assertThat(spreading.nodesUsedReal()).isEqualTo(10);
    assertThat(spreading.nodesUsedWhatIf()).isEqualTo(10);
    // 20 x 500m = 10 cpu: three 4-cpu nodes hold them.
    assertThat(packing.nodesUsedWhatIf()).isEqualTo(3);
    assertThat(packing.nodesUsedReal()).isEqualTo(10);
    assertThat(packing.placedDifferently()).isGreaterThanOrEqualTo(20 - 3 * 2);
    assertThat(packing.unschedulableAfter()).isZero();
    assertThat(packing.decisions()).isEqualTo(20);
  }

  @Test
  void theSameWindowAndConfigurationGiveAnEqualResult() {
    // Ten identical nodes: LeastAllocated ties everywhere, broken by the seeded tie-break.
    WhatIfResult first = WhatIfSimulation.run(spreadCluster().all(), SPREADING);
    WhatIfResult second = WhatIfSimulation.run(spreadCluster().all(), SPREADING);

    assertThat(second).isEqualTo(first);
    assertThat(second.toString()).isEqualTo(first.toString());
  }

  @Test
  void aPodTheWhatIfCannotPlaceWaitsUntilADeletionFreesAPlace() {
    EventLog log =
        new EventLog()
            .node("a", "2", "8Gi")
            .node("b", "2", "8Gi")
            // Really packed: small-1 and small-2 on a, big on b. Spreading puts the small pods on
            // a and b, leaving no node with 2 cpu for big.
            .pending("small-1", "1", "1Gi")
            .bind("small-1", "a")
            .pending("small-2", "1", "1Gi")
            .bind("small-2", "a")
            .pending("big", "2", "1Gi")
            .bind("big", "b");
    Instant beforeDelete = log.now().minusSeconds(1);
    log.delete("small-1");
    WhatIfWindow withoutDelete = log.window(EventLog.T0.minusSeconds(1), beforeDelete);

    WhatIfResult stuck = WhatIfSimulation.run(withoutDelete, SPREADING);
    WhatIfResult freed = WhatIfSimulation.run(log.all(), SPREADING);

    Placement big = stuck.placements().get(2);
    assertThat(big.whatIfNode()).isNull();
    assertThat(big.failure()).startsWith("0/2 nodes are available: 2 Insufficient cpu.");
    assertThat(stuck.unschedulableAfter()).isEqualTo(1);
    assertThat(freed.placements().get(2).whatIfNode()).isNotNull();
    assertThat(freed.unschedulableAfter()).isZero();
  }

  @Test
  void deletedAndFinishedPodsReleaseTheirPlaceInBothStates() {
    EventLog log =
        new EventLog()
            .node("only", "1", "4Gi")
            .pending("first", "1", "1Gi")
            .bind("first", "only")
            .delete("first")
            .pending("second", "1", "1Gi")
            .bind("second", "only")
            .succeed("second")
            .pending("third", "1", "1Gi")
            .bind("third", "only");

    WhatIfResult result = WhatIfSimulation.run(log.all(), PACKING);

    assertThat(result.placements()).extracting(Placement::whatIfNode).containsOnly("only");
    assertThat(result.placedDifferently()).isZero();
    assertThat(result.nodes())
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.real().milliCpu()).isEqualTo(1000);
              assertThat(n.whatIf().milliCpu()).isEqualTo(1000);
              assertThat(n.whatIf().pods()).isEqualTo(1);
            });
  }

  @Test
  void podsStillPendingAtTheEndAreUnschedulableBeforeAndTriedOnce() {
    EventLog log =
        new EventLog()
            .node("a", "2", "8Gi")
            .pending("huge", "8", "1Gi")
            .pending("fits", "1", "1Gi");

    WhatIfResult result = WhatIfSimulation.run(log.all(), SPREADING);

    assertThat(result.unschedulableBefore()).isEqualTo(2);
    assertThat(result.pendingAtEnd())
        .extracting(WhatIfResult.Attempt::whatIfNode)
        .containsExactly(null, "a");
    assertThat(result.unschedulableAfter()).isEqualTo(1);
  }

  @Test
  void theStartStateHoldsThePodsBoundBeforeTheWindowAndLaterEventsAreIgnored() {
    EventLog log =
        new EventLog()
            .node("a", "4", "8Gi")
            .node("b", "4", "8Gi")
            .pending("old", "3", "1Gi")
            .bind("old", "a");
    Instant from = log.now().minusSeconds(1);
    log.pending("new", "1", "1Gi").bind("new", "a");
    Instant until = log.now().minusSeconds(1);
    log.pending("later", "1", "1Gi").bind("later", "b");

    WhatIfResult result = WhatIfSimulation.run(log.window(from, until), PACKING);

    // a has 1 cpu left after old: MostAllocated fills it, as really happened.
    assertThat(result.placements())
        .containsExactly(new Placement("pods./default/new", "a", "a", null));
    assertThat(result.nodes().get(0).whatIf().milliCpu()).isEqualTo(4000);
    assertThat(result.nodes().get(1).real().pods()).isZero();
  }

  @Test
  void podsBoundByHandStayWhereTheyWentAndAreNoDecision() {
    EventLog log = new EventLog().node("a", "4", "8Gi").node("b", "4", "8Gi");
    log.boundByHand("pinned", "2", "1Gi", "b");

    WhatIfResult result = WhatIfSimulation.run(log.all(), PACKING);

    assertThat(result.boundWithoutScheduler()).isEqualTo(1);
    assertThat(result.podsInWindow()).isZero();
    assertThat(result.decisions()).isZero();
    assertThat(result.nodes().get(1).whatIf().milliCpu()).isEqualTo(2000);
  }
}
