package io.streamplane.bench.measure;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people type them on a command line ({@code 60s}, {@code 2m}, {@code 500ms}). */
public final class Durations {

  private static final Pattern SHORT = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  private Durations() {}

  /**
   * Parses {@code 1500ms}, {@code 60s}, {@code 1.5s}, {@code 2m}, {@code 1h}, a plain number of
   * seconds, or ISO-8601 ({@code PT1M}).
   */
  public static Duration parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = SHORT.matcher(t);
    if (m.matches()) {
      double amount = Double.parseDouble(m.group(1));
      double millis =
          switch (m.group(2)) {
            case "ms" -> amount;
            case "s" -> amount * 1_000;
            case "m" -> amount * 60_000;
            default -> amount * 3_600_000;
          };
      return Duration.ofNanos(Math.round(millis * 1_000_000));
    }
    if (t.matches("\\d+(\\.\\d+)?")) {
      return Duration.ofNanos(Math.round(Double.parseDouble(t) * 1_000_000_000));
    }
    try {
      return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration (examples: 500ms, 60s, 2m, 1h, PT1M)");
    }
  }

  /** {@code 850 ms}, {@code 12.3 s}, {@code 4 min 05 s}: for reports and progress lines. */
  public static String human(Duration d) {
    long millis = d.toMillis();
    if (millis < 1_000) {
      return millis + " ms";
    }
    if (millis < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
    return String.format(Locale.ROOT, "%d min %02d s", millis / 60_000, (millis / 1000) % 60);
  }
}
