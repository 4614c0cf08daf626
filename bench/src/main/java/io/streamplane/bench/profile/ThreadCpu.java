package io.streamplane.bench.profile;

import io.streamplane.bench.measure.ProcessCpu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU time of every thread of another process at one moment, from {@code
 * /proc/PID/task/TID/stat} and {@code comm} (Linux only), with the process's own total: the total
 * also holds the time of threads that ended before the moment.
 *
 * @param threads CPU seconds by OS thread id
 * @param names each thread's OS name ({@code comm}: the JVM's thread name cut to 15 characters)
 * @param totalSeconds the process's user + system CPU seconds
 */
public record ThreadCpu(Map<Long, Double> threads, Map<Long, String> names, double totalSeconds) {

  /**
   * Reads the threads of {@code pid}.
   *
   * @throws IOException when the process is not there or its threads cannot be listed
   */
  public static ThreadCpu of(long pid) throws IOException {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    Map<Long, Double> threads = new HashMap<>();
    Map<Long, String> names = new HashMap<>();
    try (Stream<Path> list = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) list::iterator) {
        long tid;
        try {
          tid = Long.parseLong(task.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        try {
          threads.put(tid, ProcessCpu.cpuSeconds(Files.readString(task.resolve("stat"))));
          names.put(tid, Files.readString(task.resolve("comm")).strip());
        } catch (IOException e) {
          // The thread ended while the list was read: its time is in the process's total.
        }
      }
    }
    double total = ProcessCpu.read(pid);
    if (total < 0) {
      throw new IOException("cannot read /proc/" + pid + "/stat: is the process running?");
    }
    return new ThreadCpu(Map.copyOf(threads), Map.copyOf(names), total);
  }

  /**
   * The CPU seconds each thread used since {@code before} (a thread started since counts from 0),
   * by OS thread id.
   */
  public Map<Long, Double> since(ThreadCpu before) {
    Map<Long, Double> used = new HashMap<>();
    threads.forEach(
        (tid, seconds) -> used.put(tid, seconds - before.threads.getOrDefault(tid, 0.0)));
    return used;
  }
}
