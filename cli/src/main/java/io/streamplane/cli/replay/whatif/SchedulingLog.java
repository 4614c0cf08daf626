package io.streamplane.cli.replay.whatif;

import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.ResourceEvent;
import io.streamplane.scheduler.whatif.WhatIfWindow;
import io.streamplane.scheduler.whatif.WindowBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads the Node and Pod events of the {@code events} topic, every partition from its beginning to
 * the end offset seen when the read starts (read_committed), and folds those stamped up to {@code
 * until} into a {@link WhatIfWindow}. Keys are compared as bytes ({@code pods./...}, {@code
 * nodes./...}) and only those records are decoded.
 *
 * <p>Order: the partitions are merged by record timestamp (the command's time), then partition,
 * then offset. Within a key, that is the order the store wrote; across keys it is the order the
 * commands were made, to the millisecond.
 *
 * <p>Limits: the whole topic is read (the state at {@code from} needs every earlier event), and the
 * Node and Pod events up to {@code until} are held in memory until they are sorted.
 */
final class SchedulingLog {

  /** Told how far the read is: records read of the records to read. */
  interface Progress {
    void update(long read, long total);
  }

  private record Entry(long timestamp, int partition, long offset, byte[] value) {}

  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);
  private static final byte[] PODS = "pods./".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NODES = "nodes./".getBytes(StandardCharsets.UTF_8);

  private final String bootstrapServers;
  private final String topic;
  private final Deserializer<ResourceEvent> values;

  SchedulingLog(String bootstrapServers, String topic, Deserializer<ResourceEvent> values) {
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    this.values = values;
  }

  WhatIfWindow window(Instant from, Instant until, Progress progress) {
    long untilMs = until.toEpochMilli();
    List<Entry> entries = new ArrayList<>();
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "streamplane-what-if");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic, METADATA_TIMEOUT);
      if (partitions == null || partitions.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist");
      }
      List<TopicPartition> tps =
          partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(tps);
      Map<TopicPartition, Long> start = consumer.beginningOffsets(tps, METADATA_TIMEOUT);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, METADATA_TIMEOUT);
      consumer.seekToBeginning(tps);
      long total = 0;
      for (TopicPartition tp : tps) {
        total += end.get(tp) - start.get(tp);
      }
      List<TopicPartition> open = new ArrayList<>();
      List<TopicPartition> empty = new ArrayList<>();
      for (TopicPartition tp : tps) {
        (end.get(tp) > start.get(tp) ? open : empty).add(tp);
      }
      consumer.pause(empty);
      while (!open.isEmpty()) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
          TopicPartition tp = new TopicPartition(record.topic(), record.partition());
          if (record.offset() >= end.get(tp)
              || record.value() == null
              || record.timestamp() > untilMs
              || !(startsWith(record.key(), PODS) || startsWith(record.key(), NODES))) {
            continue;
          }
          entries.add(
              new Entry(record.timestamp(), record.partition(), record.offset(), record.value()));
        }
        long read = 0;
        List<TopicPartition> done = new ArrayList<>();
        for (TopicPartition tp : open) {
          long position = consumer.position(tp);
          if (position >= end.get(tp)) {
            done.add(tp);
          }
        }
        open.removeAll(done);
        for (TopicPartition tp : tps) {
          read +=
              open.contains(tp)
                  ? consumer.position(tp) - start.get(tp)
                  : end.get(tp) - start.get(tp);
        }
        consumer.pause(done);
        progress.update(read, total);
      }
    }
    entries.sort(
        Comparator.comparingLong(Entry::timestamp)
            .thenComparingInt(Entry::partition)
            .thenComparingLong(Entry::offset));
    WindowBuilder builder = new WindowBuilder(from, until);
    for (Entry e : entries) {
      builder.add(e.timestamp(), values.deserialize(topic, e.value()));
    }
    return builder.build();
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    if (key == null || key.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (key[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
