package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./streamplane up}, Ctrl-C, {@code ./streamplane up} again on the same data directory: the
 * second start finds the topics it created the first time and the records written before.
 */
class UpRestartE2E {

  private static final Duration START = Duration.ofMinutes(3);

  @Test
  void aRestartedClusterFindsItsTopicsAndRecords(@TempDir Path dataDir) throws Exception {
    int port = Launcher.freePort();
    String[] up = {
      "up",
      "--data-dir",
      dataDir.toString(),
      "--kafka-port",
      Integer.toString(port),
      "--cluster",
      "e2e",
      "--status-interval",
      "PT1S"
    };
    String bootstrap = "127.0.0.1:" + port;

    try (Launcher first = Launcher.start(up)) {
      assertThat(first.awaitLine("topics:", START)).contains("0 found, 6 created");
      first.awaitLine("ready.", START);
      produce(bootstrap, "e2e.commands", List.of("one", "two", "three"));
      first.awaitLine("e2e.commands 3", Duration.ofSeconds(30));
      first.interrupt(Duration.ofSeconds(60));
      assertThat(first.lines()).anyMatch(l -> l.endsWith("stopped."));
    }
    assertThat(Files.exists(dataDir.resolve("meta.properties"))).isTrue();

    try (Launcher second = Launcher.start(up)) {
      assertThat(second.awaitLine("topics:", START)).contains("6 found, 0 created");
      assertThat(second.awaitLine("log:", START)).contains("e2e.commands 3");
      assertThat(consumeAll(bootstrap, "e2e.commands")).containsExactly("one", "two", "three");
      second.interrupt(Duration.ofSeconds(60));
    }
  }

  private static void produce(String bootstrap, String topic, List<String> values)
      throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new StringSerializer())) {
      for (String value : values) {
        // One key, so one partition, so the order is kept.
        producer.send(new ProducerRecord<>(topic, "k", value)).get();
      }
    }
  }

  private static List<String> consumeAll(String bootstrap, String topic) {
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new StringDeserializer(),
            new StringDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      List<String> values = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
          && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
      return values;
    }
  }
}
