package io.streamplane.bench.recovery;

import io.streamplane.bench.report.Target;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The runs of each (scenario, pods) pair folded into one row: the median and the worst of each
 * figure, and in how many runs the checks held; and the targets against the worst run. A
 * figure a run never reached (NaN) makes the worst "not reached" and counts as a missed target.
 */
final class RecoverySummary {

  /** The targets the cluster is held to after a kill -9, in seconds. */
  static final double READY_TARGET = 20;

  static final double FIRST_WRITE_TARGET = 5;
  static final double ALL_RUNNING_TARGET = 60;

  /** The median and the worst of one figure over a group's runs. */
  record Figure(double median, double worst) {}

  /** One (scenario, pods) group. */
  record Row(
      String scenario,
      int pods,
      int runs,
      Figure ready,
      Figure firstWrite,
      Figure everyPartitionWritten,
      Figure allRunning,
      int correct) {}

  private RecoverySummary() {}

  /** Rows in the order their groups first appear in {@code runs}. */
  static List<Row> rows(List<RunResult> runs) {
    Map<String, List<RunResult>> groups = new LinkedHashMap<>();
    for (RunResult r : runs) {
      groups.computeIfAbsent(r.scenario() + "\u0000" + r.pods(), k -> new ArrayList<>()).add(r);
    }
    List<Row> rows = new ArrayList<>();
    for (List<RunResult> g : groups.values()) {
      rows.add(
          new Row(
              g.get(0).scenario(),
              g.get(0).pods(),
              g.size(),
              figure(g, RunResult::ready),
              figure(g, RunResult::firstWrite),
              figure(g, RunResult::everyPartitionWritten),
              figure(g, RunResult::allRunning),
              (int) g.stream().filter(r -> r.verdict() != null && r.verdict().ok()).count()));
    }
    return rows;
  }

  /** The median (the mean of the middle two for an even count) and the worst; NaN is worst. */
  static Figure figure(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    double[] values = runs.stream().mapToDouble(f).toArray();
    if (values.length == 0) {
      return new Figure(Double.NaN, Double.NaN);
    }
    boolean missing = Arrays.stream(values).anyMatch(Double::isNaN);
    double[] sorted =
        Arrays.stream(values)
            .map(v -> Double.isNaN(v) ? Double.POSITIVE_INFINITY : v)
            .sorted()
            .toArray();
    int n = sorted.length;
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return new Figure(
        Double.isInfinite(median) ? Double.NaN : median, missing ? Double.NaN : sorted[n - 1]);
  }

  /** The three targets of a recovery, each against the worst of every run that killed something. */
  static List<Target> targets(List<RunResult> all) {
    List<RunResult> runs =
        all.stream().filter(r -> !RecoveryBenchmark.killsNothing(r.scenario())).toList();
    if (runs.isEmpty()) {
      return List.of();
    }
    return List.of(
        new Target(
            "the slowest restart → ready",
            READY_TARGET,
            figure(runs, RunResult::ready).worst(),
            "s"),
        new Target(
            "the slowest ready → first acknowledged write",
            FIRST_WRITE_TARGET,
            figure(runs, RunResult::firstWrite).worst(),
            "s"),
        new Target(
            "the slowest ready → every pod Running",
            ALL_RUNNING_TARGET,
            figure(runs, RunResult::allRunning).worst(),
            "s"));
  }
}
