package io.streamplane.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.Node;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.log.BindRequest;
import io.streamplane.log.EventType;
import io.streamplane.log.NodeUsage;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.metrics.ScrapedMetrics;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Given pods and nodes on the scheduler's and binder's input topics, expect these samples in the
 * process's Prometheus exposition. Counters are process-wide, so each test reads the change it
 * made.
 */
class SchedulerMetricsTest {

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final String PROFILE = SchedulerConfig.DEFAULT_SCHEDULER_NAME;

  private final Topics topics =
      new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());
  private TopologyTestDriver driver;

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void attemptsArePerResultAndABoundPodEndsItsSchedulingDuration() {
    driver =
        driver(SchedulerTopology.scheduler(topics, SchedulerConfig.defaults(), "t"), "scheduler");
    TestInputTopic<String, NodeUsage> usage =
        driver.createInputTopic(
            topics.nodeUsage().name(),
            Serdes.String().serializer(),
            topics.nodeUsage().valueSerde().serializer());
    TestInputTopic<String, ResourceEvent> events =
        driver.createInputTopic(
            topics.events().name(),
            Serdes.String().serializer(),
            topics.events().valueSerde().serializer());
    ScrapedMetrics before = ScrapedMetrics.scrape();

    usage.pipeInput(
        "node-1", NodeUsage.newBuilder().setNodeName("node-1").setNode(node("node-1")).build());
    events.pipeInput("pods./default/fits", event(EventType.ADDED, pod("fits", "500m", null)));
    events.pipeInput("pods./default/huge", event(EventType.ADDED, pod("huge", "64", null)));
    driver.advanceWallClockTime(Duration.ofMillis(100));
    ScrapedMetrics queued = ScrapedMetrics.scrape();
    events.pipeInput(
        "pods./default/fits", event(EventType.MODIFIED, pod("fits", "500m", "node-1")));
    ScrapedMetrics bound = ScrapedMetrics.scrape();

    assertThat(delta(before, queued, "scheduler_schedule_attempts_total", "scheduled"))
        .isEqualTo(1);
    assertThat(delta(before, queued, "scheduler_schedule_attempts_total", "unschedulable"))
        .isEqualTo(1);
    assertThat(
            delta(
                before, queued, "scheduler_scheduling_attempt_duration_seconds_count", "scheduled"))
        .isEqualTo(1);
    assertThat(queued.value("scheduler_pending_pods", "queue", "unschedulable")).isEqualTo(1);
    assertThat(
            bound.value("scheduler_pod_scheduling_sli_duration_seconds_count", "attempts", "1")
                - before.value(
                    "scheduler_pod_scheduling_sli_duration_seconds_count", "attempts", "1"))
        .isEqualTo(1);
  }

  @Test
  void theBinderCountsAcceptedAndRejectedBindRequests() {
    driver = driver(SchedulerTopology.binder(topics), "binder");
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
    ScrapedMetrics before = ScrapedMetrics.scrape();

    ResourceEvent nodeAdded =
        ResourceEvent.newBuilder(event(EventType.ADDED, null))
            .setResource("nodes")
            .setNamespace(null)
            .setName("node-1")
            .setEncodedObject(KindObjects.encode(node("node-1")))
            .build();
    events.pipeInput("nodes.//node-1", nodeAdded);
    requests.pipeInput("node-1", bindRequest("a", "node-1", 500));
    requests.pipeInput("node-1", bindRequest("b", "node-1", 64_000));
    requests.pipeInput("node-2", bindRequest("c", "node-2", 500));

    ScrapedMetrics after = ScrapedMetrics.scrape();
    assertThat(
            after.value("streamplane_binder_bind_requests_total", "result", "accepted")
                - before.value("streamplane_binder_bind_requests_total", "result", "accepted"))
        .isEqualTo(1);
    assertThat(
            after.value("streamplane_binder_bind_requests_total", "result", "rejected")
                - before.value("streamplane_binder_bind_requests_total", "result", "rejected"))
        .isEqualTo(2);
  }

  private static double delta(
      ScrapedMetrics before, ScrapedMetrics after, String name, String result) {
    return after.value(name, "result", result, "profile", PROFILE)
        - before.value(name, "result", result, "profile", PROFILE);
  }

  private TopologyTestDriver driver(org.apache.kafka.streams.Topology topology, String id) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "metrics-" + id);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir") + "/metrics-test-" + UUID.randomUUID());
    return new TopologyTestDriver(topology, props, T0);
  }

  private static BindRequest bindRequest(String pod, String node, long milliCpu) {
    return BindRequest.newBuilder()
        .setPodKey("pods./default/" + pod)
        .setPodUid("uid-" + pod)
        .setNamespace("default")
        .setPodName(pod)
        .setNodeName(node)
        .setRequests(Map.of("cpu", milliCpu, "pods", 1L))
        .setSchedulerId("t")
        .build();
  }

  private static ResourceEvent event(EventType type, Pod pod) {
    return ResourceEvent.newBuilder()
        .setType(type)
        .setResource("pods")
        .setNamespace("default")
        .setName(pod == null ? "none" : pod.getMetadata().getName())
        .setEncodedObject(KindObjects.encode(pod))
        .setResourceVersion(1)
        .setCommandId(UUID.randomUUID().toString())
        .setActor(UserInfo.newBuilder().setUsername("test").setGroups(List.of()).build())
        .build();
  }

  private static Pod pod(String name, String cpu, String nodeName) {
    Container container =
        Container.newBuilder()
            .setName("c")
            .setResources(ResourceRequirements.newBuilder().setRequests(Map.of("cpu", cpu)).build())
            .build();
    return Pod.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid("uid-" + name)
                .build())
        .setSpec(
            PodSpec.newBuilder().setContainers(List.of(container)).setNodeName(nodeName).build())
        .build();
  }

  private static Node node(String name) {
    Map<String, String> allocatable =
        new HashMap<>(Map.of("cpu", "4", "memory", "8Gi", "pods", "110"));
    return Node.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(name).setLabels(new HashMap<>()).build())
        .setSpec(NodeSpec.newBuilder().build())
        .setStatus(NodeStatus.newBuilder().setAllocatable(allocatable).build())
        .build();
  }
}
