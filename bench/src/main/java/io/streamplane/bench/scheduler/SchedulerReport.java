package io.streamplane.bench.scheduler;

import static io.streamplane.bench.ReportParts.machine;
import static io.streamplane.bench.ReportParts.niceCeiling;
import static io.streamplane.bench.ReportParts.svgOpen;

import io.streamplane.bench.scheduler.SchedulerBenchmark.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Writes the scheduler benchmark's Markdown report and its SVG bar chart. */
final class SchedulerReport {

  private SchedulerReport() {}

  static void write(Path dir, List<Result> results, int pods, int rounds, String command)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("scheduler.md"),
        markdown(results, pods, rounds, command),
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("scheduler.svg"), svg(results), StandardCharsets.UTF_8);
  }

  private static String markdown(List<Result> results, int pods, int rounds, String command) {
    StringBuilder md = new StringBuilder();
    md.append("# Scheduler micro-benchmark\n\n")
        .append("Decisions per second of `Scheduler.schedule` (the pure scheduling cycle in\n")
        .append(
            "`streams-apps/.../scheduler/framework`: filter, score, select) on one thread, with\n")
        .append("the default profile (adaptive `percentageOfNodesToScore`, NodeResourcesFit,\n")
        .append("BalancedAllocation, NodeAffinity, TaintToleration). No Kafka is involved.\n\n")
        .append("Per round: ")
        .append(pods)
        .append(" pending pods of random sizes (cpu 100m-2, memory 128Mi-4Gi; 20% with a zone\n")
        .append(
            "nodeSelector, 5% tolerating the GPU taint, 15% preferring ssd nodes) are scheduled one\n")
        .append(
            "after another on empty nodes; each placement is added to its node before the next\n")
        .append(
            "decision. Nodes: five sizes (4-64 cpu), three zones, 10% GPU nodes with a NoSchedule\n")
        .append("taint, 5% with a PreferNoSchedule taint, 2% cordoned. ")
        .append(rounds)
        .append(
            " measured rounds per size, after 5 s of JIT warm-up and one more warm-up round per\n")
        .append(
            "size. Latency percentiles pool all measured decisions; a decision's latency excludes\n")
        .append("the node update that follows it, a round's decisions/s includes it.\n\n")
        .append("![decisions per second by number of nodes](scheduler.svg)\n\n")
        .append(
            "| nodes | feasible nodes to find per decision | decisions/s (median) | decisions/s (min-max) |"
                + " p50 latency | p99 latency | placed / unschedulable per round |\n")
        .append("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Result r : results) {
      double min = Arrays.stream(r.decisionsPerSecond()).min().orElse(0);
      double max = Arrays.stream(r.decisionsPerSecond()).max().orElse(0);
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %,d | %,.0f | %,.0f-%,.0f | %s | %s | %d / %d |%n",
              r.nodes(),
              r.feasibleNodesToFind(),
              r.medianDecisionsPerSecond(),
              min,
              max,
              micros(r.p50Nanos()),
              micros(r.p99Nanos()),
              r.scheduled(),
              r.unschedulable()));
    }
    md.append("\n## Reproduce\n\nFrom the repository root:\n\n```sh\n")
        .append(command)
        .append(
            "\n```\n\nOptions: `--nodes 500,1000,5000 --pods 5000 --rounds 10 --out bench/reports`.\n")
        .append(machine())
        .append("- Date: ")
        .append(LocalDate.now(ZoneOffset.UTC))
        .append(
            "\n\nA shared 2-core development machine: numbers vary by some percent between runs."
                + "\nThe 5,000-node case searches fewer nodes per decision relative to the cluster"
                + " (10% instead of 46%)\nbecause of kube-scheduler's adaptive percentageOfNodesToScore.\n");
    return md.toString();
  }

  private static String svg(List<Result> results) {
    int width = 640;
    int height = 400;
    int left = 90;
    int right = 30;
    int top = 50;
    int bottom = 80;
    int plotW = width - left - right;
    int plotH = height - top - bottom;
    double maxValue =
        results.stream().mapToDouble(Result::medianDecisionsPerSecond).max().orElse(1);
    double axisMax = niceCeiling(maxValue);
    StringBuilder s = new StringBuilder();
    s.append(svgOpen(width, height))
        .append(
            String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">"
                    + "Scheduler decisions per second (median, one thread)</text>%n",
                width / 2));
    for (int i = 0; i <= 5; i++) {
      double value = axisMax * i / 5;
      double y = top + plotH - plotH * (value / axisMax);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n",
              left,
              y,
              left + plotW,
              y,
              left - 8,
              y + 4,
              value));
    }
    int n = results.size();
    double slot = (double) plotW / n;
    double barW = slot * 0.5;
    for (int i = 0; i < n; i++) {
      Result r = results.get(i);
      double value = r.medianDecisionsPerSecond();
      double h = plotH * (value / axisMax);
      double x = left + slot * i + (slot - barW) / 2;
      double y = top + plotH - h;
      double cx = x + barW / 2;
      s.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#3b6ea8\"/>%n"
                  + "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%,.0f/s</text>%n"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%,d nodes</text>%n"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">"
                  + "p50 %s, p99 %s</text>%n",
              x,
              y,
              barW,
              h,
              cx,
              y - 6,
              value,
              cx,
              top + plotH + 20,
              r.nodes(),
              cx,
              top + plotH + 38,
              micros(r.p50Nanos()),
              micros(r.p99Nanos())));
    }
    s.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                left,
                top + plotH,
                left + plotW,
                top + plotH))
        .append(
            String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">" + "%s</text>%n",
                width / 2,
                height - 12,
                "nodes in the cluster; default profile, adaptive percentageOfNodesToScore"))
        .append(
            String.format(
                Locale.ROOT,
                "<text x=\"20\" y=\"%d\" transform=\"rotate(-90 20 %d)\" text-anchor=\"middle\">"
                    + "decisions/s</text>%n",
                top + plotH / 2,
                top + plotH / 2))
        .append("</svg>\n");
    return s.toString();
  }

  private static String micros(long nanos) {
    return String.format(Locale.ROOT, "%,.0f µs", nanos / 1000.0);
  }
}
