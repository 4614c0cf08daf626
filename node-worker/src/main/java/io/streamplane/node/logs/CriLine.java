package io.streamplane.node.logs;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Arrays;
import java.util.Optional;

/**
 * One record of a container log file in the CRI format kubelet reads: {@code <timestamp> <stream>
 * <F|P> <content>\n}. {@code P} marks a chunk of a line that continues in the next record of the
 * same stream; {@code F} ends the line.
 *
 * <p>Timestamps are written and printed as Go's {@code time.RFC3339Nano} does — UTC, trailing zeros
 * of the fraction dropped (and the dot with them) — because kubelet re-formats them that way for
 * {@code kubectl logs --timestamps}. Parsing accepts any RFC 3339 offset and fraction.
 */
record CriLine(Instant time, String stream, boolean partial, byte[] content) {

  static final DateTimeFormatter RFC3339_NANO =
      new DateTimeFormatterBuilder()
          .appendPattern("uuuu-MM-dd'T'HH:mm:ss")
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .appendLiteral('Z')
          .toFormatter()
          .withZone(ZoneOffset.UTC);

  static String format(Instant time) {
    return RFC3339_NANO.format(time);
  }

  /** The record as bytes, newline included. */
  static byte[] encode(Instant time, String stream, boolean partial, byte[] content, int length) {
    byte[] head =
        (format(time) + " " + stream + " " + (partial ? "P" : "F") + " ")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] record = Arrays.copyOf(head, head.length + length + 1);
    System.arraycopy(content, 0, record, head.length, length);
    record[record.length - 1] = '\n';
    return record;
  }

  /**
   * Parses one record without its newline; empty for a malformed one (kubelet skips those too
   * rather than failing the whole read).
   */
  static Optional<CriLine> parse(byte[] record, int length) {
    int first = indexOf(record, 0, length);
    int second = first < 0 ? -1 : indexOf(record, first + 1, length);
    int third = second < 0 ? -1 : indexOf(record, second + 1, length);
    if (third < 0 || third - second != 2) {
      return Optional.empty();
    }
    Instant time;
    try {
      time =
          OffsetDateTime.parse(new String(record, 0, first, StandardCharsets.US_ASCII)).toInstant();
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
    String stream = new String(record, first + 1, second - first - 1, StandardCharsets.US_ASCII);
    byte tag = record[second + 1];
    if (tag != 'F' && tag != 'P') {
      return Optional.empty();
    }
    return Optional.of(
        new CriLine(time, stream, tag == 'P', Arrays.copyOfRange(record, third + 1, length)));
  }

  private static int indexOf(byte[] bytes, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] == ' ') {
        return i;
      }
    }
    return -1;
  }
}
