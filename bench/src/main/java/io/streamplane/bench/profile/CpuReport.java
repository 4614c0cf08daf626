package io.streamplane.bench.profile;

import static io.streamplane.bench.report.Markdown.num;

import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The report's section and chart panels of a {@link Profiler}'s breakdowns. */
public final class CpuReport {

  /** What a figure of the report is. */
  public enum Measure {
    /** CPU µs per request of the window: a load's cost. */
    MICROS_PER_REQUEST("µs", "CPU µs per request"),
    /** CPU seconds per second of the window, as a percentage: a cluster at rest. */
    PERCENT_OF_A_CORE("% of a core", "% of one core");

    final String column;
    final String title;

    Measure(String column, String title) {
      this.column = column;
      this.title = title;
    }

    double of(double cpuSeconds, CpuProfile.Breakdown window) {
      return this == MICROS_PER_REQUEST
          ? cpuSeconds * 1e6 / Math.max(1, window.requests())
          : 100 * cpuSeconds / Math.max(1e-9, window.seconds());
    }

    String format(double value) {
      return this == MICROS_PER_REQUEST ? num(value, 0) : num(value, 2);
    }
  }

  /** A stage below this share of its window's CPU in every window is folded into its hop's rest. */
  private static final double SMALL = 0.01;

  private static final String REST = "(smaller stages)";

  private CpuReport() {}

  /** The Markdown section: hops per window, then each hop's stages per window. */
  public static String markdown(long pid, List<CpuProfile.Breakdown> windows, Measure measure) {
    if (windows.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## Where the CPU goes\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Process %d, profiled: each hop's CPU from its threads' times in `/proc/%d/task` at"
                + " the start and end of each window, the threads named after their Java names;"
                + " each hop split into stages by the share of the hop's Java stack samples (JDK"
                + " Flight Recorder, `profile` settings, started with `jcmd`) whose frames name the"
                + " stage. Figures are %s%s. Native code (RocksDB's C++ under a JNI call, socket"
                + " system calls) is in its hop's CPU but gets no sample of its own: it is spread"
                + " over the hop's stages. A thread that waits for a core while in Java code is"
                + " sampled as running.%n%n",
            pid,
            pid,
            measure.title,
            measure == Measure.MICROS_PER_REQUEST
                ? " (CPU of the window ÷ its requests, so they include whatever else the process"
                    + " did meanwhile)"
                : ""));
    List<String> header = new ArrayList<>(List.of("hop"));
    StringBuilder align = new StringBuilder("l");
    for (CpuProfile.Breakdown b : windows) {
      header.add(b.window() + ", " + measure.column);
      align.append('r');
    }
    List<List<String>> rows = new ArrayList<>();
    for (String hop : hops(windows)) {
      List<String> row = new ArrayList<>(List.of(hop));
      for (CpuProfile.Breakdown b : windows) {
        row.add(measure.format(measure.of(hopSeconds(b, hop), b)));
      }
      rows.add(row);
    }
    List<String> totals = new ArrayList<>(List.of("**the process**"));
    for (CpuProfile.Breakdown b : windows) {
      totals.add("**" + measure.format(measure.of(b.cpuSeconds(), b)) + "**");
    }
    rows.add(totals);
    md.append(Markdown.table(header, align.toString(), rows)).append('\n');
    for (CpuProfile.Breakdown b : windows) {
      md.append(
          String.format(
              Locale.ROOT,
              "- %s: %s%s s, %s s of CPU (%s cores busy on average), %,d Java samples.%n",
              b.window(),
              measure == Measure.MICROS_PER_REQUEST ? num(b.requests(), 0) + " requests in " : "",
              num(b.seconds(), 1),
              num(b.cpuSeconds(), 1),
              num(b.cpuSeconds() / Math.max(1e-9, b.seconds()), 2),
              b.samples()));
    }
    md.append("\n### By stage\n\n");
    List<String> stageHeader = new ArrayList<>(List.of("hop", "stage"));
    stageHeader.addAll(header.subList(1, header.size()));
    List<List<String>> stageRows = new ArrayList<>();
    for (String hop : hops(windows)) {
      for (var e : stages(windows, hop).entrySet()) {
        List<String> row = new ArrayList<>(List.of(hop, e.getKey()));
        for (int w = 0; w < windows.size(); w++) {
          row.add(measure.format(measure.of(e.getValue()[w], windows.get(w))));
        }
        stageRows.add(row);
      }
    }
    md.append(Markdown.table(stageHeader, "l" + align, stageRows));
    return md.toString();
  }

  /** Two panels for the first window: its CPU by hop and by its largest stages. */
  public static SvgFigure panels(
      SvgFigure figure, List<CpuProfile.Breakdown> windows, Measure measure) {
    if (windows.isEmpty()) {
      return figure;
    }
    CpuProfile.Breakdown first = windows.get(0);
    List<SvgFigure.Bar> hops = new ArrayList<>();
    List<SvgFigure.Bar> stages = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    List<Double> seconds = new ArrayList<>();
    for (CpuProfile.Hop h : first.hops()) {
      if (h.cpuSeconds() >= first.cpuSeconds() * SMALL) {
        hops.add(bar(h.name(), measure.of(h.cpuSeconds(), first), measure));
      }
      for (CpuProfile.Stage s : h.stages()) {
        labels.add(h.name() + ": " + s.name());
        seconds.add(s.cpuSeconds());
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < labels.size(); i++) {
      order.add(i);
    }
    order.sort((a, b) -> Double.compare(seconds.get(b), seconds.get(a)));
    for (int i : order.subList(0, Math.min(14, order.size()))) {
      stages.add(bar(labels.get(i), measure.of(seconds.get(i), first), measure));
    }
    String of = measure == Measure.MICROS_PER_REQUEST ? " per " + first.window() + " request" : "";
    return figure
        .bars(measure.title + of + ", by hop", hops)
        .bars(measure.title + of + ", the largest stages", stages);
  }

  private static SvgFigure.Bar bar(String label, double value, Measure measure) {
    return new SvgFigure.Bar(label, value, measure.format(value) + " " + measure.column);
  }

  /** Every hop of any window, in the first window's order, then the others'. */
  private static Set<String> hops(List<CpuProfile.Breakdown> windows) {
    Set<String> hops = new LinkedHashSet<>();
    for (CpuProfile.Breakdown b : windows) {
      for (CpuProfile.Hop h : b.hops()) {
        hops.add(h.name());
      }
    }
    return hops;
  }

  private static double hopSeconds(CpuProfile.Breakdown b, String hop) {
    return b.hops().stream()
        .filter(h -> h.name().equals(hop))
        .mapToDouble(CpuProfile.Hop::cpuSeconds)
        .sum();
  }

  /**
   * The CPU seconds of each stage of {@code hop} in each window; stages under 1% of their window's
   * CPU in every window folded into one row.
   */
  private static Map<String, double[]> stages(List<CpuProfile.Breakdown> windows, String hop) {
    Map<String, double[]> all = new LinkedHashMap<>();
    for (int w = 0; w < windows.size(); w++) {
      for (CpuProfile.Hop h : windows.get(w).hops()) {
        if (h.name().equals(hop)) {
          for (CpuProfile.Stage s : h.stages()) {
            all.computeIfAbsent(s.name(), k -> new double[windows.size()])[w] += s.cpuSeconds();
          }
        }
      }
    }
    Map<String, double[]> kept = new LinkedHashMap<>();
    double[] rest = new double[windows.size()];
    for (var e : all.entrySet()) {
      boolean large = false;
      for (int w = 0; w < windows.size(); w++) {
        large |= e.getValue()[w] >= windows.get(w).cpuSeconds() * SMALL;
      }
      if (large) {
        kept.put(e.getKey(), e.getValue());
      } else {
        for (int w = 0; w < windows.size(); w++) {
          rest[w] += e.getValue()[w];
        }
      }
    }
    if (kept.size() < all.size()) {
      kept.put(REST, rest);
    }
    return kept;
  }
}
