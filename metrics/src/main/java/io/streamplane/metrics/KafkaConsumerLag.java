package io.streamplane.metrics;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * {@code streamplane_kafka_consumer_lag{application, topic, partition}}: how many records a Kafka
 * application has still to read in each partition it is assigned, from its consumers' own {@code
 * records-lag} metric (group {@code consumer-fetch-manager-metrics}), read at each scrape — no
 * thread polls.
 *
 * <p>A Kafka Streams application tracks {@code KafkaStreams::metrics}; its main and global
 * consumers count, its restore consumer (changelogs being restored, standby tasks) does not. Two
 * instances of one application in one JVM that both report a partition (only while a rebalance
 * moves it) report the larger lag. A partition whose lag the client does not know yet (no fetch
 * since it was assigned) is left out. Kafka clients report each partition twice, under the topic's
 * name and, deprecated, with its dots replaced by underscores; only the first is reported here.
 */
public final class KafkaConsumerLag {

  static final String FETCH_MANAGER_GROUP = "consumer-fetch-manager-metrics";
  static final String RECORDS_LAG = "records-lag";

  private static final Map<Object, Source> SOURCES = new ConcurrentHashMap<>();

  static {
    GaugeWithCallback.builder()
        .name("streamplane_kafka_consumer_lag")
        .help(
            "Records a Kafka application has still to read, per assigned partition (its consumers'"
                + " records-lag).")
        .labelNames("application", "topic", "partition")
        .callback(
            callback ->
                collect()
                    .forEach((labels, lag) -> callback.call(lag, labels.toArray(String[]::new))))
        .register();
  }

  private record Source(String application, Supplier<Map<MetricName, ? extends Metric>> metrics) {}

  private KafkaConsumerLag() {}

  /** A tracked client; closing it stops the reporting. */
  public interface Tracked extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Reports the lag of the client whose metrics {@code metrics} returns, as {@code application},
   * until the returned handle is closed.
   */
  public static Tracked track(
      String application, Supplier<Map<MetricName, ? extends Metric>> metrics) {
    Object handle = new Object();
    SOURCES.put(handle, new Source(application, metrics));
    return () -> SOURCES.remove(handle);
  }

  /** (application, topic, partition) → lag, over every tracked client. */
  static Map<List<String>, Double> collect() {
    Map<List<String>, Double> lags = new HashMap<>();
    for (Source source : SOURCES.values()) {
      Map<MetricName, ? extends Metric> metrics;
      try {
        metrics = source.metrics().get();
      } catch (RuntimeException e) {
        continue; // a client closing while it is scraped has nothing to report
      }
      List<Map.Entry<MetricName, ? extends Metric>> partitionLags = new ArrayList<>();
      Set<String> underscoredForms = new HashSet<>();
      for (Map.Entry<MetricName, ? extends Metric> entry : metrics.entrySet()) {
        MetricName name = entry.getKey();
        String topic = name.tags().get("topic");
        String clientId = name.tags().getOrDefault("client-id", "");
        if (RECORDS_LAG.equals(name.name())
            && FETCH_MANAGER_GROUP.equals(name.group())
            && topic != null
            && name.tags().get("partition") != null
            && !clientId.endsWith("-restore-consumer")) {
          partitionLags.add(entry);
          if (topic.contains(".")) {
            underscoredForms.add(topic.replace('.', '_'));
          }
        }
      }
      for (Map.Entry<MetricName, ? extends Metric> entry : partitionLags) {
        String topic = entry.getKey().tags().get("topic");
        String partition = entry.getKey().tags().get("partition");
        if (underscoredForms.contains(topic)) {
          continue;
        }
        if (entry.getValue().metricValue() instanceof Number value
            && !Double.isNaN(value.doubleValue())) {
          lags.merge(
              List.of(source.application(), topic, partition), value.doubleValue(), Math::max);
        }
      }
    }
    return lags;
  }
}
