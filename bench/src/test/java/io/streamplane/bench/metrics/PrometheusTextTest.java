package io.streamplane.bench.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

  private static final String BEFORE =
      """
      # HELP apiserver_request_total [STABLE] Counter of apiserver requests.
      # TYPE apiserver_request_total counter
      apiserver_request_total{code="200",resource="pods",verb="LIST"} 10
      apiserver_request_total{code="201",resource="pods",verb="POST"} 5
      # TYPE apiserver_request_duration_seconds histogram
      apiserver_request_duration_seconds_bucket{verb="POST",le="0.1"} 4
      apiserver_request_duration_seconds_bucket{verb="POST",le="1"} 5
      apiserver_request_duration_seconds_bucket{verb="POST",le="+Inf"} 5
      apiserver_request_duration_seconds_sum{verb="POST"} 0.5
      apiserver_request_duration_seconds_count{verb="POST"} 5
      workqueue_depth{name="deployment"} 3
      """;

  private static final String AFTER =
      """
      apiserver_request_total{code="200",resource="pods",verb="LIST"} 12
      apiserver_request_total{code="201",resource="pods",verb="POST"} 105
      apiserver_request_total{code="409",resource="pods",verb="POST"} 1 1700000000000
      apiserver_request_duration_seconds_bucket{verb="POST",le="0.1"} 54
      apiserver_request_duration_seconds_bucket{verb="POST",le="1"} 105
      apiserver_request_duration_seconds_bucket{verb="POST",le="+Inf"} 106
      apiserver_request_duration_seconds_sum{verb="POST"} 30.5
      apiserver_request_duration_seconds_count{verb="POST"} 106
      workqueue_depth{name="deployment"} 0
      kafka_consumer_records_lag_max{client_id="store"} 7
      """;

  @Test
  void readsSamplesLabelsTypesAndSpecialValues() {
    Scrape scrape =
        PrometheusText.parse(
            """
            # TYPE up gauge
            up 1
            odd{path="a\\"b\\\\c",x="line\\nbreak"} +Inf
            nan_metric NaN
            not a sample line {{{
            with_ts{a="1"} 2.5e3 1700000000000
            """);

    assertThat(scrape.types()).containsEntry("up", "gauge");
    assertThat(scrape.samples())
        .extracting(PrometheusText.Sample::name)
        .containsExactly("up", "odd", "nan_metric", "with_ts");
    PrometheusText.Sample odd = scrape.samples().get(1);
    assertThat(odd.labels()).containsEntry("path", "a\"b\\c").containsEntry("x", "line\nbreak");
    assertThat(odd.value()).isInfinite();
    assertThat(scrape.samples().get(2).value()).isNaN();
    assertThat(scrape.sum("with_ts")).isEqualTo(2500);
  }

  @Test
  void sumsByOneLabel() {
    Scrape after = PrometheusText.parse(AFTER);

    assertThat(after.sumBy("apiserver_request_total", "verb"))
        .isEqualTo(Map.of("LIST", 12.0, "POST", 106.0));
    assertThat(after.sumBy("apiserver_request_total", "code"))
        .isEqualTo(Map.of("200", 12.0, "201", 105.0, "409", 1.0));
  }

  @Test
  void deltasCountRequestsByVerbAndCodeAndEstimateTheLatencyFromBuckets() {
    List<MetricsDelta.Row> rows =
        MetricsDelta.of(PrometheusText.parse(BEFORE), PrometheusText.parse(AFTER));

    assertThat(rows)
        .contains(
            new MetricsDelta.Row("apiserver_request_total", "verb=POST", 5, 106, 101),
            new MetricsDelta.Row("apiserver_request_total", "code=409", 0, 1, 1),
            new MetricsDelta.Row("workqueue_depth", "name=deployment", 3, 0, -3));
    MetricsDelta.Row mean = row(rows, "apiserver_request_duration_seconds (mean s)");
    assertThat(mean.delta()).isCloseTo(30.0 / 101, within(1e-9));
    MetricsDelta.Row p99 = row(rows, "apiserver_request_duration_seconds (p99 s)");
    // 101 requests in the run: 50 up to 0.1 s, 50 in (0.1, 1], one above 1 s; the p99's rank,
    // 99.99, falls in (0.1, 1].
    assertThat(p99.delta()).isCloseTo(0.1 + 0.9 * (99.99 - 50) / 50, within(1e-9));
    assertThat(row(rows, "kafka_consumer_records_lag_max").end()).isEqualTo(7);
  }

  @Test
  void aServerWithoutKnownMetricsGivesNoRows() {
    Scrape scrape = PrometheusText.parse("go_goroutines 12\n");

    assertThat(MetricsDelta.of(scrape, scrape)).isEmpty();
  }

  @Test
  void quantileInterpolatesInsideTheBucketAndStopsAtTheLastFiniteBound() {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    buckets.put(1.0, 50.0);
    buckets.put(2.0, 100.0);
    buckets.put(Double.POSITIVE_INFINITY, 200.0);

    assertThat(MetricsDelta.quantile(0.25, buckets)).isEqualTo(1.0);
    assertThat(MetricsDelta.quantile(0.375, buckets)).isEqualTo(1.5);
    assertThat(MetricsDelta.quantile(0.99, buckets)).isEqualTo(2.0);
  }

  private static MetricsDelta.Row row(List<MetricsDelta.Row> rows, String metric) {
    return rows.stream().filter(r -> r.metric().equals(metric)).findFirst().orElseThrow();
  }
}
