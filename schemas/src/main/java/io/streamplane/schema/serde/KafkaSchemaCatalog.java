package io.streamplane.schema.serde;

import io.streamplane.kafka.KafkaClientSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The schema catalog shared by every process of a cluster, backed by the compacted {@code schemas}
 * topic (key: fingerprint in hex, value: the schema's JSON) and by the versions shipped in the jar.
 *
 * <p>{@link #register} appends a schema the topic has not seen yet and waits for the broker's
 * acknowledgement, so a record is never written before its schema is readable by others. A lookup
 * that misses reads the topic up to its end once more before giving up: a newer writer's schema
 * published after this process started is found that way. Lookups of unknown fingerprints are
 * therefore slow (one round trip to the broker); they happen once per schema and process.
 */
public final class KafkaSchemaCatalog extends InMemorySchemaCatalog implements AutoCloseable {

  private final String topic;
  private final KafkaProducer<String, String> producer;
  private final KafkaConsumer<String, String> consumer;
  private final Set<Long> published = new HashSet<>();
  private final Map<TopicPartition, Long> readUpTo = new HashMap<>();

  public KafkaSchemaCatalog(String bootstrapServers, String topic) {
    this.topic = topic;
    Properties producerProps = new Properties();
    producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(producerProps);
    producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
    producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    this.producer =
        new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer());
    Properties consumerProps = new Properties();
    consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(consumerProps);
    consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    this.consumer =
        new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer());
    catchUp();
  }

  @Override
  public synchronized void register(Schema schema) {
    long fingerprint = fingerprint(schema);
    if (published.contains(fingerprint)) {
      return;
    }
    try {
      producer
          .send(new ProducerRecord<>(topic, Long.toHexString(fingerprint), schema.toString()))
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted while publishing schema " + schema.getFullName(), e);
    } catch (ExecutionException e) {
      throw new KafkaException("cannot publish schema " + schema.getFullName(), e.getCause());
    }
    published.add(fingerprint);
    remember(schema);
  }

  @Override
  public synchronized Schema findByFingerprint(long fingerprint) {
    Schema known = super.findByFingerprint(fingerprint);
    if (known != null) {
      return known;
    }
    catchUp();
    return super.findByFingerprint(fingerprint);
  }

  /** Reads the schemas topic from where this catalog stopped to its current end. */
  private void catchUp() {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    consumer.assign(partitions);
    for (TopicPartition partition : partitions) {
      consumer.seek(partition, readUpTo.getOrDefault(partition, 0L));
    }
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
      if (System.nanoTime() > deadline) {
        throw new KafkaException("timed out reading topic " + topic);
      }
      for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
        if (record.value() != null) {
          Schema schema = new Schema.Parser().parse(record.value());
          remember(schema);
          published.add(fingerprint(schema));
        }
      }
    }
    partitions.forEach(p -> readUpTo.put(p, consumer.position(p)));
  }

  @Override
  public synchronized void close() {
    producer.close(Duration.ofSeconds(5));
    consumer.close(Duration.ofSeconds(5));
  }
}
