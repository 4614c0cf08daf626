package io.streamplane.node.logs;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What part of a container log to read, as Kubernetes' {@code PodLogOptions} says it: {@code
 * tailLines} (the last N lines), {@code since} (lines stamped at or after it; from {@code
 * sinceSeconds} or {@code sinceTime}), {@code timestamps} (prefix each line with its RFC3339Nano
 * timestamp and a space), {@code limitBytes} (stop after that many bytes of output), {@code follow}
 * (keep reading while the container runs) and {@code previous} (the previous attempt's file).
 */
public record LogOptions(
    boolean follow,
    boolean previous,
    OptionalLong tailLines,
    Optional<Instant> since,
    boolean timestamps,
    OptionalLong limitBytes) {

  /** The whole log, once, without timestamps. */
  public static LogOptions all() {
    return new LogOptions(
        false, false, OptionalLong.empty(), Optional.empty(), false, OptionalLong.empty());
  }

  public LogOptions withFollow(boolean follow) {
    return new LogOptions(follow, previous, tailLines, since, timestamps, limitBytes);
  }

  public LogOptions withTailLines(long lines) {
    return new LogOptions(follow, previous, OptionalLong.of(lines), since, timestamps, limitBytes);
  }

  public LogOptions withSince(Instant time) {
    return new LogOptions(follow, previous, tailLines, Optional.of(time), timestamps, limitBytes);
  }

  public LogOptions withTimestamps(boolean timestamps) {
    return new LogOptions(follow, previous, tailLines, since, timestamps, limitBytes);
  }

  public LogOptions withLimitBytes(long bytes) {
    return new LogOptions(follow, previous, tailLines, since, timestamps, OptionalLong.of(bytes));
  }

  /** A query that cannot be decoded (kubelet: 400 "Unable to decode query."). */
  public static final class DecodeException extends IllegalArgumentException {
    DecodeException(String message) {
      super(message);
    }
  }

  /**
   * A decoded query that PodLogOptions validation rejects (kubelet: 422 "Invalid request."); the
   * messages are validation's, field by field.
   */
  public static final class InvalidException extends IllegalArgumentException {
    private final List<String> errors;

    InvalidException(List<String> errors) {
      super(String.join(", ", errors));
      this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
      return errors;
    }
  }

  /**
   * Decodes the query parameters of a log request ({@code follow}, {@code previous}, {@code
   * tailLines}, {@code timestamps}, {@code sinceSeconds}, {@code sinceTime}, {@code limitBytes});
   * {@code sinceSeconds} counts back from {@code now}. Others (e.g. {@code
   * insecureSkipTLSVerifyBackend}) are ignored.
   */
  public static LogOptions parse(Map<String, String> query, Instant now) {
    boolean follow = bool(query, "follow");
    boolean previous = bool(query, "previous");
    boolean timestamps = bool(query, "timestamps");
    OptionalLong tail = number(query, "tailLines");
    OptionalLong sinceSeconds = number(query, "sinceSeconds");
    OptionalLong limit = number(query, "limitBytes");
    Optional<Instant> sinceTime = Optional.empty();
    String rawSince = query.get("sinceTime");
    if (rawSince != null && !rawSince.isEmpty()) {
      try {
        sinceTime = Optional.of(OffsetDateTime.parse(rawSince).toInstant());
      } catch (DateTimeParseException e) {
        throw new DecodeException("sinceTime: " + e.getMessage());
      }
    }
    List<String> errors = new ArrayList<>();
    if (tail.isPresent() && tail.getAsLong() < 0) {
      errors.add(
          "tailLines: Invalid value: " + tail.getAsLong() + ": must be greater than or equal to 0");
    }
    if (limit.isPresent() && limit.getAsLong() < 1) {
      errors.add("limitBytes: Invalid value: " + limit.getAsLong() + ": must be greater than 0");
    }
    if (sinceSeconds.isPresent() && sinceTime.isPresent()) {
      errors.add(
          "sinceSeconds: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be"
              + " specified");
    } else if (sinceSeconds.isPresent() && sinceSeconds.getAsLong() < 1) {
      errors.add(
          "sinceSeconds: Invalid value: " + sinceSeconds.getAsLong() + ": must be greater than 0");
    }
    if (!errors.isEmpty()) {
      throw new InvalidException(errors);
    }
    Optional<Instant> since =
        sinceSeconds.isPresent()
            ? Optional.of(now.minus(Duration.ofSeconds(sinceSeconds.getAsLong())))
            : sinceTime;
    return new LogOptions(follow, previous, tail, since, timestamps, limit);
  }

  /** Go's strconv.ParseBool, which Kubernetes' query decoding uses. */
  private static boolean bool(Map<String, String> query, String name) {
    String value = query.get(name);
    if (value == null || value.isEmpty()) {
      return false;
    }
    return switch (value) {
      case "1", "t", "T", "TRUE", "true", "True" -> true;
      case "0", "f", "F", "FALSE", "false", "False" -> false;
      default -> throw new DecodeException(name + ": not a boolean: " + value);
    };
  }

  private static OptionalLong number(Map<String, String> query, String name) {
    String value = query.get(name);
    if (value == null || value.isEmpty()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(value.trim().toLowerCase(Locale.ROOT)));
    } catch (NumberFormatException e) {
      throw new DecodeException(name + ": not a number: " + value);
    }
  }
}
