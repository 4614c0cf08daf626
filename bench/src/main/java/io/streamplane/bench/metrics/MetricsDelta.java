package io.streamplane.bench.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a server's own metrics say about a run: the change of a few well-known Kubernetes metrics
 * between a scrape before and one after. Only metrics present in the scrapes appear; a server
 * without them gives no rows.
 *
 * <ul>
 *   <li>{@code apiserver_request_total}: requests by verb and by code;
 *   <li>{@code apiserver_request_duration_seconds}: per verb, requests, mean and p99 estimated from
 *       the buckets' change (linear inside a bucket, as PromQL's histogram_quantile);
 *   <li>{@code scheduler_schedule_attempts_total} by result, {@code workqueue_adds_total} by queue,
 *       {@code process_cpu_seconds_total};
 *   <li>gauges at the end: {@code workqueue_depth} by queue, and every metric whose name has {@code
 *       lag} in it (consumer lag).
 * </ul>
 */
public final class MetricsDelta {

  /** One line of the table: a metric, the label set it sums, its values and change. */
  public record Row(String metric, String labels, double start, double end, double delta) {}

  private MetricsDelta() {}

  public static List<Row> of(Scrape before, Scrape after) {
    List<Row> rows = new ArrayList<>();
    counterBy(rows, before, after, "apiserver_request_total", "verb");
    counterBy(rows, before, after, "apiserver_request_total", "code");
    durations(rows, before, after, "apiserver_request_duration_seconds", "verb");
    counterBy(rows, before, after, "scheduler_schedule_attempts_total", "result");
    counterBy(rows, before, after, "workqueue_adds_total", "name");
    counterBy(rows, before, after, "process_cpu_seconds_total", null);
    gaugeBy(rows, before, after, "workqueue_depth", "name");
    for (String name : after.namesContaining("lag")) {
      gaugeBy(rows, before, after, name, null);
    }
    return rows;
  }

  private static void counterBy(
      List<Row> rows, Scrape before, Scrape after, String name, String label) {
    if (!after.has(name)) {
      return;
    }
    Map<String, Double> start = label == null ? total(before, name) : before.sumBy(name, label);
    Map<String, Double> end = label == null ? total(after, name) : after.sumBy(name, label);
    for (Map.Entry<String, Double> e : end.entrySet()) {
      double s = start.getOrDefault(e.getKey(), 0.0);
      rows.add(new Row(name, labels(label, e.getKey()), s, e.getValue(), e.getValue() - s));
    }
  }

  private static void gaugeBy(
      List<Row> rows, Scrape before, Scrape after, String name, String label) {
    if (!after.has(name)) {
      return;
    }
    Map<String, Double> start = label == null ? total(before, name) : before.sumBy(name, label);
    Map<String, Double> end = label == null ? total(after, name) : after.sumBy(name, label);
    for (Map.Entry<String, Double> e : end.entrySet()) {
      double s = start.getOrDefault(e.getKey(), Double.NaN);
      rows.add(new Row(name, labels(label, e.getKey()), s, e.getValue(), e.getValue() - s));
    }
  }

  private static void durations(
      List<Row> rows, Scrape before, Scrape after, String histogram, String label) {
    if (!after.has(histogram + "_count")) {
      return;
    }
    Map<String, Double> countStart = before.sumBy(histogram + "_count", label);
    Map<String, Double> countEnd = after.sumBy(histogram + "_count", label);
    Map<String, Double> sumStart = before.sumBy(histogram + "_sum", label);
    Map<String, Double> sumEnd = after.sumBy(histogram + "_sum", label);
    for (String key : new TreeSet<>(countEnd.keySet())) {
      double count = countEnd.get(key) - countStart.getOrDefault(key, 0.0);
      if (count <= 0) {
        continue;
      }
      double sum = sumEnd.getOrDefault(key, 0.0) - sumStart.getOrDefault(key, 0.0);
      TreeMap<Double, Double> delta = new TreeMap<>();
      TreeMap<Double, Double> startBuckets = before.buckets(histogram, label, key);
      after
          .buckets(histogram, label, key)
          .forEach((le, c) -> delta.put(le, c - startBuckets.getOrDefault(le, 0.0)));
      String labels = labels(label, key);
      rows.add(new Row(histogram + " (requests)", labels, Double.NaN, Double.NaN, count));
      rows.add(new Row(histogram + " (mean s)", labels, Double.NaN, Double.NaN, sum / count));
      rows.add(
          new Row(histogram + " (p99 s)", labels, Double.NaN, Double.NaN, quantile(0.99, delta)));
    }
  }

  private static Map<String, Double> total(Scrape scrape, String name) {
    return scrape.has(name) ? Map.of("", scrape.sum(name)) : Map.of();
  }

  private static String labels(String label, String value) {
    return label == null ? "" : label + "=" + value;
  }

  /**
   * The {@code q}-quantile of cumulative buckets (upper bound → count), interpolated linearly
   * inside the bucket it falls in; the highest finite bound when it falls in {@code +Inf}.
   */
  public static double quantile(double q, TreeMap<Double, Double> cumulative) {
    if (cumulative.isEmpty()) {
      return Double.NaN;
    }
    double total = cumulative.lastEntry().getValue();
    if (total <= 0) {
      return Double.NaN;
    }
    double rank = q * total;
    double lowerBound = 0;
    double lowerCount = 0;
    for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
      if (bucket.getValue() >= rank) {
        if (bucket.getKey().isInfinite()) {
          return lowerBound;
        }
        double inBucket = bucket.getValue() - lowerCount;
        double fraction = inBucket <= 0 ? 1 : (rank - lowerCount) / inBucket;
        return lowerBound + (bucket.getKey() - lowerBound) * fraction;
      }
      lowerBound = bucket.getKey();
      lowerCount = bucket.getValue();
    }
    return lowerBound;
  }
}
