package io.streamplane.cli.history;

import io.streamplane.gateway.history.ObjectVersion;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.ResourceKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads the versions of one resource key from the {@code events} topic: only the partition the key
 * hashes to, from its beginning (or from the first offset at {@code since}) to the end offset seen
 * when the scan starts, read_committed. Keys are compared as bytes and only the values of matching
 * records are decoded, so the cost is one fetch of that partition plus one decode per version.
 *
 * <p>Limits: the whole partition is read, so the cost grows with the partition, not with the
 * object's history; records written after the scan started are not included; {@code until} filters
 * by record timestamp and does not stop the scan early, as timestamps are the producers' and need
 * not be in offset order.
 */
public final class EventLogScan {

  /** One version of the object: its event and where and when the log has it. */

  /** Told how far the scan is, after every poll: records read of the records to read. */
  public interface Progress {
    void update(long scanned, long total);
  }

  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

  private final String bootstrapServers;
  private final String topic;
  private final Deserializer<ResourceEvent> values;

  public EventLogScan(String bootstrapServers, String topic, Deserializer<ResourceEvent> values) {
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    this.values = values;
  }

  /** The versions of {@code key} stamped in [{@code since}, {@code until}] (null: unbounded). */
  public List<ObjectVersion> versions(
      ResourceKey key, Instant since, Instant until, Progress progress) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "streamplane-history");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic, METADATA_TIMEOUT);
      if (partitions == null || partitions.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist");
      }
      TopicPartition tp = new TopicPartition(topic, key.partition(partitions.size()));
      consumer.assign(List.of(tp));
      long end = consumer.endOffsets(List.of(tp), METADATA_TIMEOUT).get(tp);
      long start = startOffset(consumer, tp, since, end);
      consumer.seek(tp, start);
      byte[] wanted = key.toString().getBytes(StandardCharsets.UTF_8);
      long sinceMs = since == null ? Long.MIN_VALUE : since.toEpochMilli();
      long untilMs = until == null ? Long.MAX_VALUE : until.toEpochMilli();
      List<ObjectVersion> versions = new ArrayList<>();
      long position = start;
      while (position < end) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
          if (record.offset() >= end) {
            break;
          }
          // offsetsForTimes finds the first record stamped at or after since; later records may
          // carry older producer timestamps, so both bounds are checked on every record.
          if (record.value() == null
              || !Arrays.equals(record.key(), wanted)
              || record.timestamp() < sinceMs
              || record.timestamp() > untilMs) {
            continue;
          }
          versions.add(
              new ObjectVersion(
                  Instant.ofEpochMilli(record.timestamp()),
                  record.partition(),
                  record.offset(),
                  values.deserialize(topic, record.value())));
        }
        position = consumer.position(tp);
        progress.update(Math.min(position, end) - start, end - start);
      }
      return versions;
    }
  }

  private static long startOffset(
      KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, Instant since, long end) {
    if (since == null) {
      return consumer.beginningOffsets(List.of(tp), METADATA_TIMEOUT).get(tp);
    }
    Map<TopicPartition, OffsetAndTimestamp> found =
        consumer.offsetsForTimes(Map.of(tp, since.toEpochMilli()), METADATA_TIMEOUT);
    OffsetAndTimestamp at = found.get(tp);
    return at == null ? end : Math.min(at.offset(), end);
  }
}
