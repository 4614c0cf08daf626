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

  /** A stage below this share of its window's CPU in every window is folded into its hop's rest. */
  private static final double SMALL = 0.01;

  private static final String REST = "(smaller stages)";

  private CpuReport() {}

  /** The Markdown section: hops per window, then each hop's stages per window. */
  public static String markdown(long pid, List<CpuProfile.Breakdown> windows) {
    if (windows.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## Where the CPU goes\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Process %d, profiled while the requests ran: each hop's CPU from its threads' times in"
                + " `/proc/%d/task` at the start and end of each phase, named after their Java"
                + " names; each hop split into stages by the share of the hop's Java stack samples"
                + " (JDK Flight Recorder, `profile` settings, started with `jcmd`) whose frames"
                + " name the stage. Figures are CPU µs per request (CPU of the phase ÷ its"
                + " requests), so they include whatever else the process did meanwhile. Native"
                + " code (RocksDB's C++ under a JNI call, socket system calls) is in its hop's CPU"
                + " but gets no sample of its own: it is spread over the hop's stages. A thread"
                + " that waits for a core while in Java code is sampled as running.%n%n",
            pid,
            pid));
    List<String> header = new ArrayList<>(List.of("hop"));
    StringBuilder align = new StringBuilder("l");
    for (CpuProfile.Breakdown b : windows) {
      header.add(b.window() + " µs");
      align.append('r');
    }
    List<List<String>> rows = new ArrayList<>();
    for (String hop : hops(windows)) {
      List<String> row = new ArrayList<>(List.of(hop));
      for (CpuProfile.Breakdown b : windows) {
        row.add(num(hopMicros(b, hop), 0));
      }
      rows.add(row);
    }
    List<String> totals = new ArrayList<>(List.of("**the process**"));
    for (CpuProfile.Breakdown b : windows) {
      totals.add("**" + num(b.microsPerRequest(), 0) + "**");
    }
    rows.add(totals);
    md.append(Markdown.table(header, align.toString(), rows)).append('\n');
    for (CpuProfile.Breakdown b : windows) {
      md.append(
          String.format(
              Locale.ROOT,
              "- %s: %s requests in %s s, %s s of CPU (%s cores busy on average), %,d Java"
                  + " samples.%n",
              b.window(),
              num(b.requests(), 0),
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
      Map<String, double[]> stages = stages(windows, hop);
      for (var e : stages.entrySet()) {
        List<String> row = new ArrayList<>(List.of(hop, e.getKey()));
        for (double v : e.getValue()) {
          row.add(num(v, 0));
        }
        stageRows.add(row);
      }
    }
    md.append(Markdown.table(stageHeader, "l" + align, stageRows));
    return md.toString();
  }

  /** Two panels for the first window (the creates): CPU µs by hop and by the largest stages. */
  public static SvgFigure panels(SvgFigure figure, List<CpuProfile.Breakdown> windows) {
    if (windows.isEmpty()) {
      return figure;
    }
    CpuProfile.Breakdown first = windows.get(0);
    List<SvgFigure.Bar> hops = new ArrayList<>();
    List<SvgFigure.Bar> stages = new ArrayList<>();
    List<CpuProfile.Stage> all = new ArrayList<>();
    List<String> owners = new ArrayList<>();
    for (CpuProfile.Hop h : first.hops()) {
      if (h.microsPerRequest() >= first.microsPerRequest() * SMALL) {
        hops.add(bar(h.name(), h.microsPerRequest()));
      }
      for (CpuProfile.Stage s : h.stages()) {
        all.add(s);
        owners.add(h.name());
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      order.add(i);
    }
    order.sort(
        (a, b) -> Double.compare(all.get(b).microsPerRequest(), all.get(a).microsPerRequest()));
    for (int i : order.subList(0, Math.min(14, order.size()))) {
      stages.add(bar(owners.get(i) + ": " + all.get(i).name(), all.get(i).microsPerRequest()));
    }
    return figure
        .bars("CPU µs per " + first.window() + " request, by hop", hops)
        .bars("CPU µs per " + first.window() + " request, the largest stages", stages);
  }

  private static SvgFigure.Bar bar(String label, double micros) {
    return new SvgFigure.Bar(label, micros, num(micros, 0) + " µs");
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

  private static double hopMicros(CpuProfile.Breakdown b, String hop) {
    return b.hops().stream()
        .filter(h -> h.name().equals(hop))
        .mapToDouble(CpuProfile.Hop::microsPerRequest)
        .sum();
  }

  /**
   * The stages of {@code hop}, µs per request in each window; stages small in every window folded
   * into one row.
   */
  private static Map<String, double[]> stages(List<CpuProfile.Breakdown> windows, String hop) {
    Map<String, double[]> all = new LinkedHashMap<>();
    for (int w = 0; w < windows.size(); w++) {
      for (CpuProfile.Hop h : windows.get(w).hops()) {
        if (h.name().equals(hop)) {
          for (CpuProfile.Stage s : h.stages()) {
            all.computeIfAbsent(s.name(), k -> new double[windows.size()])[w] +=
                s.microsPerRequest();
          }
        }
      }
    }
    Map<String, double[]> kept = new LinkedHashMap<>();
    double[] rest = new double[windows.size()];
    for (var e : all.entrySet()) {
      boolean large = false;
      for (int w = 0; w < windows.size(); w++) {
        large |= e.getValue()[w] >= windows.get(w).microsPerRequest() * SMALL;
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
