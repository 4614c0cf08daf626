package io.streamplane.bench.metrics;

import io.streamplane.bench.metrics.PrometheusText.Sample;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** One scrape of a {@code /metrics} endpoint: its samples and declared metric types. */
public record Scrape(List<Sample> samples, Map<String, String> types) {

  public boolean has(String name) {
    return samples.stream().anyMatch(s -> s.name().equals(name));
  }

  /** The names of the metric families whose name contains {@code part}. */
  public TreeSet<String> namesContaining(String part) {
    TreeSet<String> names = new TreeSet<>();
    samples.stream().map(Sample::name).filter(n -> n.contains(part)).forEach(names::add);
    return names;
  }

  /** The sum of {@code name}'s samples. */
  public double sum(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).mapToDouble(Sample::value).sum();
  }

  /** The sum of {@code name}'s samples grouped by the value of {@code label} ("" when absent). */
  public Map<String, Double> sumBy(String name, String label) {
    Map<String, Double> sums = new TreeMap<>();
    for (Sample s : samples) {
      if (s.name().equals(name)) {
        sums.merge(s.labels().getOrDefault(label, ""), s.value(), Double::sum);
      }
    }
    return sums;
  }

  /**
   * A histogram's cumulative bucket counts by upper bound ({@code le}), summed over every series
   * whose {@code label} is {@code value} (all series when label is null).
   */
  public TreeMap<Double, Double> buckets(String histogram, String label, String value) {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    for (Sample s : samples) {
      if (s.name().equals(histogram + "_bucket")
          && (label == null || value.equals(s.labels().getOrDefault(label, "")))) {
        String le = s.labels().get("le");
        double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
        buckets.merge(bound, s.value(), Double::sum);
      }
    }
    return buckets;
  }
}
