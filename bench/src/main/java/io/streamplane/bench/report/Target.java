package io.streamplane.bench.report;

import java.util.Locale;

/**
 * A figure the run should stay at or below ({@code --target}): what it is, the limit, what was
 * measured, and in which unit. Not measured at all (NaN) counts as missed.
 */
public record Target(String what, double limit, double actual, String unit) {

  public boolean met() {
    return !Double.isNaN(actual) && actual <= limit;
  }

  /** One sentence: met with how much to spare, or missed by how much. */
  public String verdict() {
    if (Double.isNaN(actual)) {
      return String.format(
          Locale.ROOT, "**missed**: %s was not measured (target ≤ %s)", what, value(limit));
    }
    double gap = Math.abs(limit - actual);
    String share = limit > 0 ? String.format(Locale.ROOT, ", %.0f%% ", 100 * gap / limit) : " ";
    return met()
        ? String.format(
            Locale.ROOT,
            "**met**: %s was %s, target ≤ %s (%s%sbelow it)",
            what,
            value(actual),
            value(limit),
            value(gap),
            share)
        : String.format(
            Locale.ROOT,
            "**missed** by %s%sover: %s was %s, target ≤ %s",
            value(gap),
            share,
            what,
            value(actual),
            value(limit));
  }

  private String value(double v) {
    return (v == Math.rint(v) || Math.abs(v) >= 100
            ? String.format(Locale.ROOT, "%,.0f", v)
            : String.format(Locale.ROOT, "%,.2f", v))
        + ' '
        + unit;
  }
}
