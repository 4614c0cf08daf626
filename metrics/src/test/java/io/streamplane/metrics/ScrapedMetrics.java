package io.streamplane.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Prometheus text exposition, parsed into samples, for tests to read what a scraper reads: the
 * default registry's ({@link #scrape()}) or any served text ({@link #parse}).
 */
public final class ScrapedMetrics {

  /** One line of the exposition: {@code name{labels} value}. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private final String text;
  private final List<Sample> samples;

  private ScrapedMetrics(String text, List<Sample> samples) {
    this.text = text;
    this.samples = samples;
  }

  /** The default registry, written as the Prometheus text format (0.0.4) and read back. */
  public static ScrapedMetrics scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, PrometheusRegistry.defaultRegistry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return parse(out.toString(StandardCharsets.UTF_8));
  }

  /** Parses a Prometheus text exposition; comment lines are kept only in {@link #text()}. */
  public static ScrapedMetrics parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      samples.add(sample(line));
    }
    return new ScrapedMetrics(text, samples);
  }

  public String text() {
    return text;
  }

  public List<Sample> samples() {
    return samples;
  }

  /**
   * The sum of the samples called {@code name} that carry every label of {@code labels} (pairs:
   * {@code "verb", "GET", "code", "200"}); 0 when there is none.
   */
  public double value(String name, String... labels) {
    return matching(name, labels).stream().mapToDouble(Sample::value).sum();
  }

  /** Whether some sample called {@code name} carries every label of {@code labels}. */
  public boolean has(String name, String... labels) {
    return !matching(name, labels).isEmpty();
  }

  public List<Sample> matching(String name, String... labels) {
    if (labels.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in name, value pairs");
    }
    List<Sample> found = new ArrayList<>();
    for (Sample sample : samples) {
      if (!sample.name().equals(name)) {
        continue;
      }
      boolean all = true;
      for (int i = 0; i < labels.length; i += 2) {
        all &= labels[i + 1].equals(sample.labels().get(labels[i]));
      }
      if (all) {
        found.add(sample);
      }
    }
    return found;
  }

  private static Sample sample(String line) {
    int brace = line.indexOf('{');
    int space = line.indexOf(' ');
    if (brace < 0 || brace > space) {
      String[] parts = line.split(" ");
      return new Sample(parts[0], Map.of(), value(parts[1]));
    }
    String name = line.substring(0, brace);
    Map<String, String> labels = new LinkedHashMap<>();
    int i = brace + 1;
    while (line.charAt(i) != '}') {
      int eq = line.indexOf('=', i);
      String label = line.substring(i, eq);
      StringBuilder value = new StringBuilder();
      int j = eq + 2; // past ="
      for (; line.charAt(j) != '"'; j++) {
        char c = line.charAt(j);
        if (c == '\\') {
          char next = line.charAt(++j);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
      }
      labels.put(label, value.toString());
      i = j + 1;
      if (line.charAt(i) == ',') {
        i++;
      }
    }
    String rest = line.substring(i + 1).trim();
    int end = rest.indexOf(' ');
    return new Sample(name, labels, value(end < 0 ? rest : rest.substring(0, end)));
  }

  private static double value(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }
}
