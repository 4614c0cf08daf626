package io.streamplane.bench.scenario.idle;

import io.streamplane.kafka.KafkaClientSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The records a topic received between two sets of offsets, decoded and counted by a classification
 * (verb, resource, actor). Read with {@code read_committed}, as every Streamplane reader reads, so
 * aborted records are not counted; a record that cannot be decoded is counted as such, with the
 * reason.
 */
final class LogBreakdown {

  /** One class of records and how many were read. */
  record Row(String verb, String resource, String actor, long records) {}

  /** The rows, most frequent first; records read; undecodable ones; whether the end was reached. */
  record Result(
      List<Row> rows, long records, long undecodable, String firstError, boolean complete) {}

  private LogBreakdown() {}

  static <T> Result read(
      String bootstrapServers,
      String topic,
      Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> to,
      Function<byte[], T> decode,
      Function<T, Row> classify,
      Duration timeout) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    Map<Row, Long> counts = new HashMap<>();
    long records = 0;
    long undecodable = 0;
    String firstError = null;
    boolean complete;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          to.keySet().stream().filter(p -> p.topic().equals(topic)).toList();
      consumer.assign(partitions);
      partitions.forEach(p -> consumer.seek(p, from.getOrDefault(p, to.get(p))));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!(complete = partitions.stream().allMatch(p -> consumer.position(p) >= to.get(p)))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          TopicPartition p = new TopicPartition(record.topic(), record.partition());
          if (record.offset() >= to.get(p)) {
            continue;
          }
          records++;
          if (record.value() == null) {
            counts.merge(new Row("(tombstone)", "", "", 0), 1L, Long::sum);
            continue;
          }
          try {
            Row row = classify.apply(decode.apply(record.value()));
            counts.merge(new Row(row.verb(), row.resource(), row.actor(), 0), 1L, Long::sum);
          } catch (RuntimeException e) {
            undecodable++;
            if (firstError == null) {
              firstError = e.toString();
            }
          }
        }
      }
    }
    List<Row> rows = new ArrayList<>();
    counts.forEach((k, n) -> rows.add(new Row(k.verb(), k.resource(), k.actor(), n)));
    rows.sort(
        Comparator.comparingLong(Row::records)
            .reversed()
            .thenComparing(Row::verb)
            .thenComparing(Row::resource)
            .thenComparing(Row::actor));
    return new Result(rows, records, undecodable, firstError, complete);
  }
}
