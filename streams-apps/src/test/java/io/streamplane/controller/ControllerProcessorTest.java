package io.streamplane.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.ObjectMeta;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller shell, driven through a toy controller registered as any controller is: ConfigMaps
 * annotated {@code expires-at} are deleted at that moment (a TTL controller). Given these events
 * and this much wall-clock time, the shell reconciles these keys and sends these commands.
 */
class ControllerProcessorTest {

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final String EXPIRES_AT = "expires-at";

  private final Topics topics =
      new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());
  private final ExpiringConfigMaps controller = new ExpiringConfigMaps();
  private TopologyTestDriver driver;
  private TestInputTopic<String, ResourceEvent> events;
  private TestOutputTopic<String, ResourceCommand> commands;
  private Instant clock = T0;
  private long version;

  @BeforeEach
  void start() {
    StreamsBuilder builder = new StreamsBuilder();
    new ControllerManager(builder, topics).register(controller);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "controller-shell-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir") + "/controller-shell-test-" + UUID.randomUUID());
    driver = new TopologyTestDriver(builder.build(), props, T0);
    events =
        driver.createInputTopic(
            topics.events().name(),
            Serdes.String().serializer(),
            topics.events().valueSerde().serializer());
    commands =
        driver.createOutputTopic(
            topics.controllerRequests().name(),
            Serdes.String().deserializer(),
            topics.controllerRequests().valueSerde().deserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void aBurstOfEventsIsOneReconcilePerKey() {
    for (int i = 0; i < 100; i++) {
      send(EventType.MODIFIED, configMap("a", T0.plusSeconds(3600)));
      send(EventType.MODIFIED, configMap("b", T0.plusSeconds(3600)));
    }

    advanceTo(T0.plusMillis(10));

    assertThat(controller.reconciled).containsExactlyInAnyOrder("default/a", "default/b");
  }

  @Test
  void aKeyReconciledAMomentAgoWaitsOutTheSpacingWithItsEventsCoalescedAndAnotherKeyDoesNot() {
    send(EventType.ADDED, configMap("a", T0.plusSeconds(3600)));
    advanceTo(T0.plusMillis(10));
    assertThat(controller.reconciled).containsExactly("default/a");

    for (int i = 0; i < 5; i++) {
      send(EventType.MODIFIED, configMap("a", T0.plusSeconds(3600)));
      advanceTo(clock.plusMillis(20));
    }
    send(EventType.ADDED, configMap("b", T0.plusSeconds(3600)));
    advanceTo(clock.plusMillis(10));
    assertThat(controller.reconciled)
        .as("b at once, a not before the spacing")
        .containsExactly("default/a", "default/b");

    advanceTo(T0.plusMillis(10 + WorkQueue.SPACING));
    assertThat(controller.reconciled).containsExactly("default/a", "default/b", "default/a");

    advanceTo(clock.plusMillis(WorkQueue.SPACING));
    send(EventType.MODIFIED, configMap("a", T0.plusSeconds(3600)));
    advanceTo(clock.plusMillis(10));
    assertThat(controller.reconciled)
        .as("a key last reconciled longer ago than the spacing is reconciled at once")
        .containsExactly("default/a", "default/b", "default/a", "default/a");
  }

  @Test
  void aKeyIsReconciledAgainAtTheMomentItsControllerAskedFor() {
    send(EventType.ADDED, configMap("a", T0.plusSeconds(30)));
    advanceTo(T0.plusSeconds(1));
    assertThat(commands.readValuesToList()).isEmpty();
    assertThat(queued("default/a"))
        .as("the due time is state")
        .startsWith(T0.plusSeconds(30).toEpochMilli() + "|");

    advanceTo(T0.plusSeconds(29));
    assertThat(commands.readValuesToList()).isEmpty();
    advanceTo(T0.plusSeconds(30));

    assertThat(commands.readValuesToList())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getVerb()).isEqualTo(CommandVerb.DELETE);
              assertThat(c.getName()).isEqualTo("a");
              assertThat(c.getActor().getUsername())
                  .isEqualTo("system:serviceaccount:kube-system:ttl-controller");
            });
  }

  @Test
  void aWriteStillPendingIsNotSentAgainUntilItExpires() {
    send(EventType.ADDED, configMap("a", T0));
    advanceTo(T0.plusSeconds(1));
    assertThat(commands.readValuesToList()).hasSize(1);

    send(EventType.MODIFIED, configMap("a", T0));
    advanceTo(T0.plusSeconds(2));
    assertThat(commands.readValuesToList()).as("the delete is pending").isEmpty();
    assertThat(controller.reconciled).hasSize(2);

    advanceTo(T0.plusSeconds(1).plus(Expectations.TIMEOUT).plusSeconds(1));
    assertThat(commands.readValuesToList())
        .as("never observed: decided again once it expires")
        .extracting(ResourceCommand::getVerb)
        .containsExactly(CommandVerb.DELETE);
  }

  @Test
  void aPendingWriteIsSettledByTheEventThatShowsItDone() {
    send(EventType.ADDED, configMap("a", T0));
    advanceTo(T0.plusSeconds(1));
    assertThat(commands.readValuesToList()).hasSize(1);
    assertThat(driver.getKeyValueStore("expiring-expectations").get("default/a")).isNotNull();

    ConfigMap terminating = configMap("a", T0);
    terminating.getMetadata().setDeletionTimestamp(T0.plusSeconds(1));
    send(EventType.MODIFIED, terminating);
    advanceTo(T0.plusSeconds(2));

    assertThat(driver.getKeyValueStore("expiring-expectations").get("default/a")).isNull();
    advanceTo(T0.plusSeconds(300));
    assertThat(commands.readValuesToList()).isEmpty();
  }

  @Test
  void aConvergedControllerQueuesNothingAndWritesNothing() {
    send(EventType.ADDED, configMap("kept", null));
    advanceTo(T0.plusSeconds(1));
    assertThat(controller.reconciled).containsExactly("default/kept");

    for (int second = 2; second <= 60; second++) {
      advanceTo(T0.plusSeconds(second));
    }

    assertThat(commands.readValuesToList()).isEmpty();
    assertThat(controller.reconciled).hasSize(1);
    try (KeyValueIterator<Object, Object> queue = driver.getKeyValueStore("expiring-queue").all()) {
      assertThat(queue.hasNext()).as("the queue is empty").isFalse();
    }
  }

  /**
   * A rebalance, as the task's next owner sees it: a new processor over the stores restored from
   * the changelogs. The key queued for later is reconciled when it comes due, by the new one.
   */
  @Test
  void aKeyQueuedForLaterIsReconciledByTheProcessorThatTakesOverItsStores() {
    Map<String, KeyValueStore<String, ?>> stores = new java.util.HashMap<>();
    MockTask first = new MockTask(stores, T0);
    first.process(configMap("a", T0.plusSeconds(30)));
    first.advanceTo(T0.plusSeconds(1));
    assertThat(first.context.forwarded()).isEmpty();
    first.close();

    MockTask second = new MockTask(stores, T0.plusSeconds(20));
    second.advanceTo(T0.plusSeconds(29));
    assertThat(second.context.forwarded()).as("not due yet").isEmpty();
    second.advanceTo(T0.plusSeconds(30));

    assertThat(second.context.forwarded())
        .singleElement()
        .satisfies(f -> assertThat(f.record().value().getVerb()).isEqualTo(CommandVerb.DELETE));
  }

  /**
   * Streams checks its timers between batches of input; a key arriving in every batch must not put
   * off the reconcile of those queued before.
   */
  @Test
  void keysArrivingBeforeEachCheckOfTheClockDoNotPutOffTheQueuedOnes() {
    MockTask task = new MockTask(new java.util.HashMap<>(), T0);
    task.process(configMap("a", T0));
    task.clockAt(T0.plusMillis(5));
    task.process(configMap("b", T0));

    task.advanceTo(T0.plusMillis(5));

    assertThat(controller.reconciled).containsExactlyInAnyOrder("default/a", "default/b");
  }

  /**
   * A store written before the queue existed (an upgrade), or a controller whose decisions depend
   * on when it started watching: the keys its controller resyncs are reconciled when a task starts.
   */
  @Test
  void aTaskThatStartsReconcilesTheKeysItsControllerResyncs() {
    Map<String, KeyValueStore<String, ?>> stores = new java.util.HashMap<>();
    MockTask first = new MockTask(stores, T0);
    first.process(configMap("a", T0.plusSeconds(30)));
    first.advanceTo(T0.plusSeconds(1));
    first.close();
    stores.get("expiring-queue").delete("default/a");

    MockTask second = new MockTask(stores, T0.plusSeconds(40));
    second.advanceTo(T0.plusSeconds(41));
    // the first punctuation queues the keys, the next reconciles them
    second.advanceTo(T0.plusSeconds(42));

    assertThat(second.context.forwarded())
        .singleElement()
        .satisfies(f -> assertThat(f.record().value().getName()).isEqualTo("a"));
  }

  // ------------------------------------------------------------------------------ fixtures

  /** ConfigMaps annotated {@code expires-at} are deleted at that moment. */
  private static final class ExpiringConfigMaps implements Controller<ConfigMap> {

    private static final UserInfo TTL_CONTROLLER =
        ControllerActors.serviceAccount("ttl-controller");
    final List<String> reconciled = new ArrayList<>();

    @Override
    public String name() {
      return "expiring";
    }

    @Override
    public List<String> keysOf(ResourceEvent event) {
      return KindObjects.of(event) instanceof ConfigMap
          ? List.of(event.getNamespace() + "/" + event.getName())
          : List.of();
    }

    @Override
    public boolean observe(
        String key, ResourceEvent event, long timestampMs, ControllerCache cache) {
      if (event.getType() == EventType.DELETED) {
        cache.delete(key);
      } else {
        cache.put(key, event);
      }
      return true;
    }

    @Override
    public List<String> resync(ControllerCache cache) {
      return cache.scan("default/").stream().map(entry -> entry.key).toList();
    }

    @Override
    public ConfigMap view(String key, ControllerCache cache) {
      ResourceEvent event = cache.get(key);
      return event == null ? null : (ConfigMap) KindObjects.of(event);
    }

    @Override
    public Result reconcile(String key, ConfigMap view, Expectations expectations, Instant now) {
      reconciled.add(key);
      if (view == null
          || view.getMetadata().getDeletionTimestamp() != null
          || view.getMetadata().getAnnotations() == null
          || !view.getMetadata().getAnnotations().containsKey(EXPIRES_AT)) {
        return Result.nothing();
      }
      Instant expiresAt = Instant.parse(view.getMetadata().getAnnotations().get(EXPIRES_AT));
      if (now.isBefore(expiresAt)) {
        return Result.of(List.of(), expiresAt);
      }
      return Result.of(
          List.of(new Decision(Intent.delete("configmaps", "", view, null), TTL_CONTROLLER)), null);
    }
  }

  /** One task of the toy controller on a mock context, over stores that outlive it. */
  private final class MockTask {
    final MockProcessorContext<String, ResourceCommand> context = new MockProcessorContext<>();
    final ControllerProcessor<ConfigMap> processor = new ControllerProcessor<>(controller);
    private final List<KeyValue<Instant, MockProcessorContext.CapturedPunctuator>> timers =
        new ArrayList<>();
    private long offset;

    MockTask(Map<String, KeyValueStore<String, ?>> stores, Instant startedAt) {
      context.setCurrentSystemTimeMs(startedAt.toEpochMilli());
      store(stores, "expiring-objects", true);
      store(stores, "expiring-queue", false);
      store(stores, "expiring-expectations", false);
      processor.init(context);
      track();
    }

    private void store(Map<String, KeyValueStore<String, ?>> stores, String name, boolean events) {
      KeyValueStore<String, ?> store =
          stores.computeIfAbsent(
              name,
              n -> {
                KeyValueStore<String, ?> created =
                    events
                        ? Stores.keyValueStoreBuilder(
                                Stores.inMemoryKeyValueStore(n),
                                Serdes.String(),
                                topics.events().valueSerde())
                            .withLoggingDisabled()
                            .build()
                        : Stores.keyValueStoreBuilder(
                                Stores.inMemoryKeyValueStore(n), Serdes.String(), Serdes.String())
                            .withLoggingDisabled()
                            .build();
                created.init(context.getStateStoreContext(), created);
                return created;
              });
      context.addStateStore(store);
    }

    void process(ConfigMap object) {
      context.setRecordMetadata("by-key", 0, offset++);
      processor.process(
          new Record<>(
              "default/" + object.getMetadata().getName(),
              event(EventType.ADDED, object),
              context.currentSystemTimeMs()));
      track();
    }

    /** Moves the wall clock to {@code when} without looking at the timers (input in between). */
    void clockAt(Instant when) {
      context.setCurrentSystemTimeMs(when.toEpochMilli());
    }

    /** Moves the wall clock to {@code when}, firing each timer due by then, as Streams would. */
    void advanceTo(Instant when) {
      context.setCurrentSystemTimeMs(when.toEpochMilli());
      for (KeyValue<Instant, MockProcessorContext.CapturedPunctuator> timer : List.copyOf(timers)) {
        if (!timer.value.cancelled() && !timer.key.isAfter(when)) {
          Punctuator punctuator = timer.value.getPunctuator();
          punctuator.punctuate(when.toEpochMilli());
          track();
        }
      }
    }

    /** Notes when each newly scheduled timer is due. */
    private void track() {
      List<MockProcessorContext.CapturedPunctuator> scheduled = context.scheduledPunctuators();
      for (int i = timers.size(); i < scheduled.size(); i++) {
        MockProcessorContext.CapturedPunctuator timer = scheduled.get(i);
        timers.add(
            KeyValue.pair(
                Instant.ofEpochMilli(context.currentSystemTimeMs()).plus(timer.getInterval()),
                timer));
      }
    }

    void close() {
      processor.close();
    }
  }

  private void advanceTo(Instant when) {
    driver.advanceWallClockTime(Duration.between(clock, when));
    clock = when;
  }

  private String queued(String key) {
    Object value = driver.getKeyValueStore("expiring-queue").get(key);
    return value == null ? null : value.toString();
  }

  private void send(EventType type, ConfigMap object) {
    events.pipeInput(
        "configmaps./default/" + object.getMetadata().getName(), event(type, object), clock);
  }

  private ResourceEvent event(EventType type, ConfigMap object) {
    object.getMetadata().setResourceVersion(Long.toString(++version));
    return ResourceEvent.newBuilder()
        .setType(type)
        .setResource("configmaps")
        .setGroup("")
        .setNamespace("default")
        .setName(object.getMetadata().getName())
        .setEncodedObject(KindObjects.encode(object))
        .setResourceVersion(version)
        .setCommandId("c" + version)
        .setActor(UserInfo.newBuilder().setUsername("test").build())
        .build();
  }

  private static ConfigMap configMap(String name, Instant expiresAt) {
    return ConfigMap.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid("uid-" + name)
                .setAnnotations(expiresAt == null ? null : Map.of(EXPIRES_AT, expiresAt.toString()))
                .build())
        .build();
  }
}
