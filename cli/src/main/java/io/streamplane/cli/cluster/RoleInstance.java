package io.streamplane.cli.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One process of a local cluster — a Kafka broker or a role instance — and its directory in the run
 * directory: {@code args} (the full command line, one argument per line), {@code pid} (while
 * started) and {@code log} (its standard output and error). The process runs in its own session
 * with that directory as working directory, so it outlives the command that started it and a Ctrl-C
 * in that terminal does not reach it.
 *
 * <p>A pid is trusted only while the process it names carries this instance's directory on its
 * command line ({@code -Dstreamplane.instance=<dir>}): a pid reused by another process after a
 * crash is never signalled.
 */
record RoleInstance(String name, Path dir) {

  static final String INSTANCE_PROPERTY = "-Dstreamplane.instance=";

  Path argsFile() {
    return dir.resolve("args");
  }

  Path pidFile() {
    return dir.resolve("pid");
  }

  Path logFile() {
    return dir.resolve("log");
  }

  List<String> args() {
    try {
      return Files.readAllLines(argsFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + argsFile(), e);
    }
  }

  void writeArgs(List<String> args) throws IOException {
    Files.createDirectories(dir);
    Files.write(argsFile(), args);
  }

  /** The running process of this instance, if any. */
  Optional<ProcessHandle> process() {
    if (!Files.exists(pidFile())) {
      return Optional.empty();
    }
    long pid;
    try {
      pid = Long.parseLong(Files.readString(pidFile()).trim());
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
    String marker = INSTANCE_PROPERTY + dir.toAbsolutePath();
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(
            p ->
                p.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false)
                    || p.info().commandLine().map(c -> c.contains(marker)).orElse(false));
  }

  /** Starts the process from {@code args}, appending to {@code log}, and records its pid. */
  ProcessHandle start() throws IOException {
    List<String> command = new ArrayList<>();
    command.add("setsid");
    command.addAll(args());
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .start();
    // setsid execs in place (the child of a JVM is no process group leader): same pid.
    Files.writeString(pidFile(), process.pid() + "\n");
    return process.toHandle();
  }

  /** The kind of process: the name without its instance number ({@code kafka}, {@code gateway}). */
  String kind() {
    int dash = name.lastIndexOf('-');
    return dash < 0 ? name : name.substring(0, dash);
  }

  /** Stops {@code instances} together (SIGTERM to all, then waits); one line per instance. */
  static List<String> stopAll(List<RoleInstance> instances, Duration grace) {
    ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, instances.size()));
    try {
      List<CompletableFuture<String>> stops = new ArrayList<>();
      for (RoleInstance instance : instances) {
        stops.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return instance.name() + ": " + instance.stop(grace);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return instance.name() + ": interrupted";
                  }
                },
                threads));
      }
      return stops.stream().map(CompletableFuture::join).toList();
    } finally {
      threads.shutdown();
    }
  }

  /**
   * Stops the process with SIGTERM and waits up to {@code grace} for it to exit, then kills it with
   * SIGKILL; returns what happened, for the console.
   */
  String stop(Duration grace) throws InterruptedException {
    Optional<ProcessHandle> running = process();
    if (running.isEmpty()) {
      return "not running";
    }
    ProcessHandle process = running.get();
    long started = System.nanoTime();
    process.destroy();
    try {
      process.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
      return "stopped in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms";
    } catch (TimeoutException | ExecutionException e) {
      process.destroyForcibly();
      return "killed: still running " + grace.toSeconds() + " s after SIGTERM";
    } finally {
      try {
        Files.deleteIfExists(pidFile());
      } catch (IOException e) {
        // The stale pid file is harmless: the instance marker check ignores a foreign process.
      }
    }
  }
}
