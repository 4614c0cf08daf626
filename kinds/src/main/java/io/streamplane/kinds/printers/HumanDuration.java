package io.streamplane.kinds.printers;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * Ages as kubectl shows them: Kubernetes' {@code duration.HumanDuration} ("5s", "3m20s", "10m",
 * "2h5m", "3d4h", "2y") and the printers' {@code translateTimestampSince}.
 *
 * <p>Contract: the precision drops as the duration grows, exactly at Kubernetes' thresholds;
 * durations down to -1s print "0s" (clock skew between machines), below that "&lt;invalid&gt;". A
 * missing or unparsable timestamp prints "&lt;unknown&gt;".
 */
public final class HumanDuration {

  private HumanDuration() {}

  public static String format(Duration d) {
    long seconds = d.getSeconds() + (d.isNegative() && d.getNano() > 0 ? 1 : 0);
    if (seconds < -1) {
      return "<invalid>";
    } else if (seconds < 0) {
      return "0s";
    } else if (seconds < 60 * 2) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      long s = seconds % 60;
      return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
    } else if (minutes < 60 * 3) {
      return minutes + "m";
    }
    long hours = seconds / 3600;
    if (hours < 8) {
      long m = minutes % 60;
      return m == 0 ? hours + "h" : hours + "h" + m + "m";
    } else if (hours < 48) {
      return hours + "h";
    } else if (hours < 24 * 8) {
      long h = hours % 24;
      return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
    } else if (hours < 24 * 365 * 2) {
      return hours / 24 + "d";
    } else if (hours < 24 * 365 * 8) {
      long dy = (hours / 24) % 365;
      return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
    }
    return hours / 24 / 365 + "y";
  }

  /** The age of an RFC 3339 timestamp field at {@code now}. */
  public static String since(JsonNode timestamp, Instant now) {
    return parse(timestamp).map(t -> format(Duration.between(t, now))).orElse("<unknown>");
  }

  public static java.util.Optional<Instant> parse(JsonNode timestamp) {
    if (timestamp == null || !timestamp.isTextual() || timestamp.asText().isEmpty()) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(OffsetDateTime.parse(timestamp.asText()).toInstant());
    } catch (DateTimeParseException e) {
      return java.util.Optional.empty();
    }
  }
}
