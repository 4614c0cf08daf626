package io.streamplane.e2e;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code ./streamplane} from the repository root as a real OS process, as a user would, and
 * collects what it prints. Stopping sends SIGINT, the signal Ctrl-C sends.
 */
final class Launcher implements AutoCloseable {

  private final Process process;
  private final List<String> output = new ArrayList<>();
  private final List<ProcessHandle> orphans = new ArrayList<>();

  private Launcher(String label, Process process) {
    this.process = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  synchronized (output) {
                    output.add(line);
                  }
                  System.out.println("[" + label + "] " + line);
                }
              } catch (IOException e) {
                // the process ended; nothing more to read
              }
            },
            "launcher-output");
    reader.setDaemon(true);
    reader.start();
  }

  static Launcher start(String... args) throws IOException {
    return startLabelled("streamplane", args);
  }

  /** Like {@link #start}, with its output prefixed by {@code [label]} rather than the default. */
  static Launcher startLabelled(String label, String... args) throws IOException {
    return startWithJavaOptions(label, null, args);
  }

  /**
   * Like {@link #startLabelled(String, String...)}, with {@code javaOptions} (null: none) passed to
   * the JVM through the launcher script's {@code STREAMPLANE_JAVA_OPTS}.
   */
  static Launcher startWithJavaOptions(String label, String javaOptions, String... args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(repositoryRoot().resolve("streamplane").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(repositoryRoot().toFile()).redirectErrorStream(true);
    if (javaOptions != null) {
      builder.environment().put("STREAMPLANE_JAVA_OPTS", javaOptions);
    }
    return new Launcher(label, builder.start());
  }

  /** Waits until a printed line contains {@code text}, and returns that line. */
  String awaitLine(String text, Duration timeout) {
    await("the launcher to print '" + text + "'")
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> line(text) != null || !process.isAlive());
    String line = line(text);
    if (line == null) {
      throw new AssertionError(
          "the launcher exited ("
              + process.exitValue()
              + ") without printing '"
              + text
              + "':\n"
              + String.join("\n", lines()));
    }
    return line;
  }

  List<String> lines() {
    synchronized (output) {
      return List.copyOf(output);
    }
  }

  private String line(String text) {
    return lines().stream().filter(l -> l.contains(text)).findFirst().orElse(null);
  }

  /** Ctrl-C: SIGINT to the launcher, then waits for it to exit. */
  int interrupt(Duration timeout) throws Exception {
    new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      List<String> output = lines();
      close();
      throw new AssertionError(
          "the launcher did not stop within "
              + timeout
              + "; its last lines:\n"
              + String.join("\n", output.subList(Math.max(0, output.size() - 40), output.size())));
    }
    return process.exitValue();
  }

  /** Waits until the process ends by itself, and returns its exit status. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(
          "the launcher did not exit within " + timeout + ":\n" + String.join("\n", lines()));
    }
    // The reader thread may still be copying the last lines.
    Thread.sleep(200);
    return process.exitValue();
  }

  /** The running process (the JVM: the script execs java), e.g. to find its children. */
  ProcessHandle handle() {
    return process.toHandle();
  }

  /**
   * kill -9: the process ends at once, without running its shutdown hooks. Its children outlive it
   * (as a kubelet's containers outlive the kubelet); {@link #close} ends them.
   */
  void kill() throws InterruptedException {
    orphans.addAll(process.descendants().toList());
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    orphans.forEach(ProcessHandle::destroyForcibly);
  }

  static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isExecutable(dir.resolve("streamplane"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no ./streamplane above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
