package io.streamplane.testing;

import io.streamplane.log.CommandVerb;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * How integration tests write to and watch the log as a client would: commands produced with {@code
 * acks=all}, and a daemon thread following every {@code events} partition from the start ({@code
 * read_committed}) until it is interrupted.
 */
public final class LogTaps {

  private LogTaps() {}

  /** A producer of commands (the caller closes it). */
  public static KafkaProducer<String, ResourceCommand> commands(String bootstrap, Topics topics) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.LINGER_MS_CONFIG,
            5),
        new StringSerializer(),
        topics.commands().valueSerde().serializer());
  }

  /** Sends a CREATE command for {@code object}, as the user "test", keyed as the store expects. */
  public static void create(
      KafkaProducer<String, ResourceCommand> producer,
      Topics topics,
      String resource,
      String group,
      String namespace,
      String name,
      SpecificRecord object) {
    send(
        producer,
        topics,
        command(CommandVerb.CREATE, resource, group, namespace, name)
            .setEncodedObject(KindObjects.encode(object))
            .build());
  }

  /** Sends a DELETE command of the named object, as the user "test". */
  public static void delete(
      KafkaProducer<String, ResourceCommand> producer,
      Topics topics,
      String resource,
      String group,
      String namespace,
      String name) {
    send(producer, topics, command(CommandVerb.DELETE, resource, group, namespace, name).build());
  }

  private static ResourceCommand.Builder command(
      CommandVerb verb, String resource, String group, String namespace, String name) {
    return ResourceCommand.newBuilder()
        .setId(UUID.randomUUID().toString())
        .setVerb(verb)
        .setResource(resource)
        .setGroup(group)
        .setNamespace(namespace)
        .setName(name)
        .setActor(UserInfo.newBuilder().setUsername("test").build());
  }

  private static void send(
      KafkaProducer<String, ResourceCommand> producer, Topics topics, ResourceCommand command) {
    producer.send(
        new ProducerRecord<>(
            topics.commands().name(), ResourceKey.of(command).toString(), command));
  }

  /** Starts a thread named {@code name} that hands every committed event to {@code each}. */
  public static Thread followEvents(
      String bootstrap,
      Topics topics,
      String name,
      Consumer<ConsumerRecord<String, ResourceEvent>> each) {
    Thread thread =
        new Thread(
            () -> {
              Map<String, Object> props =
                  Map.of(
                      ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                      bootstrap,
                      ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                      "read_committed");
              try (KafkaConsumer<String, ResourceEvent> consumer =
                  new KafkaConsumer<>(
                      props,
                      new StringDeserializer(),
                      topics.events().valueSerde().deserializer())) {
                List<TopicPartition> partitions = new ArrayList<>();
                for (int p = 0; p < topics.events().spec().partitions(); p++) {
                  partitions.add(new TopicPartition(topics.events().name(), p));
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (!Thread.currentThread().isInterrupted()) {
                  consumer.poll(Duration.ofMillis(200)).forEach(each);
                }
              } catch (InterruptException e) {
                // the test is over
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}
