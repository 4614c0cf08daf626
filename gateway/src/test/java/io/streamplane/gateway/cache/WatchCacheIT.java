package io.streamplane.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.gateway.testing.EventsFixture;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link WatchCache} against a real {@code events} topic, written here directly in place of the
 * store: where a watch that resumes from a list version starts, whichever cache serves it and
 * however far that cache has read.
 */
@ExtendWith(KafkaBrokerExtension.class)
class WatchCacheIT {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final KubeJson JSON = new KubeJson();

  @Test
  void watchFromAListVersionAheadOfTheCacheDeliversOnlyLaterChanges(EmbeddedKafkaBroker broker)
      throws Exception {
    Topics topics = topics(broker);
    try (KafkaProducer<String, ResourceEvent> events = producer(broker, topics)) {
      append(events, topics, EventType.ADDED, "a");
      append(events, topics, EventType.ADDED, "b");
      ListVersion listed;
      try (WatchCache lister = new WatchCache(broker.bootstrapServers(), topics, JSON, 100)) {
        lister.catchUpWithLog(WAIT);
        listed = lister.version();
      }
      append(events, topics, EventType.ADDED, "c");
      append(events, topics, EventType.MODIFIED, "a");

      // A cache that has just started has read nothing yet: a and b arrive after the watch began.
      try (WatchCache lagging = new WatchCache(broker.bootstrapServers(), topics, JSON, 100)) {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        try (AutoCloseable watch =
            lagging.watch("", "pods", listed, e -> true, e -> seen.add(describe(e)))) {
          lagging.catchUpWithLog(WAIT);
        }

        assertThat(seen).containsExactlyInAnyOrder("ADDED c", "MODIFIED a");
      }
    }
  }

  @Test
  void watchFromBeforeTheWindowReadsTheLogThenFollows(EmbeddedKafkaBroker broker) throws Exception {
    Topics topics = topics(broker);
    try (KafkaProducer<String, ResourceEvent> events = producer(broker, topics);
        WatchCache cache = new WatchCache(broker.bootstrapServers(), topics, JSON, 2)) {
      cache.catchUpWithLog(WAIT);
      ListVersion empty = cache.version();
      List<String> names = List.of("a", "b", "c", "d", "e", "f", "g", "h");
      for (String name : names) {
        append(events, topics, EventType.ADDED, name);
      }
      append(events, topics, EventType.MODIFIED, "a");
      cache.catchUpWithLog(WAIT);
      List<String> seen = Collections.synchronizedList(new ArrayList<>());

      try (WatchCache.Registration watch =
          cache.watch("", "pods", empty, e -> true, e -> seen.add(describe(e)))) {
        await().atMost(WAIT).until(() -> seen.size() == 9);
        assertThat(watch.following()).isTrue();
        append(events, topics, EventType.DELETED, "b");
        await().atMost(WAIT).until(() -> seen.size() == 10);
      }

      assertThat(seen.subList(0, 9))
          .containsExactlyInAnyOrder(
              "ADDED a",
              "ADDED b",
              "ADDED c",
              "ADDED d",
              "ADDED e",
              "ADDED f",
              "ADDED g",
              "ADDED h",
              "MODIFIED a");
      assertThat(seen.indexOf("ADDED a")).isLessThan(seen.indexOf("MODIFIED a"));
      assertThat(seen.get(9)).isEqualTo("DELETED b");
    }
  }

  @Test
  void watchFromChangesTheLogNoLongerHoldsEndsWithExpired(EmbeddedKafkaBroker broker)
      throws Exception {
    Topics topics = topics(broker);
    try (KafkaProducer<String, ResourceEvent> events = producer(broker, topics);
        WatchCache cache = new WatchCache(broker.bootstrapServers(), topics, JSON, 2);
        Admin admin = Admin.create(broker.clientProperties())) {
      cache.catchUpWithLog(WAIT);
      ListVersion empty = cache.version();
      for (String name : List.of("a", "b", "c", "d", "e", "f", "g", "h")) {
        append(events, topics, EventType.ADDED, name);
      }
      cache.catchUpWithLog(WAIT);
      ListVersion now = cache.version();
      Map<TopicPartition, RecordsToDelete> truncate = new HashMap<>();
      for (int p = 0; p < now.offsets().length; p++) {
        truncate.put(
            new TopicPartition(topics.events().name(), p),
            RecordsToDelete.beforeOffset(now.offset(p)));
      }
      admin.deleteRecords(truncate).all().get();
      List<WatchEvent> seen = Collections.synchronizedList(new ArrayList<>());

      try (WatchCache.Registration watch = cache.watch("", "pods", empty, e -> true, seen::add)) {
        await().atMost(WAIT).until(() -> !seen.isEmpty());
      }

      assertThat(seen).hasSize(1);
      assertThat(seen.get(0).type()).isEqualTo(WatchEvent.ERROR);
      assertThat(seen.get(0).object().path("code").asInt()).isEqualTo(410);
    }
  }

  private static String describe(WatchEvent event) {
    return event.type() + " " + event.object().path("metadata").path("name").asText();
  }

  private static Topics topics(EmbeddedKafkaBroker broker) {
    return EventsFixture.topics(broker, "cache");
  }

  private static KafkaProducer<String, ResourceEvent> producer(
      EmbeddedKafkaBroker broker, Topics topics) {
    return EventsFixture.producer(broker, topics);
  }

  private static void append(
      KafkaProducer<String, ResourceEvent> events, Topics topics, EventType type, String name)
      throws Exception {
    EventsFixture.appendPod(events, topics, type, name, Map.of());
  }
}
