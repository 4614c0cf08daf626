package io.streamplane.kinds.batch;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A CronJob's schedule as kube-apiserver and kube-controller-manager read it ({@code
 * cron.ParseStandard} of robfig/cron v3): five fields — minute, hour, day of month, month, day of
 * week — each {@code *}, {@code ?}, a value, a range {@code a-b}, a step {@code /n} or a list of
 * these, months and days by their three-letter English names; or a descriptor ({@code @yearly},
 * {@code @annually}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight}, {@code
 * @hourly}, {@code @every <duration>}). As in cron, when both day fields are restricted a day
 * matching either is scheduled.
 *
 * <p>Contract: immutable; {@link #parse} throws {@link IllegalArgumentException} with robfig's
 * wording; {@link #next} is the first scheduled time strictly after the given one, in that time's
 * zone (a local time skipped by a daylight-saving change is not scheduled, one repeated is
 * scheduled once), or null when none falls in the next five years.
 *
 * <p>Limits: {@code TZ=} and {@code CRON_TZ=} prefixes are refused here (the API refuses them and
 * asks for {@code spec.timeZone}); {@code @every} accepts Go durations of hours, minutes and
 * seconds only.
 */
public final class CronSchedule {

  private static final Map<String, Integer> MONTHS =
      names("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec");
  private static final Map<String, Integer> DAYS =
      Map.of("sun", 0, "mon", 1, "tue", 2, "wed", 3, "thu", 4, "fri", 5, "sat", 6);

  private static final long STAR = 1L << 63;

  private final long minutes;
  private final long hours;
  private final long daysOfMonth;
  private final long months;
  private final long daysOfWeek;
  private final Duration every;

  private CronSchedule(
      long minutes, long hours, long daysOfMonth, long months, long daysOfWeek, Duration every) {
    this.minutes = minutes;
    this.hours = hours;
    this.daysOfMonth = daysOfMonth;
    this.months = months;
    this.daysOfWeek = daysOfWeek;
    this.every = every;
  }

  public static CronSchedule parse(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("empty spec string");
    }
    String trimmed = spec.trim();
    if (trimmed.startsWith("TZ=") || trimmed.startsWith("CRON_TZ=")) {
      throw new IllegalArgumentException("cannot use TZ or CRON_TZ in schedule");
    }
    if (trimmed.startsWith("@")) {
      return descriptor(trimmed);
    }
    String[] fields = trimmed.split("\\s+");
    if (fields.length != 5) {
      throw new IllegalArgumentException(
          "expected exactly 5 fields, found " + fields.length + ": " + Arrays.toString(fields));
    }
    long dom = field(fields[2], 1, 31, null);
    long dow = field(fields[4], 0, 6, DAYS);
    return new CronSchedule(
        field(fields[0], 0, 59, null),
        field(fields[1], 0, 23, null),
        dom,
        field(fields[3], 1, 12, MONTHS),
        dow,
        null);
  }

  /** Whether {@code spec} parses; the parse error's message otherwise, null when it does. */
  public static String error(String spec) {
    try {
      parse(spec);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** The first scheduled time strictly after {@code after}, or null within five years. */
  public ZonedDateTime next(ZonedDateTime after) {
    if (every != null) {
      return after.truncatedTo(ChronoUnit.SECONDS).plus(every);
    }
    ZonedDateTime t = after.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
    ZonedDateTime limit = after.plusYears(5);
    while (t.isBefore(limit)) {
      if (!has(months, t.getMonthValue())) {
        t = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1);
        continue;
      }
      if (!dayMatches(t)) {
        t = t.truncatedTo(ChronoUnit.DAYS).plusDays(1);
        continue;
      }
      if (!has(hours, t.getHour())) {
        t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
        continue;
      }
      if (!has(minutes, t.getMinute())) {
        t = t.plusMinutes(1);
        continue;
      }
      return t;
    }
    return null;
  }

  private boolean dayMatches(ZonedDateTime t) {
    boolean dom = has(daysOfMonth, t.getDayOfMonth());
    boolean dow = has(daysOfWeek, t.getDayOfWeek().getValue() % 7);
    if ((daysOfMonth & STAR) != 0 || (daysOfWeek & STAR) != 0) {
      return dom && dow;
    }
    return dom || dow;
  }

  private static boolean has(long bits, int value) {
    return (bits & (1L << value)) != 0;
  }

  private static CronSchedule descriptor(String spec) {
    long all = STAR;
    return switch (spec) {
      case "@yearly", "@annually" ->
          new CronSchedule(1, 1, 1 << 1, 1 << 1, range(0, 6) | all, null);
      case "@monthly" ->
          new CronSchedule(1, 1, 1 << 1, range(1, 12) | all, range(0, 6) | all, null);
      case "@weekly" -> new CronSchedule(1, 1, range(1, 31) | all, range(1, 12) | all, 1, null);
      case "@daily", "@midnight" ->
          new CronSchedule(1, 1, range(1, 31) | all, range(1, 12) | all, range(0, 6) | all, null);
      case "@hourly" ->
          new CronSchedule(
              1,
              range(0, 23) | all,
              range(1, 31) | all,
              range(1, 12) | all,
              range(0, 6) | all,
              null);
      default -> {
        if (spec.startsWith("@every ")) {
          yield new CronSchedule(0, 0, 0, 0, 0, goDuration(spec.substring(7).trim(), spec));
        }
        throw new IllegalArgumentException("unrecognized descriptor: " + spec);
      }
    };
  }

  private static Duration goDuration(String text, String spec) {
    var matcher =
        java.util.regex.Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?").matcher(text);
    if (text.isEmpty() || !matcher.matches()) {
      throw new IllegalArgumentException("failed to parse duration " + spec + ": invalid duration");
    }
    Duration d = Duration.ZERO;
    if (matcher.group(1) != null) {
      d = d.plusHours(Long.parseLong(matcher.group(1)));
    }
    if (matcher.group(2) != null) {
      d = d.plusMinutes(Long.parseLong(matcher.group(2)));
    }
    if (matcher.group(3) != null) {
      d = d.plusSeconds(Long.parseLong(matcher.group(3)));
    }
    return d.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : d;
  }

  /** One field: a comma-separated list of ranges, as robfig's {@code getField}. */
  private static long field(String text, int min, int max, Map<String, Integer> names) {
    long bits = 0;
    for (String expr : text.split(",")) {
      bits |= range(expr, min, max, names);
    }
    return bits;
  }

  private static long range(String expr, int min, int max, Map<String, Integer> names) {
    String[] rangeAndStep = expr.split("/", -1);
    String[] lowAndHigh = rangeAndStep[0].split("-", -1);
    boolean single = lowAndHigh.length == 1;
    int start;
    int end;
    long extra = 0;
    if (lowAndHigh[0].equals("*") || lowAndHigh[0].equals("?")) {
      start = min;
      end = max;
      extra = STAR;
    } else {
      start = value(lowAndHigh[0], names);
      if (lowAndHigh.length == 1) {
        end = start;
      } else if (lowAndHigh.length == 2) {
        end = value(lowAndHigh[1], names);
      } else {
        throw new IllegalArgumentException("too many hyphens: " + expr);
      }
    }
    int step;
    if (rangeAndStep.length == 1) {
      step = 1;
    } else if (rangeAndStep.length == 2) {
      step = number(rangeAndStep[1]);
      if (single) {
        end = max;
      }
      if (step > 1) {
        extra = 0;
      }
    } else {
      throw new IllegalArgumentException("too many slashes: " + expr);
    }
    if (start < min) {
      throw new IllegalArgumentException(
          "beginning of range (" + start + ") below minimum (" + min + "): " + expr);
    }
    if (end > max) {
      throw new IllegalArgumentException(
          "end of range (" + end + ") above maximum (" + max + "): " + expr);
    }
    if (start > end) {
      throw new IllegalArgumentException(
          "beginning of range (" + start + ") beyond end of range (" + end + "): " + expr);
    }
    if (step == 0) {
      throw new IllegalArgumentException("step of range should be a positive number: " + expr);
    }
    long bits = 0;
    for (int i = start; i <= end; i += step) {
      bits |= 1L << i;
    }
    return bits | extra;
  }

  private static long range(int min, int max) {
    long bits = 0;
    for (int i = min; i <= max; i++) {
      bits |= 1L << i;
    }
    return bits;
  }

  private static int value(String text, Map<String, Integer> names) {
    if (names != null) {
      Integer named = names.get(text.toLowerCase(Locale.ROOT));
      if (named != null) {
        return named;
      }
    }
    return number(text);
  }

  private static int number(String text) {
    try {
      int n = Integer.parseInt(text);
      if (n < 0) {
        throw new IllegalArgumentException("negative number (" + n + ") not allowed: " + text);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "failed to parse int from "
              + text
              + ": strconv.Atoi: parsing \""
              + text
              + "\": invalid syntax");
    }
  }

  private static Map<String, Integer> names(String... ordered) {
    Map<String, Integer> map = new java.util.HashMap<>();
    List<String> list = List.of(ordered);
    for (int i = 0; i < list.size(); i++) {
      map.put(list.get(i), i + 1);
    }
    return Map.copyOf(map);
  }
}
