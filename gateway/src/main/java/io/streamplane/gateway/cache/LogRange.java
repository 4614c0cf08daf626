package io.streamplane.gateway.cache;

import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.ResourceEvent;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The committed records of {@code events} between two list versions, {@code from} inclusive and
 * {@code to} exclusive, read in order per partition by a consumer of its own.
 */
final class LogRange implements AutoCloseable {

  private final KafkaConsumer<String, ResourceEvent> consumer;
  private final List<TopicPartition> partitions;
  private final ListVersion from;
  private final long[] to;
  private volatile boolean stopped;

  LogRange(
      String bootstrapServers,
      Topics topics,
      List<TopicPartition> partitions,
      ListVersion from,
      long[] to) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
    this.consumer =
        new KafkaConsumer<>(
            props, new StringDeserializer(), topics.events().valueSerde().deserializer());
    this.partitions = partitions;
    this.from = from;
    this.to = to;
  }

  /**
   * Hands every record of the range to {@code action}.
   *
   * @throws TooOldResourceVersionException if the log no longer starts at or before {@code from}
   */
  void forEach(Consumer<ConsumerRecord<String, ResourceEvent>> action) {
    List<TopicPartition> reading = new ArrayList<>();
    for (TopicPartition partition : partitions) {
      if (from.offset(partition.partition()) < to[partition.partition()]) {
        reading.add(partition);
      }
    }
    if (reading.isEmpty()) {
      return;
    }
    Map<TopicPartition, Long> start = consumer.beginningOffsets(reading);
    for (TopicPartition partition : reading) {
      if (start.get(partition) > from.offset(partition.partition())) {
        throw new TooOldResourceVersionException(
            from.toString(),
            "the log of partition " + partition.partition() + " starts at " + start.get(partition));
      }
    }
    consumer.assign(reading);
    reading.forEach(p -> consumer.seek(p, from.offset(p.partition())));
    try {
      while (!stopped && !reading.isEmpty()) {
        for (ConsumerRecord<String, ResourceEvent> record : consumer.poll(Duration.ofMillis(200))) {
          if (record.offset() < to[record.partition()]) {
            action.accept(record);
          }
        }
        reading.removeIf(p -> consumer.position(p) >= to[p.partition()]);
        consumer.assign(reading);
      }
    } catch (WakeupException e) {
      // stopped
    }
  }

  /** Stops a {@link #forEach} under way, from another thread. */
  void stop() {
    stopped = true;
    try {
      consumer.wakeup();
    } catch (RuntimeException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
