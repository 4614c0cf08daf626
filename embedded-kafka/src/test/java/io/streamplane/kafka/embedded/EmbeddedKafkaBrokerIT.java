package io.streamplane.kafka.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaBrokerIT {

  @TempDir Path dataDir;

  @Test
  void recordsAndClusterIdSurviveARestartOnTheSameDataDirectory() throws Exception {
    String topic = KafkaBrokerExtension.uniqueName("restart");
    List<String> written = IntStream.range(0, 20).mapToObj(i -> "record-" + i).toList();

    EmbeddedKafkaBroker first = EmbeddedKafkaBroker.start(dataDir);
    String clusterId = first.clusterId();
    try {
      report("first start (format + start)", first);
      createTopic(first, topic);
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(producerConfig(first, Map.of()))) {
        for (String value : written) {
          producer.send(new ProducerRecord<>(topic, value, value)).get();
        }
      }
    } finally {
      long closing = System.nanoTime();
      first.close();
      System.out.printf(
          "[embedded-kafka] close took %d ms%n", (System.nanoTime() - closing) / 1_000_000);
    }

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir)) {
      report("restart on the same data", broker);
      assertThat(broker.clusterId()).isEqualTo(clusterId);
      assertThat(readAll(broker, topic, "read_uncommitted", written.size())).isEqualTo(written);
    }
  }

  @Test
  void aTransactionalProducerCommitIsVisibleToAReadCommittedConsumerAndAnAbortIsNot()
      throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startTemporary()) {
      report("temporary start", broker);
      String topic = KafkaBrokerExtension.uniqueName("tx");
      createTopic(broker, topic);
      Map<String, Object> transactional =
          Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, KafkaBrokerExtension.uniqueName("tx-id"));
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(producerConfig(broker, transactional))) {
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, "k", "aborted"));
        producer.abortTransaction();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, "k", "committed"));
        producer.commitTransaction();
      }

      assertThat(readAll(broker, topic, "read_committed", 1)).containsExactly("committed");
    }
  }

  @Test
  void aTemporaryBrokerDeletesItsDataDirectoryOnClose() {
    Path temporaryDir;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startTemporary()) {
      temporaryDir = broker.dataDir();
      assertThat(temporaryDir.resolve("meta.properties")).exists();
    }
    assertThat(Files.exists(temporaryDir)).isFalse();
  }

  @Test
  void aStartOnATakenPortFailsWithAClearExceptionAndDoesNotBlockTheNextStart() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      EmbeddedKafkaBroker.Builder builder =
          EmbeddedKafkaBroker.temporaryBuilder()
              .port(taken.getLocalPort())
              .startupTimeout(Duration.ofSeconds(30));

      assertThatThrownBy(builder::start)
          .isInstanceOf(EmbeddedKafkaStartException.class)
          .hasMessageContaining("Kafka failed to start on");
    }
    // The failed node released its directory lock, ports and metrics: a new one starts fine.
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir)) {
      assertThat(broker.clusterId()).isNotBlank();
    }
  }

  private static void report(String what, EmbeddedKafkaBroker broker) {
    System.out.printf(
        "[embedded-kafka] %s took %d ms (%s)%n",
        what, broker.startupTime().toMillis(), broker.bootstrapServers());
  }

  static void createTopic(EmbeddedKafkaBroker broker, String topic) throws Exception {
    try (Admin admin = Admin.create(broker.clientProperties())) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
  }

  private static Map<String, Object> producerConfig(
      EmbeddedKafkaBroker broker, Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>(broker.clientProperties());
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.putAll(extra);
    return config;
  }

  /** Reads {@code topic} from the start until {@code expected} values arrived. */
  private static List<String> readAll(
      EmbeddedKafkaBroker broker, String topic, String isolationLevel, int expected) {
    Map<String, Object> config = new HashMap<>(broker.clientProperties());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaBrokerExtension.uniqueName("reader"));
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(Set.of(topic));
      await("the " + expected + " records of " + topic)
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, String> record :
                    consumer.poll(Duration.ofMillis(200))) {
                  values.add(record.value());
                }
                return values.size() >= expected;
              });
      // One more poll shows that nothing beyond the expected records (e.g. aborted ones) arrives.
      consumer.poll(Duration.ofMillis(500)).forEach(record -> values.add(record.value()));
    }
    return values;
  }
}
