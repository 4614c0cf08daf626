package io.streamplane.cli.replay;

import java.util.Locale;

/**
 * How fast one phase of a replay went: the records and bytes a {@link LogReader} handed on between
 * {@link #start} and {@link #stop}, decoding and folding included, over the phase's wall time.
 */
final class ReplayRate {

  private final long startRecords;
  private final long startBytes;
  private final long startNanos;
  private long records;
  private long bytes;
  private long nanos;

  private ReplayRate(long startRecords, long startBytes) {
    this.startRecords = startRecords;
    this.startBytes = startBytes;
    this.startNanos = System.nanoTime();
  }

  static ReplayRate start(LogReader reader) {
    return new ReplayRate(reader.read(), reader.bytes());
  }

  void stop(LogReader reader) {
    nanos = System.nanoTime() - startNanos;
    records = reader.read() - startRecords;
    bytes = reader.bytes() - startBytes;
  }

  long records() {
    return records;
  }

  double megabytes() {
    return bytes / 1e6;
  }

  double seconds() {
    return nanos / 1e9;
  }

  /** {@code replayed N events (X MB) in S s: R events/s, M MB/s}. */
  String line(String unit) {
    double s = Math.max(seconds(), 1e-9);
    double mb = bytes / 1e6;
    return String.format(
        Locale.ROOT,
        "replayed %,d %s (%.1f MB) in %.2f s: %,.0f %s/s, %.1f MB/s",
        records,
        unit,
        mb,
        seconds(),
        records / s,
        unit,
        mb / s);
  }
}
