package io.streamplane.bench.measure;

import java.util.Arrays;
import java.util.Collection;

/**
 * Order statistics of a set of measurements (latencies in milliseconds, usually): count, min, mean,
 * p50, p90, p99 and max.
 *
 * <p>Percentiles use the nearest-rank method, as Kubernetes' clusterloader2 does for its latency
 * SLIs: the p-th percentile of n sorted values is the value at rank {@code ceil(p/100 * n)}, so it
 * is always one of the measured values and p100 is the maximum. An empty set has NaN statistics.
 */
public record LatencySummary(
    int count, double min, double mean, double p50, double p90, double p99, double max) {

  public static final LatencySummary EMPTY =
      new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

  public static LatencySummary of(Collection<? extends Number> values) {
    return of(values.stream().mapToDouble(Number::doubleValue).toArray());
  }

  public static LatencySummary of(double[] values) {
    if (values.length == 0) {
      return EMPTY;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return new LatencySummary(
        sorted.length,
        sorted[0],
        Arrays.stream(sorted).average().orElse(Double.NaN),
        percentile(sorted, 50),
        percentile(sorted, 90),
        percentile(sorted, 99),
        sorted[sorted.length - 1]);
  }

  /** The nearest-rank {@code p}-th percentile of {@code sorted} (ascending, not empty). */
  public static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    if (p <= 0) {
      return sorted[0];
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }
}
