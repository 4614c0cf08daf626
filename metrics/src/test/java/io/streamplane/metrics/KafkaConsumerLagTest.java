package io.streamplane.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class KafkaConsumerLagTest {

  private final Map<MetricName, Metric> metrics = new HashMap<>();

  @Test
  void theMainConsumersRecordsLagIsReportedPerApplicationTopicAndPartition() {
    lag("app-StreamThread-1-consumer", "sp.events", "3", 42.0);
    lag("app-StreamThread-1-consumer", "sp.events", "4", 0.0);

    try (KafkaConsumerLag.Tracked tracked =
        KafkaConsumerLag.track("lag-test-main", () -> metrics)) {
      ScrapedMetrics scraped = ScrapedMetrics.scrape();

      assertThat(
              scraped.value(
                  "streamplane_kafka_consumer_lag",
                  "application",
                  "lag-test-main",
                  "topic",
                  "sp.events",
                  "partition",
                  "3"))
          .isEqualTo(42.0);
      assertThat(
              scraped.has(
                  "streamplane_kafka_consumer_lag",
                  "application",
                  "lag-test-main",
                  "partition",
                  "4"))
          .isTrue();
    }
  }

  @Test
  void restoreConsumersUnknownLagsAndOtherMetricsAreLeftOut() {
    lag("app-StreamThread-1-restore-consumer", "app-objects-changelog", "0", 7.0);
    lag("app-StreamThread-1-consumer", "sp.commands", "1", Double.NaN);
    metrics.put(
        new MetricName(
            "records-lag-max",
            KafkaConsumerLag.FETCH_MANAGER_GROUP,
            "",
            Map.of("client-id", "app-StreamThread-1-consumer")),
        metric(99.0));

    try (KafkaConsumerLag.Tracked tracked =
        KafkaConsumerLag.track("lag-test-excluded", () -> metrics)) {
      assertThat(
              ScrapedMetrics.scrape()
                  .has("streamplane_kafka_consumer_lag", "application", "lag-test-excluded"))
          .isFalse();
    }
  }

  @Test
  void theDeprecatedUnderscoredTopicNameIsNotReportedBesideTheRealOne() {
    lag("app-StreamThread-1-consumer", "sp.events", "2", 3.0);
    lag("app-StreamThread-1-consumer", "sp_events", "2", 3.0);
    lag("app-StreamThread-1-consumer", "app-by_node-repartition", "2", 1.0);

    try (KafkaConsumerLag.Tracked tracked =
        KafkaConsumerLag.track("lag-test-underscored", () -> metrics)) {
      ScrapedMetrics scraped = ScrapedMetrics.scrape();

      assertThat(
              scraped
                  .matching("streamplane_kafka_consumer_lag", "application", "lag-test-underscored")
                  .stream()
                  .map(sample -> sample.labels().get("topic")))
          .containsExactlyInAnyOrder("sp.events", "app-by_node-repartition");
    }
  }

  @Test
  void anUntrackedClientIsNoLongerReported() {
    lag("app-StreamThread-1-consumer", "sp.events", "0", 5.0);
    KafkaConsumerLag.Tracked tracked = KafkaConsumerLag.track("lag-test-closed", () -> metrics);

    tracked.close();

    assertThat(
            ScrapedMetrics.scrape()
                .has("streamplane_kafka_consumer_lag", "application", "lag-test-closed"))
        .isFalse();
  }

  private void lag(String clientId, String topic, String partition, double value) {
    metrics.put(
        new MetricName(
            KafkaConsumerLag.RECORDS_LAG,
            KafkaConsumerLag.FETCH_MANAGER_GROUP,
            "",
            Map.of("client-id", clientId, "topic", topic, "partition", partition)),
        metric(value));
  }

  private static Metric metric(double value) {
    return new Metric() {
      @Override
      public MetricName metricName() {
        return null;
      }

      @Override
      public Object metricValue() {
        return value;
      }
    };
  }
}
