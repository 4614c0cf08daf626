package io.streamplane.bench.measure;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The progress line a running scenario shows on stderr: phase, a bar, done/total, the phase's rate
 * and the elapsed time. On a terminal it is one line rewritten in place four times a second;
 * otherwise (a log file, CI) a full line every five seconds. {@link #close} prints the last state.
 *
 * <p>The status comes from a supplier polled by a daemon thread, so the scenario only keeps its
 * counters up to date. The rate is the phase's: counted from when the phase name last changed.
 */
public final class Progress implements AutoCloseable {

  /**
   * What to show: {@code done} of {@code total} {@code unit} in {@code phase}; total 0: no bar; an
   * empty unit: only the phase, the elapsed time and the detail.
   */
  public record Status(String phase, long done, long total, String unit, String detail) {
    public static Status of(String phase, long done, long total, String unit) {
      return new Status(phase, done, total, unit, "");
    }
  }

  private static final int BAR_WIDTH = 24;

  private final PrintStream out;
  private final boolean terminal;
  private final Supplier<Status> status;
  private final long started = System.nanoTime();
  private final Thread thread;
  private String phase;
  private long phaseStarted = started;
  private long phaseStartDone;
  private volatile boolean closed;

  private Progress(PrintStream out, boolean terminal, Supplier<Status> status) {
    this.out = out;
    this.terminal = terminal;
    this.status = status;
    this.thread = new Thread(this::loop, "bench-progress");
    this.thread.setDaemon(true);
  }

  /**
   * Starts showing {@code status} on stderr; a terminal is detected with {@link System#console}.
   */
  public static Progress start(Supplier<Status> status) {
    return start(System.err, System.console() != null, status);
  }

  public static Progress start(PrintStream out, boolean terminal, Supplier<Status> status) {
    Progress progress = new Progress(out, terminal, status);
    try {
      Status first = status.get();
      progress.phase = first.phase();
      progress.phaseStartDone = first.done();
    } catch (RuntimeException e) {
      // The first line will start the phase instead.
    }
    progress.thread.start();
    return progress;
  }

  private void loop() {
    // The status is read four times a second everywhere, so a phase's start is seen when it
    // happens; off a terminal only every twentieth reading is printed.
    long printEvery = terminal ? 1 : 20;
    for (long tick = 1; !closed; tick++) {
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        return;
      }
      if (!closed) {
        show(false, tick % printEvery == 0);
      }
    }
  }

  private synchronized void show(boolean last, boolean print) {
    Status s;
    try {
      s = status.get();
    } catch (RuntimeException e) {
      return;
    }
    long now = System.nanoTime();
    if (!s.phase().equals(phase)) {
      phase = s.phase();
      phaseStarted = now;
      phaseStartDone = s.done();
    }
    if (!print) {
      return;
    }
    double phaseSeconds = (now - phaseStarted) / 1e9;
    double rate = phaseSeconds > 0 ? (s.done() - phaseStartDone) / phaseSeconds : 0;
    String line = render(s, Duration.ofNanos(now - started), rate);
    if (terminal) {
      out.print("\r" + line + "\u001b[K" + (last ? "\n" : ""));
    } else {
      out.println(line);
    }
    out.flush();
  }

  /** One progress line, without control characters. */
  public static String render(Status s, Duration elapsed, double ratePerSecond) {
    StringBuilder line = new StringBuilder(s.phase()).append(' ');
    if (s.unit().isEmpty()) {
      line.append(human(elapsed));
    } else if (s.total() > 0) {
      int filled = (int) Math.min(BAR_WIDTH, BAR_WIDTH * s.done() / s.total());
      line.append('[')
          .append("#".repeat(filled))
          .append("-".repeat(BAR_WIDTH - filled))
          .append("] ")
          .append(String.format(Locale.ROOT, "%,d/%,d %s", s.done(), s.total(), s.unit()));
    } else {
      line.append(String.format(Locale.ROOT, "%,d %s", s.done(), s.unit()));
    }
    if (!s.unit().isEmpty()) {
      line.append(String.format(Locale.ROOT, "  %,.1f/s  %s", ratePerSecond, human(elapsed)));
    }
    if (!s.detail().isEmpty()) {
      line.append("  ").append(s.detail());
    }
    return line.toString();
  }

  private static String human(Duration d) {
    long s = d.toSeconds();
    return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    thread.interrupt();
    show(true, true);
  }
}
