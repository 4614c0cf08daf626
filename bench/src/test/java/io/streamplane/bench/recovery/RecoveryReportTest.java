package io.streamplane.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.bench.measure.TimeSeries;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

class RecoveryReportTest {

  @Test
  void theSummaryMarksAWorstBeyondItsTargetAndAFigureNotReached() {
    String md =
        RecoveryReport.summary(
            List.of(
                RecoverySummaryTest.run("up", 1, 12),
                RecoverySummaryTest.run("up", 2, 31),
                RecoverySummaryTest.run("broker", 1, Double.NaN)),
            "300 s");

    assertThat(md)
        .contains("| up | 200 | 2 | 21.5 s / 31.0 s ✗ | 0.5 s / 0.5 s | 1.5 s / 1.5 s |")
        .contains("| broker | 200 | 1 | - / not reached ✗ |")
        .contains("restart → ready (≤ 20 s)");
  }

  @Test
  void eachRunSaysWhichApplicationsAndPartitionsLaggedAndWhatItsLogShowed() {
    RunResult r = RecoverySummaryTest.run("store", 1, 3);
    RunResult explained =
        new RunResult(
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
            r.verdict(),
            List.of(
                new RunResult.LaggingView(
                    LagTimeline.View.COMMITTED,
                    List.of(new LagTimeline.Lagging("sp-binder", "sp.events", 1, 134, 62, 60, 70))),
                new RunResult.LaggingView(
                    LagTimeline.View.UNSTABLE,
                    List.of(new LagTimeline.Lagging("log", "sp.events", 4, 2, 30, 30, 31)))),
            List.of(
                new RunResult.AppsView(
                    LagTimeline.View.COMMITTED,
                    List.of(new LagTimeline.AppLag("sp-binder", 134, 70)))),
            List.of(
                new StallSignatures.Count("task waited for its committed offsets", 3, "Timeout")),
            r.running(),
            r.lagPerApp(),
            r.committedPerApp(),
            List.of("not every pod Running"));

    String md = RecoveryReport.runs(List.of(explained));

    assertThat(md)
        .contains("- Applications lagging, committed: `sp-binder` until 70.0 s (peak 134)")
        .contains(
            "`sp-binder` `sp.events-1` 60.0 s in a row (62.0 s in all), last at 70.0 s, peak 134")
        .contains("- Partitions lagging longest in a row, unstable: `sp.events-4` 30.0 s in a row")
        .contains("3 × task waited for its committed offsets")
        .contains("- Problem: not every pod Running");
  }

  @Test
  void theFigureHasALagPanelPerScenarioTheSlowestRunsCommittedLagAndThePods() throws Exception {
    TimeSeries lag = new TimeSeries("sp-store");
    lag.add(0, 0);
    lag.add(1, 40);
    TimeSeries running = new TimeSeries("up, 200 pods, run 1");
    running.add(2, 10);
    running.add(3, 200);
    RunResult base = RecoverySummaryTest.run("up", 1, 5);
    RunResult r =
        new RunResult(
            base.scenario(),
            base.pods(),
            base.run(),
            base.killed(),
            base.runningAtKill(),
            base.acknowledgedBeforeKill(),
            base.restart(),
            base.ready(),
            base.firstWrite(),
            base.everyPartitionWritten(),
            base.allRunning(),
            base.verdict(),
            base.lagging(),
            base.apps(),
            base.signatures(),
            running,
            List.of(lag),
            List.of(lag),
            base.problems());

    String svg = RecoveryReport.figure(List.of(r)).render();

    var doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(3);
    assertThat(svg)
        .contains("Reported lag per application: up, 200 pods, run 1")
        .contains("Committed lag per application, slowest run")
        .contains("Pods Running after the kill");
  }
}
