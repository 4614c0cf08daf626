package io.streamplane.cli.history;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A point in time given on the command line ({@code --since}, {@code --until}): an ISO-8601 time
 * ({@code 2026-01-02T03:04:05Z}, with an offset such as {@code +02:00}, or a date, meaning its
 * start in UTC), or a duration meaning that long before now ({@code 90s}, {@code 15m}, {@code 1h},
 * {@code 2d}, {@code 1h30m}), as {@code kubectl logs --since} reads durations plus days.
 */
public final class TimeBound {

  private static final Pattern DURATION = Pattern.compile("(?:\\d+(?:ms|s|m|h|d))+");
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private TimeBound() {}

  public static Instant parse(String text, Instant now) {
    String t = text.trim();
    if (DURATION.matcher(t).matches()) {
      return now.minus(duration(t));
    }
    try {
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeParseException notATime) {
      try {
        return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
      } catch (DateTimeParseException notADate) {
        throw new IllegalArgumentException(
            "'"
                + text
                + "' is neither an ISO-8601 time (2026-01-02T03:04:05Z, 2026-01-02) nor a duration"
                + " (90s, 15m, 1h, 2d, 1h30m)");
      }
    }
  }

  private static Duration duration(String text) {
    Duration total = Duration.ZERO;
    Matcher m = PART.matcher(text);
    while (m.find()) {
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
    }
    return total;
  }
}
