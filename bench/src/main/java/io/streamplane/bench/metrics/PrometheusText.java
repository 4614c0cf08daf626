package io.streamplane.bench.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parser for the Prometheus text exposition format (version 0.0.4, what {@code /metrics} of
 * kube-apiserver and most exporters serve): {@code # TYPE} lines and samples {@code
 * name{label="value",...} value [timestamp]}, with escaped label values and {@code NaN}/{@code
 * +Inf}. {@code # HELP} lines and timestamps are read past; a line it cannot read is skipped, so a
 * scrape with one odd line still gives the rest.
 */
public final class PrometheusText {

  private PrometheusText() {}

  /** One sample. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  public static Scrape parse(String text) {
    List<Sample> samples = new ArrayList<>();
    Map<String, String> types = new HashMap<>();
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("#")) {
        String[] parts = line.split("\\s+", 4);
        if (parts.length >= 4 && parts[1].equals("TYPE")) {
          types.put(parts[2], parts[3].trim());
        }
        continue;
      }
      try {
        samples.add(sample(line));
      } catch (RuntimeException e) {
        // An unreadable line: skipped, as promised above.
      }
    }
    return new Scrape(samples, types);
  }

  private static Sample sample(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && !Character.isWhitespace(line.charAt(i))) {
      i++;
    }
    String name = line.substring(0, i);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (true) {
        while (line.charAt(i) == ',' || line.charAt(i) == ' ') {
          i++;
        }
        if (line.charAt(i) == '}') {
          i++;
          break;
        }
        int eq = line.indexOf('=', i);
        String label = line.substring(i, eq).trim();
        i = eq + 1;
        if (line.charAt(i) != '"') {
          throw new IllegalArgumentException("unquoted label value");
        }
        i++;
        StringBuilder value = new StringBuilder();
        for (char c = line.charAt(i); c != '"'; c = line.charAt(i)) {
          if (c == '\\') {
            char next = line.charAt(++i);
            value.append(next == 'n' ? '\n' : next);
          } else {
            value.append(c);
          }
          i++;
        }
        i++;
        labels.put(label, value.toString());
      }
    }
    String[] rest = line.substring(i).trim().split("\\s+");
    return new Sample(name, Map.copyOf(labels), number(rest[0]));
  }

  private static double number(String text) {
    return switch (text) {
      case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }
}
