package io.streamplane.gateway.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.api.Pod;
import io.streamplane.gateway.cache.ListVersion;
import io.streamplane.gateway.cache.TooOldResourceVersionException;
import io.streamplane.gateway.testing.EventsFixture;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HistoryIndex} against a real {@code events} topic, written here directly in place of the
 * store: the state as of past list versions, every version of one object, a restart that resumes
 * from the database, and versions the log no longer holds.
 */
@ExtendWith(KafkaBrokerExtension.class)
class HistoryIndexIT {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final KubeJson JSON = new KubeJson();

  @Test
  void answersTheStateAsOfEveryPastVersion(EmbeddedKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    Topics topics = topics(broker);
    try (KafkaProducer<String, ResourceEvent> events = producer(broker, topics)) {
      ListVersion empty = end(broker, topics);
      append(events, topics, EventType.ADDED, "a", "1");
      append(events, topics, EventType.ADDED, "b", "1");
      ListVersion two = end(broker, topics);
      append(events, topics, EventType.MODIFIED, "a", "2");
      append(events, topics, EventType.DELETED, "b", "1");
      append(events, topics, EventType.ADDED, "c", "1");
      ListVersion later = end(broker, topics);
      append(events, topics, EventType.ADDED, "b", "again");

      try (HistoryIndex index = new HistoryIndex(broker.bootstrapServers(), topics, dir)) {
        index.awaitReadPast(end(broker, topics), WAIT);

        assertThat(states(index.list("pods", "", "default", empty))).isEmpty();
        assertThat(states(index.list("pods", "", "default", two))).containsExactly("a=1", "b=1");
        assertThat(states(index.list("pods", "", "default", later))).containsExactly("a=2", "c=1");
        assertThat(states(index.list("pods", "", null, later))).containsExactly("a=2", "c=1");
        assertThat(states(index.list("pods", "", "other", later))).isEmpty();
        assertThat(index.at(key("a"), two)).map(HistoryIndexIT::state).contains("a=1");
        assertThat(index.at(key("b"), later)).isEmpty();
        assertThat(states(index.versions(key("b")))).containsExactly("b=1", "b=1", "b=again");
        assertThat(index.versions(key("b")).get(1).event().getType()).isEqualTo(EventType.DELETED);
      }

      // A restart resumes where the database stopped and indexes what came meanwhile.
      append(events, topics, EventType.MODIFIED, "c", "2");
      try (HistoryIndex index = new HistoryIndex(broker.bootstrapServers(), topics, dir)) {
        index.awaitReadPast(end(broker, topics), WAIT);
        assertThat(states(index.versions(key("c")))).containsExactly("c=1", "c=2");
        assertThat(states(index.list("pods", "", "default", later))).containsExactly("a=2", "c=1");
      }
    }
  }

  @Test
  void aVersionOlderThanTheLogItReadIsTooOld(EmbeddedKafkaBroker broker, @TempDir Path dir)
      throws Exception {
    Topics topics = topics(broker);
    try (KafkaProducer<String, ResourceEvent> events = producer(broker, topics);
        Admin admin = Admin.create(broker.clientProperties())) {
      ListVersion empty = end(broker, topics);
      append(events, topics, EventType.ADDED, "a", "1");
      append(events, topics, EventType.ADDED, "b", "1");
      ListVersion two = end(broker, topics);
      Map<TopicPartition, RecordsToDelete> truncate = new HashMap<>();
      for (int p = 0; p < two.offsets().length; p++) {
        truncate.put(
            new TopicPartition(topics.events().name(), p),
            RecordsToDelete.beforeOffset(two.offset(p)));
      }
      admin.deleteRecords(truncate).all().get();

      try (HistoryIndex index = new HistoryIndex(broker.bootstrapServers(), topics, dir)) {
        index.awaitReadPast(two, WAIT);
        assertThat(two).isNotEqualTo(empty);
        assertThatThrownBy(() -> index.awaitReadPast(empty, WAIT))
            .isInstanceOf(TooOldResourceVersionException.class);
      }
    }
  }

  private static List<String> states(List<ObjectVersion> versions) {
    return versions.stream().map(HistoryIndexIT::state).toList();
  }

  private static String state(ObjectVersion version) {
    Pod pod = (Pod) KindObjects.of(version.event());
    return pod.getMetadata().getName() + "=" + pod.getMetadata().getLabels().get("v");
  }

  private static ResourceKey key(String name) {
    return EventsFixture.podKey(name);
  }

  private static ListVersion end(EmbeddedKafkaBroker broker, Topics topics) throws Exception {
    try (Admin admin = Admin.create(broker.clientProperties())) {
      int partitions =
          admin
              .describeTopics(List.of(topics.events().name()))
              .allTopicNames()
              .get()
              .get(topics.events().name())
              .partitions()
              .size();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        latest.put(new TopicPartition(topics.events().name(), p), OffsetSpec.latest());
      }
      long[] offsets = new long[partitions];
      admin
          .listOffsets(latest)
          .all()
          .get()
          .forEach((tp, info) -> offsets[tp.partition()] = info.offset());
      return new ListVersion(offsets);
    }
  }

  private static Topics topics(EmbeddedKafkaBroker broker) {
    return EventsFixture.topics(broker, "history");
  }

  private static KafkaProducer<String, ResourceEvent> producer(
      EmbeddedKafkaBroker broker, Topics topics) {
    return EventsFixture.producer(broker, topics);
  }

  private static void append(
      KafkaProducer<String, ResourceEvent> events,
      Topics topics,
      EventType type,
      String name,
      String label)
      throws Exception {
    EventsFixture.appendPod(events, topics, type, name, Map.of("v", label));
  }
}
