package io.streamplane.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.api.Container;
import io.streamplane.api.Node;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four schedulers race to place a burst of pods of random sizes on three tight nodes, through one
 * binder: after every binding no node holds more requests than it has allocatable, every pod that
 * fits somewhere is bound, and stopping a scheduler in the middle of the burst loses no pod.
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
      new TopicInitializer(admin).ensure(List.of(Topics.schemasSpec(layout)));
      KafkaSchemaCatalog catalog =
          new KafkaSchemaCatalog(broker.bootstrapServers(), layout.topicName(Topics.SCHEMAS));
      running.add(catalog);
      Topics topics = new Topics(layout, catalog);
      new TopicInitializer(admin).ensure(topics.all());
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

      try (KafkaProducer<String, ResourceCommand> producer = producer(bootstrap, topics)) {
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
    Thread thread =
        new Thread(
            () -> {
              Map<String, Object> props =
                  Map.of(
                      ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                      bootstrap,
                      ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                      "read_committed");
              try (KafkaConsumer<String, ResourceEvent> consumer =
                  new KafkaConsumer<>(
                      props,
                      new StringDeserializer(),
                      topics.events().valueSerde().deserializer())) {
                List<TopicPartition> partitions = new ArrayList<>();
                for (int p = 0; p < topics.events().spec().partitions(); p++) {
                  partitions.add(new TopicPartition(topics.events().name(), p));
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (!Thread.currentThread().isInterrupted()) {
                  for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (!(record.value().getObject() instanceof Pod pod)) {
                      continue;
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
                  }
                }
              } catch (InterruptException e) {
                // the test is over
              }
            },
            "binding-observer");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static KafkaProducer<String, ResourceCommand> producer(String bootstrap, Topics topics) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.LINGER_MS_CONFIG,
            5),
        new StringSerializer(),
        topics.commands().valueSerde().serializer());
  }

  private static void send(
      KafkaProducer<String, ResourceCommand> producer,
      Topics topics,
      String resource,
      String namespace,
      String name,
      SpecificRecord object) {
    ResourceCommand command =
        ResourceCommand.newBuilder()
            .setId(UUID.randomUUID().toString())
            .setVerb(CommandVerb.CREATE)
            .setResource(resource)
            .setNamespace(namespace)
            .setName(name)
            .setObject(object)
            .setActor(UserInfo.newBuilder().setUsername("test").build())
            .build();
    producer.send(
        new ProducerRecord<>(
            topics.commands().name(),
            new ResourceKey(resource, "", namespace, name).toString(),
            command));
  }

  private static Node node(String name) {
    Map<String, String> size =
        Map.of("cpu", "16", "memory", "32Gi", "pods", Long.toString(NODE_SIZE.pods()));
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
