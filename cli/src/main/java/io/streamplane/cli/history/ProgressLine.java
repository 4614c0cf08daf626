package io.streamplane.cli.history;

import java.io.PrintWriter;

/**
 * The scan's progress on stderr, rewritten in place ({@code \r}) at most every 200 ms, and only
 * once the scan has taken more than a second, so quick scans print nothing.
 */
final class ProgressLine implements EventLogScan.Progress {

  private static final long SHOW_AFTER_NANOS = 1_000_000_000L;
  private static final long EVERY_NANOS = 200_000_000L;

  private final PrintWriter err;
  private final long started = System.nanoTime();
  private long lastShown;
  private boolean shown;
  private long scanned;
  private long total;

  ProgressLine(PrintWriter err) {
    this.err = err;
  }

  @Override
  public void update(long scanned, long total) {
    this.scanned = scanned;
    this.total = total;
    long now = System.nanoTime();
    if (now - started > SHOW_AFTER_NANOS && (!shown || now - lastShown > EVERY_NANOS)) {
      show(now);
    }
  }

  /** Ends the line with the final count, if the progress was shown at all. */
  void finish() {
    if (shown) {
      show(System.nanoTime());
      err.println();
      err.flush();
    }
  }

  private void show(long now) {
    double seconds = (now - started) / 1e9;
    err.printf(
        "\rscanned %d/%d records (%.0f records/s)",
        scanned, total, scanned / Math.max(seconds, 1e-9));
    err.flush();
    shown = true;
    lastShown = now;
  }
}
