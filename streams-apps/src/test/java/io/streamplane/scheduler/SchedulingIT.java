package io.streamplane.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.api.Container;
import io.streamplane.api.Event;
import io.streamplane.api.Node;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.testing.LogTaps;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four schedulers race to place a burst of pods of random sizes on three tight nodes, through one
 * binder: after every binding no node holds more requests than it has allocatable, every pod that
 * fits somewhere is bound, and stopping a scheduler in the middle of the burst loses no pod. And
 * best-effort replicas spread evenly over equal nodes.
 */
@ExtendWith(KafkaBrokerExtension.class)
class SchedulingIT {

  private static final int PODS = 1200;
  private static final int NODES = 3;
  private static final Resources NODE_SIZE = new Resources(16_000, 32L << 30, 0, 500);

  @Test
  void racingSchedulersNeverOverCommitANodeAndPlaceEveryPodThatFits(
      EmbeddedKafkaBroker broker, @TempDir Path state) throws Exception {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("sch").replaceAll("[^a-zA-Z0-9_-]", "-"));
    List<AutoCloseable> running = new ArrayList<>();
    try (Admin admin = Admin.create(broker.clientProperties())) {
      ClusterTopics cluster = ClusterTopics.ensure(admin, broker.bootstrapServers(), layout);
      running.add(cluster);
      Topics topics = cluster.topics();
      String bootstrap = broker.bootstrapServers();

      Map<String, Resources> bound = new ConcurrentHashMap<>();
      Map<String, Resources> requests = new ConcurrentHashMap<>();
      List<String> overCommits = new CopyOnWriteArrayList<>();
      Thread observer = observe(bootstrap, topics, bound, requests, overCommits);

      running.add(StoreApp.start(topics, bootstrap, state.resolve("store")));
      running.add(SchedulerApp.startBinder(topics, bootstrap, state.resolve("binder")));
      List<StreamsApp> schedulers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        StreamsApp scheduler =
            SchedulerApp.startScheduler(
                topics,
                SchedulerConfig.defaults(),
                "s" + i,
                bootstrap,
                state.resolve("scheduler-" + i));
        schedulers.add(scheduler);
        running.add(scheduler);
      }

      try (KafkaProducer<String, ResourceCommand> producer = LogTaps.commands(bootstrap, topics)) {
        for (int n = 0; n < NODES; n++) {
          send(producer, topics, "nodes", null, "node-" + n, node("node-" + n));
        }
        Random random = new Random(42);
        for (int p = 0; p < PODS; p++) {
          Pod pod = pod("pod-" + p, 100 + random.nextInt(1400), 64 + random.nextInt(960));
          send(producer, topics, "pods", "default", "pod-" + p, pod);
          if (p == PODS / 2) {
            producer.flush();
            schedulers.get(0).close(); // a scheduler stops in the middle of the burst
          }
        }
      }

      await("every pod that fits somewhere to be bound")
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(2))
          .until(() -> requests.size() == PODS && unboundThatFit(bound, requests).isEmpty());
      observer.interrupt();

      assertThat(overCommits).as("bindings that over-committed a node").isEmpty();
      Map<String, Resources> perNode = perNode(bound);
      assertThat(perNode.keySet()).as("pods landed on every node").hasSize(NODES);
      assertThat(bound.size()).as("some pods do not fit anywhere").isLessThan(PODS);
    } finally {
      for (int i = running.size() - 1; i >= 0; i--) {
        running.get(i).close();
      }
    }
  }

  /**
   * Best-effort replicas (no requests, as {@code kubectl create deployment --replicas=6}) spread
   * over equal nodes, as kube-scheduler's LeastAllocated spreads them with its non-zero defaults: a
   * burst sees this scheduler's own proposals (assumed pods, across all its pod partitions), and
   * pods placed earlier — here bound by hand, which the scheduler never proposed — count through
   * the binder's node-usage records. Small nodes, so that 100m / 200Mi move the integer score.
   */
  @Test
  void bestEffortReplicasSpreadEvenlyOverEqualNodes(EmbeddedKafkaBroker broker, @TempDir Path state)
      throws Exception {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("spread").replaceAll("[^a-zA-Z0-9_-]", "-"));
    List<AutoCloseable> running = new ArrayList<>();
    try (Admin admin = Admin.create(broker.clientProperties())) {
      ClusterTopics cluster = ClusterTopics.ensure(admin, broker.bootstrapServers(), layout);
      running.add(cluster);
      Topics topics = cluster.topics();
      String bootstrap = broker.bootstrapServers();

      Map<String, String> nodeOf = new ConcurrentHashMap<>();
      Map<String, Map<String, Long>> usage = new ConcurrentHashMap<>();
      running.add(followBindings(bootstrap, topics, nodeOf));
      running.add(followUsage(bootstrap, topics, usage));

      running.add(StoreApp.start(topics, bootstrap, state.resolve("store")));
      running.add(SchedulerApp.startBinder(topics, bootstrap, state.resolve("binder")));
      running.add(
          SchedulerApp.startScheduler(
              topics, SchedulerConfig.defaults(), "s", bootstrap, state.resolve("scheduler")));

      try (KafkaProducer<String, ResourceCommand> producer = LogTaps.commands(bootstrap, topics)) {
        Map<String, String> small = Map.of("cpu", "2", "memory", "4Gi", "pods", "110");
        for (int n = 0; n < NODES; n++) {
          send(producer, topics, "nodes", null, "node-" + n, node("node-" + n, small));
        }
        producer.flush();
        await("every node in node-usage")
            .atMost(Duration.ofMinutes(1))
            .until(() -> usage.size() == NODES);

        // A Deployment's burst: 6 replicas, keyed over several pod partitions.
        for (int p = 0; p < 6; p++) {
          send(producer, topics, "pods", "default", "web-" + p, bestEffortPod("web-" + p, null));
        }
        producer.flush();
        await("the burst to be bound")
            .atMost(Duration.ofMinutes(1))
            .until(
                () -> countPerNode(nodeOf, "web-").values().stream().mapToInt(i -> i).sum() == 6);
        assertThat(countPerNode(nodeOf, "web-"))
            .as("6 best-effort replicas on 3 equal nodes")
            .containsOnly(Map.entry("node-0", 2), Map.entry("node-1", 2), Map.entry("node-2", 2));

        // 3 more on node-0, bound by hand: only the binder's node-usage tells the scheduler.
        for (int p = 0; p < 3; p++) {
          send(
              producer,
              topics,
              "pods",
              "default",
              "hand-" + p,
              bestEffortPod("hand-" + p, "node-0"));
        }
        producer.flush();
        await("node-0's usage to count them")
            .atMost(Duration.ofMinutes(1))
            .until(() -> usage.get("node-0").get("pods") == 5);
        assertThat(usage.get("node-0"))
            .as("node-usage carries the non-zero sums")
            .containsEntry("cpu", 0L)
            .containsEntry(Resources.NON_ZERO_CPU, 500L)
            .containsEntry(Resources.NON_ZERO_MEMORY, 5 * 200L << 20);

        for (int p = 0; p < 4; p++) {
          send(producer, topics, "pods", "default", "api-" + p, bestEffortPod("api-" + p, null));
        }
        producer.flush();
        await("the second burst to be bound")
            .atMost(Duration.ofMinutes(1))
            .until(
                () -> countPerNode(nodeOf, "api-").values().stream().mapToInt(i -> i).sum() == 4);
        assertThat(countPerNode(nodeOf, "api-"))
            .as("4 more replicas go to the two less loaded nodes")
            .containsOnly(Map.entry("node-1", 2), Map.entry("node-2", 2));
      }
    } finally {
      for (int i = running.size() - 1; i >= 0; i--) {
        running.get(i).close();
      }
    }
  }

  /**
   * A pod of high priority that fits nowhere preempts, through the binder, the lowest pod that
   * makes room: the victim gets DisruptionTarget and is deleted, a Preempted event names the
   * preemptor, the preemptor is nominated and bound once the victim is gone — and no node-usage
   * record the binder ever writes shows the node over-committed.
   */
  @Test
  void aHighPriorityPodPreemptsTheLowestPodAndIsBoundOnceItIsGone(
      EmbeddedKafkaBroker broker, @TempDir Path state) throws Exception {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("preempt").replaceAll("[^a-zA-Z0-9_-]", "-"));
    List<AutoCloseable> running = new ArrayList<>();
    try (Admin admin = Admin.create(broker.clientProperties())) {
      ClusterTopics cluster = ClusterTopics.ensure(admin, broker.bootstrapServers(), layout);
      running.add(cluster);
      Topics topics = cluster.topics();
      String bootstrap = broker.bootstrapServers();

      Map<String, String> nodeOf = new ConcurrentHashMap<>();
      Map<String, Pod> lastSeen = new ConcurrentHashMap<>();
      List<String> deleted = new CopyOnWriteArrayList<>();
      List<String> nominated = new CopyOnWriteArrayList<>();
      List<String> disrupted = new CopyOnWriteArrayList<>();
      List<String> preemptedEvents = new CopyOnWriteArrayList<>();
      List<String> overCommitted = new CopyOnWriteArrayList<>();
      Map<String, Map<String, Long>> usage = new ConcurrentHashMap<>();
      running.add(
          follow(
              bootstrap,
              topics.events().name(),
              topics.events().spec().partitions(),
              topics.events().valueSerde().deserializer(),
              (key, event) -> {
                if (KindObjects.of(event) instanceof Pod pod) {
                  String name = pod.getMetadata().getName();
                  lastSeen.put(name, pod);
                  if (event.getType() == EventType.DELETED) {
                    deleted.add(name);
                    nodeOf.remove(name);
                  } else if (pod.getSpec().getNodeName() != null) {
                    nodeOf.put(name, pod.getSpec().getNodeName());
                  }
                  if (pod.getStatus() != null) {
                    if (pod.getStatus().getNominatedNodeName() != null) {
                      nominated.add(name + "->" + pod.getStatus().getNominatedNodeName());
                    }
                    if (pod.getStatus().getConditions() != null
                        && pod.getStatus().getConditions().stream()
                            .anyMatch(
                                c ->
                                    c.getType().equals("DisruptionTarget")
                                        && c.getReason().equals("PreemptionByScheduler"))) {
                      disrupted.add(name);
                    }
                  }
                } else if (KindObjects.of(event) instanceof Event e
                    && "Preempted".equals(e.getReason())) {
                  preemptedEvents.add(e.getInvolvedObject().getName() + ": " + e.getMessage());
                }
              }));
      running.add(
          follow(
              bootstrap,
              topics.nodeUsage().name(),
              topics.nodeUsage().spec().partitions(),
              topics.nodeUsage().valueSerde().deserializer(),
              (key, record) -> {
                if (record == null || record.getNode() == null) {
                  return;
                }
                usage.put(key, Map.copyOf(record.getAllocated()));
                Resources allocated = Resources.fromMap(record.getAllocated());
                if (!allocated.fitsIn(Resources.allocatableOf(record.getNode()))) {
                  overCommitted.add(key + ": " + allocated);
                }
              }));

      running.add(StoreApp.start(topics, bootstrap, state.resolve("store")));
      running.add(SchedulerApp.startBinder(topics, bootstrap, state.resolve("binder")));
      running.add(
          SchedulerApp.startScheduler(
              topics, SchedulerConfig.defaults(), "s", bootstrap, state.resolve("scheduler")));

      try (KafkaProducer<String, ResourceCommand> producer = LogTaps.commands(bootstrap, topics)) {
        send(
            producer,
            topics,
            "nodes",
            null,
            "node-0",
            node("node-0", Map.of("cpu", "2", "memory", "4Gi", "pods", "110")));
        producer.flush();
        await("the node in node-usage")
            .atMost(Duration.ofMinutes(1))
            .until(() -> usage.size() == 1);
        send(producer, topics, "pods", "default", "low-0", prioritized("low-0", 0));
        send(producer, topics, "pods", "default", "low-10", prioritized("low-10", 10));
        producer.flush();
        await("both low pods bound")
            .atMost(Duration.ofMinutes(1))
            .until(() -> nodeOf.containsKey("low-0") && nodeOf.containsKey("low-10"));

        send(producer, topics, "pods", "default", "high", prioritized("high", 1000));
        producer.flush();
        await("the high pod bound")
            .atMost(Duration.ofMinutes(1))
            .until(() -> "node-0".equals(nodeOf.get("high")));
      }
      String highUid = lastSeen.get("high").getMetadata().getUid();
      assertThat(deleted).as("the victim, and only it, is gone").containsExactly("low-0");
      assertThat(nodeOf).containsOnlyKeys("low-10", "high");
      assertThat(disrupted).as("DisruptionTarget before the deletion").contains("low-0");
      assertThat(preemptedEvents)
          .containsExactly("low-0: Preempted by pod " + highUid + " on node node-0");
      assertThat(nominated).as("the preemptor was nominated").contains("high->node-0");
      assertThat(overCommitted).as("node-usage records over allocatable").isEmpty();
    } finally {
      for (int i = running.size() - 1; i >= 0; i--) {
        running.get(i).close();
      }
    }
  }

  /** A pod of 1 CPU with a priority (as admission resolves it), deleted at once when preempted. */
  private static Pod prioritized(String name, int priority) {
    Pod pod = pod(name, 1000, 256);
    pod.getSpec().setPriority(priority);
    pod.getSpec().setTerminationGracePeriodSeconds(0L);
    return pod;
  }

  private static Map<String, Integer> countPerNode(Map<String, String> nodeOf, String prefix) {
    Map<String, Integer> counts = new HashMap<>();
    nodeOf.forEach(
        (pod, node) -> {
          if (pod.startsWith(prefix)) {
            counts.merge(node, 1, Integer::sum);
          }
        });
    return counts;
  }

  /** Follows events: the node of every bound pod, by pod name. */
  private static AutoCloseable followBindings(
      String bootstrap, Topics topics, Map<String, String> nodeOf) {
    return follow(
        bootstrap,
        topics.events().name(),
        topics.events().spec().partitions(),
        topics.events().valueSerde().deserializer(),
        (key, event) -> {
          if (KindObjects.of(event) instanceof Pod pod && pod.getSpec().getNodeName() != null) {
            nodeOf.put(pod.getMetadata().getName(), pod.getSpec().getNodeName());
          }
        });
  }

  /** Follows node-usage: the allocated map of every node. */
  private static AutoCloseable followUsage(
      String bootstrap, Topics topics, Map<String, Map<String, Long>> usage) {
    return follow(
        bootstrap,
        topics.nodeUsage().name(),
        topics.nodeUsage().spec().partitions(),
        topics.nodeUsage().valueSerde().deserializer(),
        (key, record) -> {
          if (record != null) {
            usage.put(key, Map.copyOf(record.getAllocated()));
          }
        });
  }

  /** Reads a whole topic from the start, record by record, until closed. */
  private static <V> AutoCloseable follow(
      String bootstrap,
      String topic,
      int partitionCount,
      Deserializer<V> values,
      BiConsumer<String, V> onRecord) {
    AtomicBoolean stop = new AtomicBoolean();
    Thread thread =
        new Thread(
            () -> {
              Map<String, Object> props =
                  Map.of(
                      ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                      bootstrap,
                      ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                      "read_committed");
              try (KafkaConsumer<String, V> consumer =
                  new KafkaConsumer<>(props, new StringDeserializer(), values)) {
                List<TopicPartition> partitions = new ArrayList<>();
                for (int p = 0; p < partitionCount; p++) {
                  partitions.add(new TopicPartition(topic, p));
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (!stop.get()) {
                  for (var record : consumer.poll(Duration.ofMillis(200))) {
                    onRecord.accept(record.key(), record.value());
                  }
                }
              }
            },
            "follow-" + topic);
    thread.setDaemon(true);
    thread.start();
    return () -> {
      stop.set(true);
      thread.join();
    };
  }

  private static Pod bestEffortPod(String name, String nodeName) {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(ObjectMeta.newBuilder().setName(name).setNamespace("default").build())
        .setSpec(
            PodSpec.newBuilder()
                .setNodeName(nodeName)
                .setContainers(
                    List.of(Container.newBuilder().setName("c").setImage("busybox").build()))
                .build())
        .build();
  }

  /** Pods not bound although some node still has room for them. */
  private static List<String> unboundThatFit(
      Map<String, Resources> bound, Map<String, Resources> requests) {
    Map<String, Resources> used = perNode(bound);
    List<String> fitting = new ArrayList<>();
    for (var entry : requests.entrySet()) {
      if (bound.containsKey(entry.getKey())) {
        continue;
      }
      for (int n = 0; n < NODES; n++) {
        Resources after =
            used.getOrDefault("node-" + n, new Resources(0, 0, 0, 0)).plus(entry.getValue());
        if (after.fitsIn(NODE_SIZE)) {
          fitting.add(entry.getKey());
          break;
        }
      }
    }
    return fitting;
  }

  private static final Map<String, String> NODE_OF = new ConcurrentHashMap<>();

  private static Map<String, Resources> perNode(Map<String, Resources> bound) {
    Map<String, Resources> used = new HashMap<>();
    bound.forEach((pod, r) -> used.merge(NODE_OF.get(pod), r, Resources::plus));
    return used;
  }

  /** Follows events: records each pod's requests and, at each binding, checks its node's sum. */
  private static Thread observe(
      String bootstrap,
      Topics topics,
      Map<String, Resources> bound,
      Map<String, Resources> requests,
      List<String> overCommits) {
    return LogTaps.followEvents(
        bootstrap,
        topics,
        "binding-observer",
        record -> {
          if (!(KindObjects.of(record.value()) instanceof Pod pod)) {
            return;
          }
          String name = pod.getMetadata().getName();
          requests.put(name, PodRequests.of(pod).requests());
          String node = pod.getSpec().getNodeName();
          if (node != null && !bound.containsKey(name)) {
            NODE_OF.put(name, node);
            bound.put(name, PodRequests.of(pod).requests());
            Resources sum = perNode(bound).get(node);
            if (!sum.fitsIn(NODE_SIZE)) {
              overCommits.add(name + " on " + node + ": " + sum);
            }
          }
        });
  }

  private static void send(
      KafkaProducer<String, ResourceCommand> producer,
      Topics topics,
      String resource,
      String namespace,
      String name,
      SpecificRecord object) {
    LogTaps.create(producer, topics, resource, "", namespace, name, object);
  }

  private static Node node(String name) {
    return node(
        name, Map.of("cpu", "16", "memory", "32Gi", "pods", Long.toString(NODE_SIZE.pods())));
  }

  private static Node node(String name, Map<String, String> size) {
    return Node.newBuilder()
        .setApiVersion("v1")
        .setKind("Node")
        .setMetadata(ObjectMeta.newBuilder().setName(name).build())
        .setStatus(NodeStatus.newBuilder().setCapacity(size).setAllocatable(size).build())
        .build();
  }

  private static Pod pod(String name, int milliCpu, int mebibytes) {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(ObjectMeta.newBuilder().setName(name).setNamespace("default").build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(
                    List.of(
                        Container.newBuilder()
                            .setName("c")
                            .setImage("busybox")
                            .setResources(
                                ResourceRequirements.newBuilder()
                                    .setRequests(
                                        Map.of("cpu", milliCpu + "m", "memory", mebibytes + "Mi"))
                                    .build())
                            .build()))
                .build())
        .build();
  }
}
