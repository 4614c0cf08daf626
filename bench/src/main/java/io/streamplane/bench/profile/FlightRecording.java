package io.streamplane.bench.profile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JDK Flight Recorder recording of another JVM on this machine, started and stopped with {@code
 * jcmd} (the JDK's own tool, from the running JDK's {@code bin}), with the JDK's {@code profile}
 * settings: a Java stack sampled every 10 ms from the threads running Java code.
 */
public final class FlightRecording implements AutoCloseable {

  private static final String NAME = "streamplane-bench";

  private final long pid;
  private final Path file;
  private boolean stopped;

  private FlightRecording(long pid, Path file) {
    this.pid = pid;
    this.file = file;
  }

  /** Starts recording {@code pid} into {@code file}. */
  public static FlightRecording start(long pid, Path file) throws IOException {
    jcmd(pid, "JFR.start", "name=" + NAME, "settings=profile", "filename=" + file.toAbsolutePath());
    return new FlightRecording(pid, file);
  }

  /** Stops the recording and answers its file. */
  public Path stop() throws IOException {
    if (!stopped) {
      stopped = true;
      jcmd(pid, "JFR.stop", "name=" + NAME);
    }
    return file;
  }

  @Override
  public void close() throws IOException {
    stop();
  }

  private static void jcmd(long pid, String... command) throws IOException {
    List<String> args = new ArrayList<>();
    args.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    args.add(Long.toString(pid));
    args.addAll(List.of(command));
    Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
    String output;
    try {
      output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("jcmd " + pid + " " + command[0] + " did not end within 60 s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    // jcmd answers 0 even when the command failed in the target JVM; its output says so.
    if (process.exitValue() != 0 || output.contains("Could not") || output.contains("Exception")) {
      throw new IOException(
          "jcmd " + pid + " " + String.join(" ", command) + ": " + output.strip());
    }
  }
}
