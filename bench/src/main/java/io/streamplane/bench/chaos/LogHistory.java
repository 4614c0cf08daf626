package io.streamplane.bench.chaos;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.Deployment;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.ResourceEvent;
import io.streamplane.scheduler.framework.Resources;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * What the log says happened, read with a consumer of its own (read_committed, from the beginning
 * to the end as it is now): every event of one namespace in {@code events}, per object in log
 * order, and every record the binders wrote to {@code node-usage}.
 */
final class LogHistory {

  /** One event of an object: its type, the object's resourceVersion and where it is in the log. */
  record Event(
      String type,
      String resource,
      String name,
      String version,
      int partition,
      long offset,
      String value,
      long timestamp) {}

  /** A binder's record of a node whose allocated requests exceed its allocatable. */
  record OverCommit(String node, long offset, String allocated, String allocatable) {}

  private final Map<String, List<Event>> byKey = new HashMap<>();
  private final Map<String, Event> byVersion = new HashMap<>();
  private final List<OverCommit> overCommits = new ArrayList<>();
  private long events;
  private long nodeUsageRecords;

  /** Reads both topics. */
  static LogHistory read(String bootstrapServers, TopicLayout layout, String namespace) {
    LogHistory history = new LogHistory();
    try (KafkaSchemaCatalog catalog =
        new KafkaSchemaCatalog(bootstrapServers, layout.topicName(Topics.SCHEMAS))) {
      Topics topics = new Topics(layout, catalog);
      Deserializer<ResourceEvent> events = topics.events().valueSerde().deserializer();
      readAll(
          bootstrapServers,
          topics.events().name(),
          r -> {
            ResourceEvent e = events.deserialize(r.topic(), r.value());
            if (e == null) {
              return;
            }
            history.events++;
            if (!namespace.equals(e.getNamespace())) {
              return;
            }
            ObjectMeta meta = metadata(KindObjects.of(e));
            String version =
                meta != null && meta.getResourceVersion() != null
                    ? meta.getResourceVersion()
                    : Long.toString(e.getResourceVersion() + 1);
            String value = null;
            if (KindObjects.of(e) instanceof ConfigMap cm && cm.getData() != null) {
              value = cm.getData().get("v");
            }
            Event event =
                new Event(
                    e.getType().name(),
                    e.getResource(),
                    e.getName(),
                    version,
                    r.partition(),
                    r.offset(),
                    value,
                    r.timestamp());
            history.add(e.getResource() + "/" + namespace + "/" + e.getName(), event);
          });
      Deserializer<NodeUsage> usages = topics.nodeUsage().valueSerde().deserializer();
      readAll(
          bootstrapServers,
          topics.nodeUsage().name(),
          r -> {
            NodeUsage u = r.value() == null ? null : usages.deserialize(r.topic(), r.value());
            if (u == null || u.getNode() == null) {
              return;
            }
            history.nodeUsageRecords++;
            Resources allocated = Resources.fromMap(u.getAllocated());
            Resources allocatable = Resources.allocatableOf(u.getNode());
            if (!allocated.fitsIn(allocatable)) {
              history.overCommits.add(
                  new OverCommit(
                      u.getNodeName(), r.offset(), allocated.toString(), allocatable.toString()));
            }
          });
    }
    return history;
  }

  /** Adds an event of {@code key} ({@code resource/namespace/name}) after its others. */
  void add(String key, Event event) {
    byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(event);
    byVersion.put(key + "@" + event.version() + "@" + event.type(), event);
  }

  /** Adds a binder's record found over-committed. */
  void add(OverCommit overCommit) {
    overCommits.add(overCommit);
  }

  private static ObjectMeta metadata(Object object) {
    if (object instanceof ConfigMap o) {
      return o.getMetadata();
    } else if (object instanceof Deployment o) {
      return o.getMetadata();
    } else if (object instanceof ReplicaSet o) {
      return o.getMetadata();
    } else if (object instanceof Pod o) {
      return o.getMetadata();
    }
    return null;
  }

  private interface Sink {
    void accept(ConsumerRecord<byte[], byte[]> record);
  }

  private static void readAll(String bootstrapServers, String topic, Sink sink) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "chaos-check-" + UUID.randomUUID());
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps =
          consumer.partitionsFor(topic, Duration.ofSeconds(60)).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(60));
      while (true) {
        boolean done = true;
        for (TopicPartition tp : tps) {
          if (consumer.position(tp, Duration.ofSeconds(60)) < ends.get(tp)) {
            done = false;
          }
        }
        if (done) {
          return;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
            sink.accept(r);
          }
        }
      }
    }
  }

  /** The events of one object ({@code resource/namespace/name}), in log order. */
  List<Event> of(String key) {
    return byKey.getOrDefault(key, List.of());
  }

  Map<String, List<Event>> byKey() {
    return byKey;
  }

  /** The event of {@code key} with this version and type, if the log has one. */
  Event find(String key, String version, String type) {
    return byVersion.get(key + "@" + version + "@" + type);
  }

  List<OverCommit> overCommits() {
    return overCommits;
  }

  long events() {
    return events;
  }

  long nodeUsageRecords() {
    return nodeUsageRecords;
  }
}
