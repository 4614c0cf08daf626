package io.streamplane.bench.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time used by another process, from {@code /proc/PID/stat} (utime + stime, in clock ticks).
 * Linux only; {@link #read} answers -1 when the process or the file is not there.
 */
public final class ProcessCpu {

  /** Linux's USER_HZ on every architecture the JDK runs on; sysconf is out of Java's reach. */
  public static final int CLOCK_TICKS_PER_SECOND = 100;

  private ProcessCpu() {}

  /** The process's user + system CPU time in seconds, or -1 when it cannot be read. */
  public static double read(long pid) {
    try {
      return cpuSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * utime + stime from one {@code /proc/PID/stat} line, in seconds. The command name (field 2) is
   * in parentheses and may itself hold spaces and parentheses, so fields are counted after the last
   * ')'.
   */
  public static double cpuSeconds(String stat) {
    String[] rest = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
    long utime = Long.parseLong(rest[11]);
    long stime = Long.parseLong(rest[12]);
    return (utime + stime) / (double) CLOCK_TICKS_PER_SECOND;
  }
}
