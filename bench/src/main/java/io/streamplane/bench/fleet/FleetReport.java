package io.streamplane.bench.fleet;

import static io.streamplane.bench.ReportParts.machine;
import static io.streamplane.bench.ReportParts.niceCeiling;
import static io.streamplane.bench.ReportParts.svgOpen;

import io.streamplane.bench.fleet.FleetBenchmark.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** Writes the fleet benchmark's Markdown report and its SVG chart. */
final class FleetReport {

  private FleetReport() {}

  static void write(
      Path dir,
      List<Result> results,
      Duration window,
      int replicas,
      String command,
      String loadBefore,
      String loadAfter)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("fleet.md"),
        markdown(results, window, replicas, command, loadBefore, loadAfter),
        StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("fleet.svg"), svg(results), StandardCharsets.UTF_8);
  }

  private static String markdown(
      List<Result> results,
      Duration window,
      int replicas,
      String command,
      String loadBefore,
      String loadAfter) {
    StringBuilder md = new StringBuilder();
    md.append("# Fleet benchmark\n\n")
        .append("Simulated nodes (`NodeFleet`, `RuntimeChoice.SIMULATED`) against a real control\n")
        .append(
            "plane, all in one JVM: per fleet size a fresh embedded KRaft broker on a temporary\n")
        .append(
            "directory, the topics, the controllers (node lifecycle controller with its default\n")
        .append(
            "40 s grace period), the binder and scheduler, the store and a gateway on free ports,\n")
        .append(
            "wired as `streamplane up` wires them. Everything below is read through the gateway's\n")
        .append("API, as a user sees it:\n\n")
        .append(
            "- **All Ready**: from the fleet's start until `GET /api/v1/nodes` lists every node\n")
        .append("  with Ready=True (polled every 2 s). The fleet spreads its nodes' first\n")
        .append(
            "  registration over the 10 s lease period by design. **All Leases**: until every\n")
        .append("  node's Lease exists with a renewTime. The fleet's own counter\n")
        .append("  (`NodeFleet.registered()`) is given for comparison.\n")
        .append("- **Steady window** of ")
        .append(window.toSeconds())
        .append(" s: Lease renewals are the MODIFIED events of a watch on\n")
        .append(
            "  `kube-node-lease` whose `spec.renewTime` falls in the window (expected: N / 10 s).\n")
        .append("  Every 5 s, and during the Deployment, the Nodes are listed: a node without\n")
        .append(
            "  Ready=True in any sample (for example marked Unknown by the lifecycle controller)\n")
        .append(
            "  counts as not Ready. CPU (process CPU time / window) and heap are the whole JVM's:\n")
        .append("  broker, control plane, gateway and fleet together.\n")
        .append("- **Deployment**: `POST` of a Deployment of ")
        .append(replicas)
        .append(" replicas (`nginx:1.14.2`, no requests)\n")
        .append("  after the window; time until its `status.availableReplicas` is ")
        .append(replicas)
        .append(" (polled every 500 ms).\n\n")
        .append(
            "The run fails (exit status 1) when the fleet had a failed request, a node was not\n")
        .append(
            "Ready at a sample, a Lease was not renewed during the window, or a phase timed out.\n\n")
        .append("![registration time and lease renewals per second by node count](fleet.svg)\n\n")
        .append(
            "| nodes | all Nodes Ready | all Leases | fleet counter: registered | lease renewals/s"
                + " (expected) | renewals per node in window | fleet errors | nodes not Ready at"
                + " a sample (samples) | "
                + replicas
                + "-replica Deployment available | process CPU | heap max used / after GC |"
                + " control plane start |\n")
        .append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int cores = Runtime.getRuntime().availableProcessors();
    for (Result r : results) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %s | %s | %s | %.1f (%.1f) | %d-%d | %d | %d (%d) | %s | %.2f of %d cores"
                  + " | %,d / %,d MiB | %s |%n",
              r.nodes(),
              secs(r.allReadySeconds()),
              secs(r.allLeasesSeconds()),
              secs(r.fleetCountersSeconds()),
              r.renewalsPerSecond(),
              r.nodes() / 10.0,
              r.minRenewalsPerNode(),
              r.maxRenewalsPerNode(),
              r.fleetErrors(),
              r.notReady().size(),
              r.samples(),
              secs(r.deploymentSeconds()),
              r.cpuCoresAverage(),
              cores,
              r.heapMaxUsedMiB(),
              r.heapAfterGcMiB(),
              secs(r.controlPlaneStartSeconds())));
    }
    md.append("\n");
    boolean failed = false;
    for (Result r : results) {
      if (!r.failures().isEmpty()) {
        failed = true;
        md.append(String.format(Locale.ROOT, "**%,d nodes FAILED**:%n%n", r.nodes()));
        r.failures().forEach(f -> md.append("- ").append(f).append('\n'));
        md.append('\n');
      }
    }
    if (!failed) {
      md.append(
          "Every size passed: no failed request, every node Ready at every sample, every Lease\n"
              + "renewed during the window, the Deployment available.\n");
    }
    md.append("\n## Reproduce\n\nFrom the repository root:\n\n```sh\n")
        .append(command)
        .append(
            "\n```\n\nOptions: `--nodes 200,1000 --window 120 --replicas 50"
                + " --registration-timeout 300 --deployment-timeout 300 --out bench/reports`.\n"
                + "One run per size, sizes in order, each against its own fresh control plane in"
                + " the same JVM\n(so later sizes run on a warmer JIT).\n")
        .append(machine())
        .append("- Load average (1, 5, 15 min) before the run: ")
        .append(loadBefore)
        .append(", after: ")
        .append(loadAfter)
        .append("\n- Date: ")
        .append(LocalDate.now(ZoneOffset.UTC))
        .append("\n\nA shared 2-core development machine: other work on it shows in the times.\n");
    return md.toString();
  }

  private static String svg(List<Result> results) {
    int width = 760;
    int height = 400;
    StringBuilder s = new StringBuilder();
    s.append(svgOpen(width, height))
        .append(
            String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"26\" text-anchor=\"middle\" font-size=\"16\">"
                    + "Simulated node fleet against a real control plane (one JVM)</text>%n",
                width / 2));
    panel(
        s,
        results,
        70,
        "Seconds until all Nodes Ready (API)",
        Result::allReadySeconds,
        r -> Double.NaN,
        "%.1f s",
        "#3b6ea8");
    panel(
        s,
        results,
        width / 2 + 50,
        "Lease renewals per second (watch)",
        Result::renewalsPerSecond,
        r -> r.nodes() / 10.0,
        "%.1f/s",
        "#4a9a5b");
    s.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n",
                width / 2,
                height - 12,
                "dashed: expected renewals (nodes / 10 s); below each bar: fleet errors, nodes"
                    + " ever not Ready"))
        .append("</svg>\n");
    return s.toString();
  }

  /** One bar chart, {@code left} its plot's left edge, 290 wide. */
  private static void panel(
      StringBuilder s,
      List<Result> results,
      int left,
      String title,
      ToDoubleFunction<Result> value,
      ToDoubleFunction<Result> expected,
      String format,
      String color) {
    int top = 70;
    int plotW = 290;
    int plotH = 240;
    double max = 0;
    for (Result r : results) {
      max = Math.max(max, orZero(value.applyAsDouble(r)));
      max = Math.max(max, orZero(expected.applyAsDouble(r)));
    }
    double axisMax = niceCeiling(Math.max(max, 1));
    s.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">%s</text>%n",
            left + plotW / 2,
            top - 16,
            title));
    for (int i = 0; i <= 5; i++) {
      double v = axisMax * i / 5;
      double y = top + plotH - plotH * (v / axisMax);
      s.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n",
              left,
              y,
              left + plotW,
              y,
              left - 6,
              y + 4,
              v));
    }
    int n = Math.max(1, results.size());
    double slot = (double) plotW / n;
    double barW = slot * 0.5;
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i);
      double v = value.applyAsDouble(r);
      double h = plotH * (orZero(v) / axisMax);
      double x = left + slot * i + (slot - barW) / 2;
      double y = top + plotH - h;
      double cx = x + barW / 2;
      s.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n"
                  + "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>%n"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%,d nodes</text>%n"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">"
                  + "errors %d, not Ready %d</text>%n",
              x,
              y,
              barW,
              h,
              color,
              cx,
              y - 6,
              Double.isNaN(v) ? "timed out" : String.format(Locale.ROOT, format, v),
              cx,
              top + plotH + 18,
              r.nodes(),
              cx,
              top + plotH + 34,
              r.fleetErrors(),
              r.notReady().size()));
      double e = expected.applyAsDouble(r);
      if (!Double.isNaN(e)) {
        double ey = top + plotH - plotH * (e / axisMax);
        s.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\""
                    + " stroke-dasharray=\"4 3\"/>%n",
                x - 6,
                ey,
                x + barW + 6,
                ey));
      }
    }
    s.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
            left,
            top + plotH,
            left + plotW,
            top + plotH));
  }

  private static double orZero(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  private static String secs(double seconds) {
    return Double.isNaN(seconds) ? "timed out" : String.format(Locale.ROOT, "%.1f s", seconds);
  }
}
