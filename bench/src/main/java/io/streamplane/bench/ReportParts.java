package io.streamplane.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What every benchmark report needs: the opening of an SVG chart, axis ends, text escaping and a
 * description of the machine.
 */
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

  /** An SVG document's opening tag and white background, {@code width} by {@code height} px. */
  public static String svgOpen(int width, int height) {
    return String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            width,
            height,
            width,
            height)
        + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  }

  /** {@code text} safe inside an SVG or XML element or attribute. */
  public static String xml(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
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
