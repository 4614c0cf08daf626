package io.streamplane.gateway.write;

import io.streamplane.gateway.metrics.GatewayMetrics;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.CommandResult;
import io.streamplane.log.ResourceCommand;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's write path to the store: appends a {@link ResourceCommand} to {@code commands}
 * (idempotent producer, acks=all) and waits for its {@link CommandResult} on the one partition of
 * {@code results} this gateway reads.
 *
 * <p>A command whose result does not arrive in time is reported as a timeout; it may still be
 * applied later (the client sees 504, as from kube-apiserver when etcd is slow), never twice.
 */
public final class CommandClient implements CommandLog, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CommandClient.class);

  private final Topics topics;
  private final int replyPartition;
  private final KafkaProducer<String, ResourceCommand> producer;
  private final KafkaConsumer<String, CommandResult> consumer;
  private final Map<String, CompletableFuture<CommandResult>> pending = new ConcurrentHashMap<>();
  private final Thread listener;
  private volatile boolean running = true;

  public CommandClient(String bootstrapServers, Topics topics, int replyPartition) {
    this.topics = topics;
    this.replyPartition = replyPartition;
    Properties producerProps = new Properties();
    producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(producerProps);
    producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
    producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    producerProps.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    producerProps.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    this.producer =
        new KafkaProducer<>(
            producerProps, new StringSerializer(), topics.commands().valueSerde().serializer());
    Properties consumerProps = new Properties();
    consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(consumerProps);
    consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // The broker answers a waiting fetch as soon as records (or the commit markers that make them
    // readable) arrive, so a long wait costs no latency; a short one would make an idle gateway
    // fetch hundreds of times a second.
    consumerProps.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
    this.consumer =
        new KafkaConsumer<>(
            consumerProps, new StringDeserializer(), topics.results().valueSerde().deserializer());
    TopicPartition partition = new TopicPartition(topics.results().name(), replyPartition);
    consumer.assign(List.of(partition));
    consumer.seekToEnd(List.of(partition));
    // Resolve the position now: results of commands sent from here on must not be skipped.
    consumer.position(partition);
    this.listener = new Thread(this::listen, "command-results");
    this.listener.setDaemon(true);
    this.listener.start();
  }

  private void listen() {
    try {
      while (running) {
        for (ConsumerRecord<String, CommandResult> record : consumer.poll(Duration.ofMillis(100))) {
          CompletableFuture<CommandResult> waiter = pending.remove(record.key());
          if (waiter != null && record.value() != null) {
            waiter.complete(record.value());
          }
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("stopped reading results", e);
      pending.values().forEach(f -> f.completeExceptionally(e));
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * Sends the command and waits for its result.
   *
   * @throws TimeoutException if no result arrived within {@code timeout}
   */
  @Override
  public CommandResult execute(ResourceCommand command, Duration timeout)
      throws TimeoutException, InterruptedException {
    ResourceCommand addressed =
        ResourceCommand.newBuilder(command).setReplyPartition(replyPartition).build();
    String key = ResourceKey.of(command).toString();
    CompletableFuture<CommandResult> result = new CompletableFuture<>();
    pending.put(command.getId(), result);
    long started = System.nanoTime();
    try {
      producer
          .send(new ProducerRecord<>(topics.commands().name(), key, addressed))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      CommandResult answer = result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      GatewayMetrics.commandAnswered(command.getVerb().name(), (System.nanoTime() - started) / 1e9);
      return answer;
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "the command was not accepted by Kafka: " + e.getCause().getMessage(), e.getCause());
    } finally {
      pending.remove(command.getId());
    }
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      listener.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofSeconds(5));
  }
}
