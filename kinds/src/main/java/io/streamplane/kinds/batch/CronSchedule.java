package io.streamplane.kinds.batch;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A CronJob's schedule as kube-apiserver and kube-controller-manager read it ({@code
 * cron.ParseStandard} of robfig/cron v3): five fields — minute, hour, day of month, month, day of
 * week — each {@code *}, {@code ?}, a value, a range {@code a-b}, a step {@code /n} or a list of
 * these, months and days by their three-letter English names; or a descriptor ({@code @yearly},
 * {@code @annually}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight}, {@code
 * @hourly}, {@code @every <duration>}). The fields are parsed and the times computed by cron-utils'
 * Unix cron definition (when both day fields are restricted, a day matching either is scheduled, as
 * in cron); the descriptors are the five-field expressions robfig expands them to, and {@code
 * @every} a fixed interval.
 *
 * <p>Contract: immutable; {@link #parse} throws {@link IllegalArgumentException} saying what is
 * wrong (cron-utils' wording for a malformed field); {@link #next} is the first scheduled time
 * strictly after the given one, in that time's zone, or null when there is none.
 *
 * <p>Limits: {@code TZ=} and {@code CRON_TZ=} prefixes are refused (the API refuses them and asks
 * for {@code spec.timeZone}); {@code @every} accepts Go durations of hours, minutes and seconds
 * only.
 */
public final class CronSchedule {

  private static final CronParser UNIX =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  /** robfig's descriptors as the five fields it expands them to. */
  private static final Map<String, String> DESCRIPTORS =
      Map.of(
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *",
          "@monthly", "0 0 1 * *",
          "@weekly", "0 0 * * 0",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@hourly", "0 * * * *");

  private static final Pattern GO_DURATION =
      Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?");

  private final ExecutionTime times;
  private final Duration every;

  private CronSchedule(ExecutionTime times, Duration every) {
    this.times = times;
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
    if (trimmed.startsWith("@every ")) {
      return new CronSchedule(null, goDuration(trimmed.substring(7).trim(), trimmed));
    }
    String fields = trimmed;
    if (trimmed.startsWith("@")) {
      fields = DESCRIPTORS.get(trimmed.toLowerCase(Locale.ROOT));
      if (fields == null) {
        throw new IllegalArgumentException("unrecognized descriptor: " + trimmed);
      }
    }
    int count = fields.split("\\s+").length;
    if (count != 5) {
      throw new IllegalArgumentException("expected exactly 5 fields, found " + count);
    }
    try {
      Cron cron = UNIX.parse(fields.replace('?', '*'));
      return new CronSchedule(ExecutionTime.forCron(cron.validate()), null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
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

  /** The first scheduled time strictly after {@code after}, or null when there is none. */
  public ZonedDateTime next(ZonedDateTime after) {
    if (every != null) {
      return after.truncatedTo(ChronoUnit.SECONDS).plus(every);
    }
    return times.nextExecution(after).orElse(null);
  }

  private static Duration goDuration(String text, String spec) {
    Matcher matcher = GO_DURATION.matcher(text);
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
}
