package io.streamplane.cli.audit;

import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.AuditEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads the {@code audit} topic: every partition, from its first record stamped at or after {@code
 * since} (offsetsForTimes; from the beginning without it) to the end offsets seen when the scan
 * starts, then, when following, on and on as records arrive. Each record is decoded and handed to
 * the filter's caller; {@link #scanned} counts records read, for the rate shown while scanning.
 * Assigned partitions, no consumer group: nothing is committed, any number of readers may scan.
 *
 * <p>Limits: the records of the scanned range are all decoded (the key is the audit id, nothing a
 * filter selects on); a partition added while following is not read.
 */
final class AuditLogScan implements AutoCloseable {

  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String topic;
  private final Deserializer<AuditEvent> values;
  private final AtomicLong scanned = new AtomicLong();
  private final AtomicLong total = new AtomicLong();

  AuditLogScan(String bootstrapServers, String topic, Deserializer<AuditEvent> values) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "streamplane-audit");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    this.consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.topic = topic;
    this.values = values;
  }

  long scanned() {
    return scanned.get();
  }

  /** Records in the historic range, known once the scan has started (0 before). */
  long total() {
    return total.get();
  }

  /**
   * Hands every record of the historic range to {@code historic}, in no particular order across
   * partitions, then runs {@code caughtUp}; then, if {@code follow}, hands every later record to
   * {@code live} as it arrives, until the thread is interrupted or {@link #wakeup} is called.
   */
  void scan(
      Instant since,
      boolean follow,
      Consumer<AuditEvent> historic,
      Runnable caughtUp,
      Consumer<AuditEvent> live) {
    List<PartitionInfo> partitions = consumer.partitionsFor(topic, METADATA_TIMEOUT);
    if (partitions == null || partitions.isEmpty()) {
      throw new IllegalStateException("topic " + topic + " does not exist");
    }
    List<TopicPartition> tps = new ArrayList<>();
    for (PartitionInfo p : partitions) {
      tps.add(new TopicPartition(topic, p.partition()));
    }
    consumer.assign(tps);
    Map<TopicPartition, Long> end = consumer.endOffsets(tps, METADATA_TIMEOUT);
    Map<TopicPartition, Long> start = startOffsets(tps, since, end);
    long toRead = 0;
    for (TopicPartition tp : tps) {
      consumer.seek(tp, start.get(tp));
      toRead += end.get(tp) - start.get(tp);
    }
    total.set(toRead);
    List<ConsumerRecord<byte[], byte[]>> early = new ArrayList<>();
    try {
      while (!caughtUp(tps, end)) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
          TopicPartition tp = new TopicPartition(record.topic(), record.partition());
          if (record.offset() >= end.get(tp)) {
            // Written after the scan began: live, handed on once the history is out.
            if (follow) {
              early.add(record);
            }
            continue;
          }
          scanned.incrementAndGet();
          historic.accept(decode(record));
        }
      }
      caughtUp.run();
      for (ConsumerRecord<byte[], byte[]> record : early) {
        live.accept(decode(record));
      }
      while (follow) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
          live.accept(decode(record));
        }
      }
    } catch (WakeupException | InterruptException e) {
      // Stopped while following (Ctrl-C) or scanning: what was read so far stands.
      Thread.interrupted();
    }
  }

  /** Ends a {@link #scan} from another thread. */
  void wakeup() {
    consumer.wakeup();
  }

  private AuditEvent decode(ConsumerRecord<byte[], byte[]> record) {
    return record.value() == null ? null : values.deserialize(topic, record.value());
  }

  private boolean caughtUp(List<TopicPartition> tps, Map<TopicPartition, Long> end) {
    for (TopicPartition tp : tps) {
      if (consumer.position(tp) < end.get(tp)) {
        return false;
      }
    }
    return true;
  }

  private Map<TopicPartition, Long> startOffsets(
      List<TopicPartition> tps, Instant since, Map<TopicPartition, Long> end) {
    if (since == null) {
      return consumer.beginningOffsets(tps, METADATA_TIMEOUT);
    }
    Map<TopicPartition, Long> query = new HashMap<>();
    for (TopicPartition tp : tps) {
      query.put(tp, since.toEpochMilli());
    }
    Map<TopicPartition, OffsetAndTimestamp> found =
        consumer.offsetsForTimes(query, METADATA_TIMEOUT);
    Map<TopicPartition, Long> start = new HashMap<>();
    for (TopicPartition tp : tps) {
      OffsetAndTimestamp at = found.get(tp);
      start.put(tp, at == null ? end.get(tp) : Math.min(at.offset(), end.get(tp)));
    }
    return start;
  }

  @Override
  public void close() {
    consumer.close();
  }
}
