package io.streamplane.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(KafkaBrokerExtension.class)
class HangingTransactionsIT {

  private static final TopicLayout LAYOUT = TopicLayout.singleBroker("hanging");

  @Test
  void leavesALiveTransactionOpenSoItsProducerCanStillCommitIt(EmbeddedKafkaBroker broker)
      throws Exception {
    TopicPartition partition = new TopicPartition(LAYOUT.topicName("live"), 0);
    Properties producerConfig = new Properties();
    producerConfig.putAll(broker.clientProperties());
    producerConfig.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "live-transaction");
    producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    try (Admin admin = Admin.create(broker.clientProperties());
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
      admin.createTopics(List.of(new NewTopic(partition.topic(), 1, (short) 1))).all().get();
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(partition.topic(), "k", "v")).get();

      assertThat(HangingTransactions.abortAll(admin, LAYOUT)).isEmpty();

      producer.commitTransaction();
      // The commit markers are written after commitTransaction returns: the record becomes readable
      // a moment later, and never if the transaction had been aborted.
      await("the committed record to be readable")
          .atMost(Duration.ofSeconds(30))
          .until(() -> committedValues(broker, partition), v -> v.equals(List.of("v")));
      assertThat(HangingTransactions.abortAll(admin, LAYOUT)).isEmpty();
    }
  }

  /** What a read_committed reader sees of the partition: none of an aborted transaction. */
  private static List<String> committedValues(
      EmbeddedKafkaBroker broker, TopicPartition partition) {
    Properties config = new Properties();
    config.putAll(broker.clientProperties());
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      List<String> values = new ArrayList<>();
      while (consumer.position(partition) < end) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
      }
      return values;
    }
  }
}
