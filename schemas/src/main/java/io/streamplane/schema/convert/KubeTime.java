package io.streamplane.schema.convert;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Kubernetes' two timestamp wire forms: {@code metav1.Time} (RFC 3339, whole seconds, e.g. {@code
 * 2024-05-01T10:00:00Z}) for {@code timestamp-millis} fields and {@code metav1.MicroTime} (always
 * six fractional digits, e.g. {@code 2024-05-01T10:00:00.123456Z}) for {@code timestamp-micros}
 * fields. Both are written in UTC; input may carry any offset.
 */
final class KubeTime {

  private static final DateTimeFormatter MICRO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter SECONDS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  private KubeTime() {}

  /**
   * Parses an RFC 3339 timestamp and truncates it to what the wire form keeps: the API server
   * stores metav1.Time with whole seconds, so the Avro value does too and a round trip is exact.
   */
  static Optional<Instant> parse(String text, boolean micros) {
    try {
      Instant instant =
          OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
      return Optional.of(instant.truncatedTo(micros ? ChronoUnit.MICROS : ChronoUnit.SECONDS));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  static String format(Instant instant, boolean micros) {
    return micros ? MICRO.format(instant) : SECONDS.format(instant);
  }

  /** The Avro long for an instant: epoch milliseconds or microseconds. */
  static long toEpoch(Instant instant, boolean micros) {
    if (!micros) {
      return instant.toEpochMilli();
    }
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
  }

  static Instant fromEpoch(long value, boolean micros) {
    if (!micros) {
      return Instant.ofEpochMilli(value);
    }
    return Instant.ofEpochSecond(
        Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1_000L);
  }
}
