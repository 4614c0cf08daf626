package io.streamplane.bench.report;

import io.streamplane.bench.measure.LatencySummary;
import java.util.List;
import java.util.Locale;

/** Markdown pieces the reports share: tables and the way numbers are written. */
public final class Markdown {

  private Markdown() {}

  /**
   * A table; {@code align} has one letter per column, {@code l} or {@code r}, and each row as many
   * cells as the header.
   */
  public static String table(List<String> header, String align, List<List<String>> rows) {
    StringBuilder md = new StringBuilder("| ").append(String.join(" | ", header)).append(" |\n|");
    for (int i = 0; i < header.size(); i++) {
      md.append(i < align.length() && align.charAt(i) == 'r' ? "---:|" : "---|");
    }
    md.append('\n');
    for (List<String> row : rows) {
      md.append("| ").append(String.join(" | ", row)).append(" |\n");
    }
    return md.toString();
  }

  /** Milliseconds: {@code 12.3 ms} below 100, {@code 1,234 ms} above; "-" for NaN. */
  public static String ms(double millis) {
    if (Double.isNaN(millis)) {
      return "-";
    }
    return Math.abs(millis) < 100
        ? String.format(Locale.ROOT, "%.1f ms", millis)
        : String.format(Locale.ROOT, "%,.0f ms", millis);
  }

  /** Seconds with one decimal; "-" for NaN. */
  public static String seconds(double seconds) {
    return Double.isNaN(seconds) ? "-" : String.format(Locale.ROOT, "%,.1f s", seconds);
  }

  /** A count or rate with {@code decimals} decimals and thousands separators; "-" for NaN. */
  public static String num(double value, int decimals) {
    return Double.isNaN(value) || Double.isInfinite(value)
        ? "-"
        : String.format(Locale.ROOT, "%,." + decimals + "f", value);
  }

  /** The cells count, p50, p90, p99, max (in ms) of a summary. */
  public static List<String> latencyCells(LatencySummary s) {
    return List.of(num(s.count(), 0), ms(s.p50()), ms(s.p90()), ms(s.p99()), ms(s.max()));
  }

  /** The header matching {@link #latencyCells}. */
  public static final List<String> LATENCY_HEADER = List.of("count", "p50", "p90", "p99", "max");

  /** A row of a {@link #latencyTable}: its name, then {@link #latencyCells}. */
  public static List<String> latencyRow(String name, LatencySummary s) {
    List<String> row = new java.util.ArrayList<>(List.of(name));
    row.addAll(latencyCells(s));
    return row;
  }

  /** A table of {@link #latencyRow}s, its first column headed {@code first}. */
  public static String latencyTable(String first, List<List<String>> rows) {
    List<String> header = new java.util.ArrayList<>(List.of(first));
    header.addAll(LATENCY_HEADER);
    return table(header, "lrrrrr", rows);
  }
}
