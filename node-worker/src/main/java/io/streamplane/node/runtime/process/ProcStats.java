package io.streamplane.node.runtime.process;

import io.streamplane.node.runtime.PodRuntime.ContainerUsage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What processes use, read from Linux's {@code /proc} as the kubelet's stats providers read the
 * kernel's accounting: CPU time from {@code /proc/<pid>/stat} ({@code utime + stime}, in clock
 * ticks of 1/100 s, the value of {@code CLK_TCK} on every Linux the JVM runs on), resident memory
 * from {@code /proc/<pid>/statm} (resident pages of 4 KiB), and the machine's from {@code
 * /proc/stat} and {@code /proc/meminfo}. Processes that end while they are read count as nothing.
 */
final class ProcStats {

  static final long NANOS_PER_TICK = 10_000_000L;
  static final long PAGE_BYTES = 4096;

  private ProcStats() {}

  /** A process and everything it started, summed. */
  static ContainerUsage ofTree(ProcessHandle root) {
    long cpu = 0;
    long memory = 0;
    List<ProcessHandle> all = Stream.concat(Stream.of(root), root.descendants()).toList();
    for (ProcessHandle process : all) {
      cpu += cpuNanos(process.pid());
      memory += residentBytes(process.pid());
    }
    return new ContainerUsage(cpu, memory);
  }

  static long cpuNanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // The command name (field 2) is in parentheses and may hold spaces: count after it.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  static long residentBytes(long pid) {
    try {
      String[] fields = Files.readString(Path.of("/proc/" + pid + "/statm")).trim().split(" ");
      return Long.parseLong(fields[1]) * PAGE_BYTES;
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
