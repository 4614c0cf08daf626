package io.streamplane.gateway.controller;

import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.ResourceCommand;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every gateway's share of {@code controller-requests}: one consumer group of all the cluster's
 * gateways, so the partitions spread over them and move when one stops. Each request is executed
 * ({@link ControllerRequests}) before its offset is committed: a gateway that dies mid-batch leaves
 * its requests to the next owner of the partition, which executes them again — harmless, since a
 * controller's writes are idempotent (deterministic names, preconditions on version or uid).
 *
 * <p>A request waits for the store's answer, so a batch is executed {@link #PARALLELISM} objects at
 * a time: the requests of one object in their order, different objects at once. A request that
 * fails otherwise than with a Status (it cannot be decoded) stops the consumer with the error in
 * the log, rather than being skipped.
 */
public final class ControllerRequestsConsumer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControllerRequestsConsumer.class);

  private final KafkaConsumer<String, ResourceCommand> consumer;
  private final ControllerRequests requests;
  private final Thread thread;
  private final ExecutorService pool =
      Executors.newFixedThreadPool(
          PARALLELISM,
          task -> {
            Thread thread = new Thread(task, "controller-requests-executor");
            thread.setDaemon(true);
            return thread;
          });
  private volatile boolean running = true;

  /** How many objects' requests are executed at once. */
  static final int PARALLELISM = 16;

  /** How long a request the store does not answer is tried again. */
  static final Duration RETRY_FOR = Duration.ofSeconds(60);

  private ControllerRequestsConsumer(
      KafkaConsumer<String, ResourceCommand> consumer, ControllerRequests requests) {
    this.consumer = consumer;
    this.requests = requests;
    this.thread = new Thread(this::run, "controller-requests");
    this.thread.setDaemon(true);
  }

  /** The consumer group of the cluster's gateways. */
  static String group(Topics topics) {
    return topics.controllerRequests().name() + ".gateways";
  }

  /**
   * Joins the gateways' group as the gateway serving at {@code address} ({@code host:port}), which
   * {@link GatewayPeers} reads back from the group's members.
   */
  public static ControllerRequestsConsumer start(
      String bootstrapServers, Topics topics, ControllerRequests requests, String address) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group(topics));
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, GatewayPeers.clientId(address));
    // A killed gateway leaves the group, and the kubernetes Endpoints, within 10 s.
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
    // The broker answers a waiting fetch as soon as records arrive: a long wait costs no latency.
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
    KafkaConsumer<String, ResourceCommand> consumer =
        new KafkaConsumer<>(
            props,
            new StringDeserializer(),
            topics.controllerRequests().valueSerde().deserializer());
    consumer.subscribe(List.of(topics.controllerRequests().name()));
    ControllerRequestsConsumer started = new ControllerRequestsConsumer(consumer, requests);
    started.thread.start();
    return started;
  }

  private void run() {
    try {
      while (running) {
        var records = consumer.poll(Duration.ofSeconds(1));
        if (records.isEmpty()) {
          continue;
        }
        Map<String, List<ResourceCommand>> byObject = new LinkedHashMap<>();
        for (ConsumerRecord<String, ResourceCommand> record : records) {
          if (record.value() != null) {
            byObject.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(record.value());
          }
        }
        List<Future<?>> executing = new ArrayList<>();
        for (List<ResourceCommand> ofObject : byObject.values()) {
          executing.add(pool.submit(() -> ofObject.forEach(this::execute)));
        }
        for (Future<?> done : executing) {
          done.get();
        }
        consumer.commitSync();
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException | ExecutionException e) {
      LOG.error("the gateway stopped executing controller requests", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * Executes one request, again while the store does not answer, for up to {@link #RETRY_FOR}: an
   * attempt that would end past it, judging by the last one, is the last, so that a store timing
   * out (30 s) holds the batch for two attempts, not three.
   */
  private void execute(ResourceCommand request) {
    long start = System.nanoTime();
    long budget = RETRY_FOR.toNanos();
    long backoffMs = 1_000;
    long lastTook = 0;
    while (running) {
      long began = System.nanoTime();
      boolean last = began - start + lastTook + backoffMs * 1_000_000 > budget;
      if (requests.execute(request, last) || last) {
        return;
      }
      lastTook = System.nanoTime() - began;
      try {
        Thread.sleep(backoffMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      backoffMs = Math.min(backoffMs * 2, 8_000);
    }
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    pool.shutdownNow();
  }
}
