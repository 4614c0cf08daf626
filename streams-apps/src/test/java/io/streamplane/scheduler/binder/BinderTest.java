package io.streamplane.scheduler.binder;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Node;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.log.BindRejection;
import io.streamplane.log.BindRequest;
import io.streamplane.log.EventType;
import io.streamplane.log.NodeLedger;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.PlacedPod;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.scheduler.SchedulerTopology;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;

class BinderTest {

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  private final Topics topics =
      new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());

  /** The binder's topology under a test driver whose wall clock starts at {@link #T0}. */
  private TopologyTestDriver binder(String applicationId) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir") + "/binder-test-" + UUID.randomUUID());
    return new TopologyTestDriver(SchedulerTopology.binder(topics), props, T0);
  }

  /** A node of 4 CPUs and 110 pods. */
  private static Node node() {
    return Node.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName("node-1").build())
        .setStatus(
            NodeStatus.newBuilder()
                .setAllocatable(new HashMap<>(Map.of("cpu", "4", "pods", "110")))
                .build())
        .build();
  }

  @Test
  void theBinderRefusesAPlaceThatWouldExceedTheVolumeLimitTheRequestCarries() {
    try (TopologyTestDriver driver = binder("binder-volumes")) {
      TestInputTopic<String, ResourceEvent> events =
          driver.createInputTopic(
              topics.events().name(),
              Serdes.String().serializer(),
              topics.events().valueSerde().serializer());
      TestInputTopic<String, BindRequest> requests =
          driver.createInputTopic(
              topics.bindRequests().name(),
              Serdes.String().serializer(),
              topics.bindRequests().valueSerde().serializer());
      TestOutputTopic<String, BindRejection> rejections =
          driver.createOutputTopic(
              topics.bindRejections().name(),
              Serdes.String().deserializer(),
              topics.bindRejections().valueSerde().deserializer());
      TestOutputTopic<String, NodeUsage> usage =
          driver.createOutputTopic(
              topics.nodeUsage().name(),
              Serdes.String().deserializer(),
              topics.nodeUsage().valueSerde().deserializer());
      events.pipeInput("nodes.//node-1", event("nodes", "node-1", EventType.ADDED, node(), 1));

      requests.pipeInput("node-1", withVolume("a", "d^default/a"));
      requests.pipeInput("node-1", withVolume("b", "d^default/b"));
      requests.pipeInput("node-1", withVolume("c", "d^default/a")); // the same volume as a

      assertThat(rejections.readValuesToList())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.getRequest().getPodName()).isEqualTo("b");
                assertThat(r.getReason()).isEqualTo("node(s) exceed max volume count");
              });
      List<NodeUsage> published = usage.readValuesToList();
      Map<String, Long> allocated = published.get(published.size() - 1).getAllocated();
      assertThat(allocated).containsEntry("volume:d^default/a", 2L);
      assertThat(allocated).doesNotContainKey("volume:d^default/b");
      assertThat(allocated).containsEntry("pods", 2L);
    }
  }

  @Test
  void aNodesUsageCarriesEachPodAsItsLastEventLeftIt() {
    try (TopologyTestDriver driver = binder("binder-usage")) {
      TestInputTopic<String, ResourceEvent> events =
          driver.createInputTopic(
              topics.events().name(),
              Serdes.String().serializer(),
              topics.events().valueSerde().serializer());
      TestInputTopic<String, BindRequest> requests =
          driver.createInputTopic(
              topics.bindRequests().name(),
              Serdes.String().serializer(),
              topics.bindRequests().valueSerde().serializer());
      TestOutputTopic<String, NodeUsage> usage =
          driver.createOutputTopic(
              topics.nodeUsage().name(),
              Serdes.String().deserializer(),
              topics.nodeUsage().valueSerde().deserializer());
      Node node = node();
      events.pipeInput("nodes.//node-1", event("nodes", "node-1", EventType.ADDED, node, 1));
      for (String name : List.of("a", "b")) {
        requests.pipeInput("node-1", withVolume(name, "d^default/" + name));
        events.pipeInput(
            "pods./default/" + name,
            event("pods", name, EventType.MODIFIED, boundPod(name, T0, null), 2));
      }
      Pod started = boundPod("a", T0, T0.plusSeconds(3));
      started.getMetadata().setLabels(Map.of("app", "web", "tier", "front"));
      events.pipeInput("pods./default/a", event("pods", "a", EventType.MODIFIED, started, 3));

      Map<String, PlacedPod> afterStart = byName(last(usage.readValuesToList()));
      assertThat(afterStart.get("a").getStartTime()).isEqualTo(T0.plusSeconds(3).toEpochMilli());
      assertThat(afterStart.get("a").getLabels()).containsEntry("tier", "front");
      assertThat(afterStart.get("b").getStartTime()).isEqualTo(T0.toEpochMilli());

      events.pipeInput("nodes.//node-1", event("nodes", "node-1", EventType.MODIFIED, node, 4));
      assertThat(byName(last(usage.readValuesToList()))).isEqualTo(afterStart);

      events.pipeInput("pods./default/a", event("pods", "a", EventType.DELETED, started, 5));
      assertThat(byName(last(usage.readValuesToList()))).containsOnlyKeys("b");
    }
  }

  private static Pod boundPod(String name, Instant created, Instant started) {
    return Pod.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid("uid-" + name)
                .setLabels(Map.of("app", "web"))
                .setCreationTimestamp(created)
                .build())
        .setSpec(PodSpec.newBuilder().setNodeName("node-1").build())
        .setStatus(started == null ? null : PodStatus.newBuilder().setStartTime(started).build())
        .build();
  }

  private static ResourceEvent event(
      String resource, String name, EventType type, Object object, long resourceVersion) {
    return ResourceEvent.newBuilder()
        .setType(type)
        .setResource(resource)
        .setNamespace(resource.equals("pods") ? "default" : null)
        .setName(name)
        .setEncodedObject(KindObjects.encode((org.apache.avro.specific.SpecificRecord) object))
        .setResourceVersion(resourceVersion)
        .setCommandId("c" + resourceVersion)
        .setActor(UserInfo.newBuilder().setUsername("test").setGroups(List.of()).build())
        .build();
  }

  private static NodeUsage last(List<NodeUsage> published) {
    return published.get(published.size() - 1);
  }

  private static Map<String, PlacedPod> byName(NodeUsage usage) {
    Map<String, PlacedPod> byName = new HashMap<>();
    usage.getPods().forEach(pod -> byName.put(pod.getName(), pod));
    return byName;
  }

  private static BindRequest withVolume(String pod, String volume) {
    return BindRequest.newBuilder()
        .setPodKey("pods./default/" + pod)
        .setPodUid("uid-" + pod)
        .setNamespace("default")
        .setPodName(pod)
        .setNodeName("node-1")
        .setRequests(Map.of("cpu", 100L, "pods", 1L, Resources.VOLUME + volume, 1L))
        .setVolumeLimits(Map.of("d", 1))
        .setSchedulerId("t")
        .build();
  }

  @Test
  void aLedgerSumsRequestsAndNonZeroRequestsAndReadsEntriesWrittenBeforeTheNonZeroKeys() {
    PodRequests bestEffort =
        new PodRequests(new Resources(0, 0, 0, 1), new Resources(100, 200L << 20, 0, 1));
    Resources old = new Resources(500, 1L << 30, 0, 1); // a ledger entry from before the change
    NodeLedger ledger =
        NodeLedger.newBuilder()
            .setPods(
                Map.of(
                    "pods//default/a", bestEffort.toMap(),
                    "pods//default/b", bestEffort.toMap(),
                    "pods//default/c", old.toMap()))
            .build();

    PodRequests allocated = Binder.allocated(ledger);

    assertThat(allocated.requests()).isEqualTo(new Resources(500, 1L << 30, 0, 3));
    assertThat(allocated.nonZeroRequests())
        .isEqualTo(new Resources(700, (400L << 20) + (1L << 30), 0, 3));
  }

  @Test
  void aPlacedPodCarriesWhatPreemptionReads() {
    Instant created = Instant.parse("2026-01-01T00:00:00Z");
    Pod pod =
        Pod.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("web-1")
                    .setNamespace("shop")
                    .setUid("u1")
                    .setLabels(Map.of("app", "web"))
                    .setCreationTimestamp(created)
                    .build())
            .setSpec(PodSpec.newBuilder().setPriority(100).build())
            .build();
    Map<String, Long> requests = Map.of("cpu", 500L);

    PlacedPod placed = Binder.placed("pods//shop/web-1", pod, requests);

    assertThat(placed.getPriority()).isEqualTo(100);
    assertThat(placed.getLabels()).containsEntry("app", "web");
    assertThat(placed.getStartTime()).as("no startTime: created").isEqualTo(created.toEpochMilli());
    assertThat(placed.getTerminating()).isFalse();
    assertThat(placed.getRequests()).isEqualTo(requests);

    pod.setStatus(PodStatus.newBuilder().setStartTime(created.plusSeconds(5)).build());
    pod.getMetadata().setDeletionTimestamp(created.plusSeconds(9));
    pod.getSpec().setPriority(null);
    placed = Binder.placed("pods//shop/web-1", pod, requests);
    assertThat(placed.getStartTime()).isEqualTo(created.plusSeconds(5).toEpochMilli());
    assertThat(placed.getTerminating()).isTrue();
    assertThat(placed.getPriority()).as("no priority: 0").isZero();
  }
}
