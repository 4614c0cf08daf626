package io.streamplane.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;

/** What every benchmark report needs: chart axis ends and a description of the machine. */
public final class ReportParts {

  private ReportParts() {}

  /** The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is at least {@code value}. */
  public static double niceCeiling(double value) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 2.5, 5, 10}) {
      if (step * magnitude >= value) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  /**
   * The report's machine section up to its own lines: cores, CPU, memory, JVM and OS, a line each.
   */
  public static String machine() {
    return "\n## Machine\n\n"
        + "- `nproc`: "
        + Runtime.getRuntime().availableProcessors()
        + "\n- CPU: "
        + cpuModel()
        + "\n- Memory: "
        + memTotal()
        + "\n- JVM: "
        + System.getProperty("java.vm.name")
        + ' '
        + System.getProperty("java.runtime.version")
        + " (max heap "
        + (Runtime.getRuntime().maxMemory() >> 20)
        + " MiB)\n- OS: "
        + System.getProperty("os.name")
        + ' '
        + System.getProperty("os.version")
        + ' '
        + System.getProperty("os.arch")
        + "\n";
  }

  /** The CPU model names in {@code /proc/cpuinfo}, or "unknown". */
  public static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .distinct()
          .collect(Collectors.joining(", "));
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** The machine's memory from {@code /proc/meminfo}, in GiB, or "unknown". */
  public static String memTotal() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream()
          .filter(l -> l.startsWith("MemTotal:"))
          .map(l -> l.replaceAll("\\D+", ""))
          .map(kb -> String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(kb) / 1024.0 / 1024.0))
          .findFirst()
          .orElse("unknown");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
