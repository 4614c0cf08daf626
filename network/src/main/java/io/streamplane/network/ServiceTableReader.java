package io.streamplane.network;

import io.streamplane.api.EndpointSlice;
import io.streamplane.api.Service;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills a {@link ServiceTable} from {@code events}: every Service and EndpointSlice the store
 * committed (read_committed), from the beginning of the log, then each change as it is written.
 *
 * <p>Only the records of those two resources are decoded (the key says which resource a record is
 * about); the rest of the log, Endpoints included, is skipped as bytes. Nothing is committed: like
 * a gateway's cache, the table is rebuilt from the log at every start.
 */
public final class ServiceTableReader implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceTableReader.class);
  private static final String SERVICES = "services./";
  private static final String SLICES = "endpointslices.discovery.k8s.io/";

  private final ServiceTable table;
  private final String topic;
  private final Deserializer<ResourceEvent> events;
  private final KafkaConsumer<String, byte[]> consumer;
  private final CountDownLatch caughtUp = new CountDownLatch(1);
  private final Thread poller;
  private volatile boolean running = true;

  public ServiceTableReader(String bootstrapServers, Topics topics, ServiceTable table) {
    this.table = table;
    this.topic = topics.events().name();
    this.events = topics.events().valueSerde().deserializer();
    this.consumer =
        new KafkaConsumer<>(
            KafkaClientSettings.committedReader(bootstrapServers, 5000),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
    this.poller = new Thread(() -> pollLoop(end), "service-table");
    this.poller.setDaemon(true);
    this.poller.start();
  }

  /** Waits until the table holds everything the log held when the reader started. */
  public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
    return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void pollLoop(Map<TopicPartition, Long> end) {
    try {
      while (running) {
        var records = consumer.poll(Duration.ofMillis(500));
        boolean changed = false;
        for (ConsumerRecord<String, byte[]> record : records) {
          changed |= apply(record);
        }
        if (changed) {
          table.changed();
        }
        if (caughtUp.getCount() > 0
            && end.entrySet().stream()
                .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
          caughtUp.countDown();
          table.changed();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("the service table stopped reading {}", topic, e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private boolean apply(ConsumerRecord<String, byte[]> record) {
    String key = record.key();
    if (record.value() == null
        || key == null
        || !(key.startsWith(SERVICES) || key.startsWith(SLICES))) {
      return false;
    }
    ResourceEvent event = events.deserialize(topic, record.value());
    Object object = event.getType() == EventType.DELETED ? null : KindObjects.of(event);
    String namespace = event.getNamespace();
    String name = event.getName();
    if (key.startsWith(SERVICES)) {
      table.putService(namespace, name, (Service) object);
    } else {
      table.putSlice(namespace, name, (EndpointSlice) object);
    }
    return true;
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      poller.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
