package io.streamplane.cli.replay.whatif;

import io.streamplane.bench.ReportParts;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.scheduler.framework.ScoringStrategy;
import io.streamplane.scheduler.whatif.WhatIfResult;
import io.streamplane.scheduler.whatif.WhatIfResult.NodeUsage;
import io.streamplane.scheduler.whatif.WhatIfResult.Placement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The what-if report: {@code <name>.md} (summary, chart, utilization table, the profile replayed,
 * the pods placed differently, why pods stayed unplaced, how it was run) and {@code <name>.svg}
 * (the distribution of CPU and memory requested over allocatable per node, real and what-if).
 *
 * <p>Everything but the section {@code How it was run} (timing, decisions per second, date,
 * machine) is a function of the result and the window, so two runs over the same log with the same
 * configuration write the same chart and the same figures.
 */
final class WhatIfReport {

  /** Where the result came from and how long it took. */
  record Run(
      String command,
      String configFile,
      SchedulerConfig config,
      Instant from,
      Instant until,
      String topic,
      Instant started,
      Duration read,
      Duration simulated) {}

  private static final int LISTED = 20;

  private WhatIfReport() {}

  static List<Path> write(Path dir, String name, WhatIfResult result, Run run) throws IOException {
    Files.createDirectories(dir);
    Path md = dir.resolve(name + ".md");
    Path svg = dir.resolve(name + ".svg");
    Files.writeString(md, markdown(name, result, run), StandardCharsets.UTF_8);
    Files.writeString(svg, figure(result, run.until()).render(), StandardCharsets.UTF_8);
    return List.of(md, svg);
  }

  static double decisionsPerSecond(WhatIfResult result, Duration simulated) {
    double seconds = simulated.toNanos() / 1e9;
    return seconds > 0 ? result.decisions() / seconds : Double.NaN;
  }

  /** The result in a few lines, as the report opens with them. */
  static String summary(WhatIfResult r) {
    return String.format(
        Locale.ROOT,
        "- Pods scheduled in the window: %,d (%,d more bound by hand or for another scheduler,"
            + " kept where they went)%n"
            + "- Placed differently by the what-if: %,d (%s)%n"
            + "- Unschedulable: %,d really (pending at the end), %,d in the what-if (of the same %,d"
            + " pods)%n"
            + "- Nodes used at the end: %,d really, %,d in the what-if, of %,d%n",
        r.podsInWindow(),
        r.boundWithoutScheduler(),
        r.placedDifferently(),
        percent(r.placedDifferently(), r.podsInWindow()),
        r.unschedulableBefore(),
        r.unschedulableAfter(),
        r.podsInWindow() + r.unschedulableBefore(),
        r.nodesUsedReal(),
        r.nodesUsedWhatIf(),
        r.nodes().size());
  }

  static String markdown(String name, WhatIfResult r, Run run) {
    StringBuilder md = new StringBuilder();
    md.append("# What-if scheduling: ")
        .append(Path.of(run.configFile()).getFileName())
        .append("\n\n")
        .append("The pods scheduled between ")
        .append(run.from())
        .append(" and ")
        .append(run.until())
        .append(", replayed in log order through the profile below over a simulated cluster that")
        .append(" starts as the real one was at ")
        .append(run.from())
        .append(" and evolves with the what-if's own decisions.\n\n")
        .append(summary(r))
        .append("\n![CPU and memory requested per node, real and what-if](")
        .append(name)
        .append(".svg)\n\n## Requested / allocatable per node at ")
        .append(run.until())
        .append("\n\n");
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        utilizationRow(
            "cpu, real", r, n -> ratio(n.real().milliCpu(), n.allocatable().milliCpu())));
    rows.add(
        utilizationRow(
            "cpu, what-if", r, n -> ratio(n.whatIf().milliCpu(), n.allocatable().milliCpu())));
    rows.add(
        utilizationRow("memory, real", r, n -> ratio(n.real().memory(), n.allocatable().memory())));
    rows.add(
        utilizationRow(
            "memory, what-if", r, n -> ratio(n.whatIf().memory(), n.allocatable().memory())));
    md.append(
            Markdown.table(
                List.of(
                    "", "nodes", "mean", "p10", "p50", "p90", "max", "at 0 %", "at 80 % or more"),
                "lrrrrrrrr",
                rows))
        .append("\nNodes that report no allocatable of a resource are left out of its rows. The")
        .append(" pods still pending at the end are not in these figures (the what-if's attempt")
        .append(" at them is counted above).\n\n## Profile replayed\n\n")
        .append(profile(run.config()))
        .append("\n## Pods placed differently\n\n");
    List<List<String>> moved = new ArrayList<>();
    for (Placement p : r.placements()) {
      if (moved.size() == LISTED) {
        break;
      }
      if (p.moved()) {
        moved.add(
            List.of(
                "`" + p.podKey() + "`",
                p.realNode(),
                p.whatIfNode() == null ? "unschedulable" : p.whatIfNode()));
      }
    }
    if (moved.isEmpty()) {
      md.append("None: the what-if placed every pod where it really went.\n");
    } else {
      md.append(
              r.placedDifferently() > LISTED
                  ? "The first " + LISTED + " of " + r.placedDifferently() + ", in log order:\n\n"
                  : "In log order:\n\n")
          .append(Markdown.table(List.of("pod", "real node", "what-if node"), "lll", moved));
    }
    md.append("\n## Why pods stayed unplaced in the what-if\n\n");
    Map<String, Long> reasons = new TreeMap<>();
    for (Placement p : r.placements()) {
      if (p.whatIfNode() == null) {
        reasons.merge(p.failure(), 1L, Long::sum);
      }
    }
    for (WhatIfResult.Attempt a : r.pendingAtEnd()) {
      if (a.whatIfNode() == null) {
        reasons.merge(a.failure(), 1L, Long::sum);
      }
    }
    if (reasons.isEmpty()) {
      md.append("Every pod found a node.\n");
    } else {
      List<List<String>> reasonRows =
          reasons.entrySet().stream()
              .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
              .limit(LISTED)
              .map(e -> List.of(Markdown.num(e.getValue(), 0), e.getKey()))
              .collect(Collectors.toList());
      md.append("The first FailedScheduling message of each:\n\n")
          .append(Markdown.table(List.of("pods", "message"), "rl", reasonRows));
    }
    md.append("\n## How it was run\n\n```sh\n")
        .append(run.command())
        .append("\n```\n\n- Log: `")
        .append(run.topic())
        .append("`\n- Started: ")
        .append(run.started())
        .append("\n- Reading the log: ")
        .append(Markdown.seconds(run.read().toNanos() / 1e9))
        .append("; the simulation: ")
        .append(Markdown.seconds(run.simulated().toNanos() / 1e9))
        .append(" for ")
        .append(Markdown.num(r.decisions(), 0))
        .append(" decisions (")
        .append(Markdown.num(decisionsPerSecond(r, run.simulated()), 0))
        .append(" decisions/s, one thread)\n")
        .append(ReportParts.machine());
    return md.toString();
  }

  static SvgFigure figure(WhatIfResult r, Instant until) {
    return new SvgFigure("Requested / allocatable per node at " + until + ", real and what-if")
        .cdf(
            "CPU requested / allocatable",
            "%",
            List.of(
                values("real", r, n -> ratio(n.real().milliCpu(), n.allocatable().milliCpu())),
                values(
                    "what-if", r, n -> ratio(n.whatIf().milliCpu(), n.allocatable().milliCpu()))))
        .cdf(
            "Memory requested / allocatable",
            "%",
            List.of(
                values("real", r, n -> ratio(n.real().memory(), n.allocatable().memory())),
                values("what-if", r, n -> ratio(n.whatIf().memory(), n.allocatable().memory()))));
  }

  private static SvgFigure.Values values(
      String name, WhatIfResult r, ToDoubleFunction<NodeUsage> percent) {
    return new SvgFigure.Values(
        name, r.nodes().stream().mapToDouble(percent).filter(v -> !Double.isNaN(v)).toArray());
  }

  private static List<String> utilizationRow(
      String label, WhatIfResult r, ToDoubleFunction<NodeUsage> percent) {
    double[] v = r.nodes().stream().mapToDouble(percent).filter(x -> !Double.isNaN(x)).toArray();
    Arrays.sort(v);
    if (v.length == 0) {
      return List.of(label, "0", "-", "-", "-", "-", "-", "-", "-");
    }
    return List.of(
        label,
        Markdown.num(v.length, 0),
        pct(Arrays.stream(v).average().orElse(Double.NaN)),
        pct(quantile(v, 0.10)),
        pct(quantile(v, 0.50)),
        pct(quantile(v, 0.90)),
        pct(v[v.length - 1]),
        Markdown.num(Arrays.stream(v).filter(x -> x == 0).count(), 0),
        Markdown.num(Arrays.stream(v).filter(x -> x >= 80).count(), 0));
  }

  /** Nearest-rank quantile of sorted values. */
  private static double quantile(double[] sorted, double q) {
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static double ratio(long requested, long allocatable) {
    return allocatable <= 0 ? Double.NaN : 100.0 * requested / allocatable;
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%.1f %%", v);
  }

  private static String percent(long part, long whole) {
    return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
  }

  private static String profile(SchedulerConfig c) {
    ScoringStrategy s = c.scoringStrategy();
    StringBuilder md = new StringBuilder();
    md.append("- schedulerName: `")
        .append(c.schedulerName())
        .append("`\n- percentageOfNodesToScore: ")
        .append(c.percentageOfNodesToScore() == 0 ? "adaptive (0)" : c.percentageOfNodesToScore())
        .append("\n- score plugins: ")
        .append(
            c.scoreWeights().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")))
        .append("\n- NodeResourcesFit scoringStrategy: ")
        .append(s.type())
        .append(" over ")
        .append(
            s.resources().stream()
                .map(w -> w.name() + " " + w.weight())
                .collect(Collectors.joining(", ")));
    if (!s.shape().isEmpty()) {
      md.append(", shape ")
          .append(
              s.shape().stream()
                  .map(p -> p.utilization() + " % → " + p.score())
                  .collect(Collectors.joining(", ")));
    }
    return md.append('\n').toString();
  }
}
