package io.streamplane.bench.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Profiles another JVM on this machine around windows of requests: a Flight Recorder recording for
 * the whole run, the threads' CPU at each window's start and end; {@link #finish} stops the
 * recording, breaks every window down ({@link CpuProfile}) and deletes the recording.
 */
public final class Profiler implements AutoCloseable {

  private final long pid;
  private final Path dir;
  private final FlightRecording recording;
  private final List<CpuProfile.Window> windows = new ArrayList<>();
  private String open;
  private Instant openedAt;
  private ThreadCpu openedWith;

  private Profiler(long pid, Path dir, FlightRecording recording) {
    this.pid = pid;
    this.dir = dir;
    this.recording = recording;
  }

  /**
   * How long a recording runs before a window may open. Starting one makes the JVM compile the
   * recorder's own code: on the default {@code up}, 2 minutes after its start, a window opened at
   * once found the JIT compiler's threads at 44% of a core of the process's 66%, where they take
   * about 8% at that age without a recording, and 32 clients created 24 ConfigMaps a second in the
   * first 5 s instead of 300.
   */
  public static final Duration SETTLE = Duration.ofSeconds(45);

  /** Starts recording the JVM {@code pid} and waits {@link #SETTLE}. */
  public static Profiler start(long pid) throws IOException, InterruptedException {
    return start(pid, SETTLE);
  }

  /** Starts recording the JVM {@code pid} and waits {@code settle}. */
  public static Profiler start(long pid, Duration settle) throws IOException, InterruptedException {
    ThreadCpu.of(pid); // fails now, with the reason, if the process is not there
    Path dir = Files.createTempDirectory("streamplane-profile");
    Profiler profiler =
        new Profiler(pid, dir, FlightRecording.start(pid, dir.resolve("profile.jfr")));
    System.err.printf(
        "profile: recording process %d; waiting %d s for the JVM to compile the recorder%n",
        pid, settle.toSeconds());
    Thread.sleep(settle.toMillis());
    return profiler;
  }

  /** Opens the window {@code name}, from now on. */
  public void begin(String name) {
    open = name;
    openedWith = read();
    openedAt = Instant.now();
  }

  /** Closes the open window, of {@code requests} requests. */
  public void end(int requests) {
    Instant now = Instant.now();
    windows.add(new CpuProfile.Window(open, requests, openedAt, now, openedWith, read()));
    open = null;
  }

  /** Stops the recording and breaks down every window closed. */
  public List<CpuProfile.Breakdown> finish() throws IOException {
    try {
      return CpuProfile.of(recording.stop(), windows);
    } finally {
      close();
    }
  }

  @Override
  public void close() throws IOException {
    try {
      recording.close();
    } finally {
      Files.deleteIfExists(dir.resolve("profile.jfr"));
      Files.deleteIfExists(dir);
    }
  }

  private ThreadCpu read() {
    try {
      return ThreadCpu.of(pid);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
