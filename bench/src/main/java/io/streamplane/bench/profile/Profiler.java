package io.streamplane.bench.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

  /** Starts recording the JVM {@code pid}. */
  public static Profiler start(long pid) throws IOException {
    ThreadCpu.of(pid); // fails now, with the reason, if the process is not there
    Path dir = Files.createTempDirectory("streamplane-profile");
    return new Profiler(pid, dir, FlightRecording.start(pid, dir.resolve("profile.jfr")));
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
