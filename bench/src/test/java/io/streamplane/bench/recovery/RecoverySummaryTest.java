package io.streamplane.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.report.Target;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoverySummaryTest {

  @Test
  void theMedianOfAnOddCountIsTheMiddleAndOfAnEvenOneTheMeanOfTheTwoMiddles() {
    assertThat(
            RecoverySummary.figure(
                List.of(run("up", 1, 9), run("up", 2, 3), run("up", 3, 5)), RunResult::ready))
        .isEqualTo(new RecoverySummary.Figure(5, 9));
    assertThat(
            RecoverySummary.figure(
                List.of(run("up", 1, 9), run("up", 2, 3), run("up", 3, 5), run("up", 4, 4)),
                RunResult::ready))
        .isEqualTo(new RecoverySummary.Figure(4.5, 9));
  }

  @Test
  void aRunThatNeverGotThereIsTheWorstAndCountsAsTheSlowestForTheMedian() {
    RecoverySummary.Figure f =
        RecoverySummary.figure(
            List.of(run("up", 1, 2), run("up", 2, Double.NaN), run("up", 3, 4)), RunResult::ready);

    assertThat(f.median()).isEqualTo(4);
    assertThat(f.worst()).isNaN();
  }

  @Test
  void rowsGroupRunsByScenarioAndPodsInOrderOfAppearanceAndCountTheRunsThatHeld() {
    List<RunResult> runs =
        List.of(
            run("up", 1, 10),
            run("store", 1, 2),
            run("up", 2, 30),
            withVerdict(run("store", 2, 4), false));

    List<RecoverySummary.Row> rows = RecoverySummary.rows(runs);

    assertThat(rows).extracting(RecoverySummary.Row::scenario).containsExactly("up", "store");
    assertThat(rows.get(0).ready()).isEqualTo(new RecoverySummary.Figure(20, 30));
    assertThat(rows.get(0).correct()).isEqualTo(2);
    assertThat(rows.get(1).correct()).isEqualTo(1);
  }

  @Test
  void theTargetsAreHeldAgainstTheWorstOfEveryRun() {
    List<Target> targets = RecoverySummary.targets(List.of(run("up", 1, 12), run("store", 1, 25)));

    assertThat(targets).hasSize(3);
    assertThat(targets.get(0).actual()).isEqualTo(25);
    assertThat(targets.get(0).met()).isFalse();
    assertThat(targets.get(1).met()).isTrue();
    assertThat(RecoverySummary.targets(List.of())).isEmpty();
  }

  static RunResult run(String scenario, int number, double ready) {
    return new RunResult(
        scenario,
        200,
        number,
        scenario + "-0",
        50,
        30,
        1.0,
        ready,
        0.5,
        1.5,
        40,
        new RecoveryChecks.Verdict(30, List.of(), 200, 200, 1, List.of()),
        List.of(),
        List.of(),
        List.of(),
        new TimeSeries("running"),
        List.of(),
        List.of(),
        List.of());
  }

  static RunResult withVerdict(RunResult r, boolean ok) {
    return new RunResult(
        r.scenario(),
        r.pods(),
        r.run(),
        r.killed(),
        r.runningAtKill(),
        r.acknowledgedBeforeKill(),
        r.restart(),
        r.ready(),
        r.firstWrite(),
        r.everyPartitionWritten(),
        r.allRunning(),
        new RecoveryChecks.Verdict(30, ok ? List.of() : List.of("cm-1"), 200, 200, 1, List.of()),
        r.lagging(),
        r.apps(),
        r.signatures(),
        r.running(),
        r.lagPerApp(),
        r.committedPerApp(),
        r.problems());
  }
}
