package io.streamplane.bench.recovery;

import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The recovery report's text and chart from the runs: the table of medians and worsts beside the
 * targets, every run, where each run's time went (the applications and partitions that lagged
 * longest in each view, the tell-tale lines of the killed process's log), and per scenario the lag
 * of every application and the pods Running of its slowest run.
 */
final class RecoveryReport {

  private static final int PARTITIONS_SHOWN = 5;

  private RecoveryReport() {}

  /** The table of medians and worsts, with the targets in its header. */
  static String summary(List<RunResult> runs, String timeout) {
    List<List<String>> rows = new ArrayList<>();
    for (RecoverySummary.Row r : RecoverySummary.rows(runs)) {
      boolean anchor = RecoveryBenchmark.killsNothing(r.scenario());
      rows.add(
          List.of(
              r.scenario(),
              Markdown.num(r.pods(), 0),
              Integer.toString(r.runs()),
              anchor ? "-" : figure(r.ready(), RecoverySummary.READY_TARGET, timeout),
              figure(
                  r.firstWrite(),
                  anchor ? Double.NaN : RecoverySummary.FIRST_WRITE_TARGET,
                  timeout),
              figure(r.everyPartitionWritten(), Double.NaN, timeout),
              figure(
                  r.allRunning(),
                  anchor ? Double.NaN : RecoverySummary.ALL_RUNNING_TARGET,
                  timeout),
              r.correct() + " of " + r.runs()));
    }
    return "Median / worst of each figure over the runs of a scenario; ✗ marks a worst beyond its"
        + " target, \"not reached\" a figure some run did not reach within "
        + timeout
        + ". `up-none` and `none` kill nothing: the same rollout on `up` and on the multi-process"
        + " cluster, with \"ready\" the moment the kill would have come, so their \"ready → all"
        + " pods Running\" is what the rollout takes anyway from there.\n\n"
        + Markdown.table(
            List.of(
                "killed",
                "pods",
                "runs",
                "restart → ready (≤ 20 s)",
                "ready → first write (≤ 5 s)",
                "ready → every partition written",
                "ready → all pods Running (≤ 60 s)",
                "checks held"),
            "lrrrrrrr",
            rows);
  }

  private static String figure(RecoverySummary.Figure f, double target, String timeout) {
    String worst = Double.isNaN(f.worst()) ? "not reached" : Markdown.seconds(f.worst());
    boolean missed = !Double.isNaN(target) && (Double.isNaN(f.worst()) || f.worst() > target);
    return Markdown.seconds(f.median()) + " / " + worst + (missed ? " ✗" : "");
  }

  /** Every run in a table, then where each one's time went. */
  static String runs(List<RunResult> runs) {
    StringBuilder md = new StringBuilder("## Every run\n\n");
    List<List<String>> rows = new ArrayList<>();
    for (RunResult r : runs) {
      rows.add(
          List.of(
              r.scenario(),
              Markdown.num(r.pods(), 0),
              Integer.toString(r.run()),
              "`" + r.killed() + "`",
              Integer.toString(r.runningAtKill()),
              Integer.toString(r.acknowledgedBeforeKill()),
              Markdown.seconds(r.restart()),
              Markdown.seconds(r.ready()),
              Markdown.seconds(r.firstWrite()),
              Markdown.seconds(r.everyPartitionWritten()),
              Markdown.seconds(r.allRunning()),
              r.verdict() == null
                  ? "not checked"
                  : r.verdict().ok()
                      ? "held (" + r.verdict().acknowledged() + " writes)"
                      : String.join("; ", r.verdict().problems())));
    }
    md.append(
            Markdown.table(
                List.of(
                    "killed",
                    "pods",
                    "run",
                    "process",
                    "Running at the kill",
                    "writes acknowledged before it",
                    "kill → restart",
                    "restart → ready",
                    "ready → first write",
                    "ready → every partition",
                    "ready → all Running",
                    "checks"),
                "lrrlrrrrrrrl",
                rows))
        .append('\n');
    md.append("## Where the time went\n\n")
        .append(
            "Seconds after the kill. **Reported**: what the processes' `/metrics` said"
                + " (`streamplane_kafka_consumer_lag`), only for the partitions their tasks fetch;"
                + " **committed**: the group's committed offset against the partition's last"
                + " stable offset, from the broker, whether the task fetches or not; **unstable**:"
                + " records behind a transaction still open (end offset − last stable offset). A"
                + " partition lagging in the committed view but absent from the reported one was"
                + " not being read at all.\n\n");
    for (RunResult r : runs) {
      md.append("### ")
          .append(r.scenario())
          .append(", ")
          .append(Markdown.num(r.pods(), 0))
          .append(" pods, run ")
          .append(r.run())
          .append("\n\n");
      for (RunResult.AppsView v : r.apps()) {
        List<String> lagged =
            v.apps().stream()
                .filter(a -> !Double.isNaN(a.lastLaggingSeconds()))
                .map(
                    a ->
                        String.format(
                            Locale.ROOT,
                            "`%s` until %.1f s (peak %,.0f)",
                            a.app(),
                            a.lastLaggingSeconds(),
                            a.peak()))
                .toList();
        if (v.view() != LagTimeline.View.UNSTABLE) {
          md.append("- Applications lagging, ")
              .append(name(v.view()))
              .append(": ")
              .append(lagged.isEmpty() ? "none seen" : String.join(", ", lagged))
              .append('\n');
        }
      }
      for (RunResult.LaggingView v : r.lagging()) {
        List<LagTimeline.Lagging> top = v.partitions().stream().limit(PARTITIONS_SHOWN).toList();
        md.append("- Partitions lagging longest in a row, ").append(name(v.view())).append(": ");
        if (top.isEmpty()) {
          md.append("none seen\n");
          continue;
        }
        List<String> parts = top.stream().map(LagTimeline.Lagging::describe).toList();
        md.append(String.join("; ", parts));
        if (v.partitions().size() > top.size()) {
          md.append("; and ").append(v.partitions().size() - top.size()).append(" more");
        }
        md.append('\n');
      }
      if (r.signatures().isEmpty()) {
        md.append("- The killed process's log since the restart: none of the tell-tale lines\n");
      } else {
        for (StallSignatures.Count c : r.signatures()) {
          md.append("- Log since the restart: ")
              .append(c.count())
              .append(" × ")
              .append(c.meaning())
              .append(", first: `")
              .append(c.first().replace('`', '\''))
              .append("`\n");
        }
      }
      r.problems().forEach(p -> md.append("- Problem: ").append(p).append('\n'));
      md.append('\n');
    }
    return md.toString();
  }

  private static String name(LagTimeline.View view) {
    return view.name().toLowerCase(Locale.ROOT);
  }

  /**
   * Per scenario, its slowest run (the longest kill → all Running, a run that never got there the
   * slowest): the reported lag per application; then the committed lag per application of the
   * slowest run of all; then the pods Running of each scenario's slowest run.
   */
  static SvgFigure figure(List<RunResult> runs) {
    SvgFigure figure = new SvgFigure("Recovery after kill -9");
    Map<String, RunResult> slowest = new LinkedHashMap<>();
    Comparator<RunResult> slowness =
        Comparator.comparingDouble(
            r ->
                Double.isNaN(r.killToAllRunning())
                    ? Double.POSITIVE_INFINITY
                    : r.killToAllRunning());
    for (RunResult r : runs) {
      slowest.merge(
          r.scenario() + " " + r.pods(), r, (a, b) -> slowness.compare(a, b) >= 0 ? a : b);
    }
    for (RunResult r : slowest.values()) {
      figure.timeSeries(
          String.format(
              Locale.ROOT,
              "Reported lag per application: %s, %d pods, run %d (s after the kill)",
              r.scenario(),
              r.pods(),
              r.run()),
          "records",
          r.lagPerApp());
    }
    runs.stream()
        .max(slowness)
        .ifPresent(
            r ->
                figure.timeSeries(
                    String.format(
                        Locale.ROOT,
                        "Committed lag per application, slowest run: %s, %d pods, run %d",
                        r.scenario(),
                        r.pods(),
                        r.run()),
                    "records",
                    r.committedPerApp()));
    List<TimeSeries> running = slowest.values().stream().map(RunResult::running).toList();
    figure.timeSeries("Pods Running after the kill, slowest run of each", "pods", running);
    return figure;
  }
}
