package io.streamplane.controller.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.api.Container;
import io.streamplane.api.Lease;
import io.streamplane.api.LeaseSpec;
import io.streamplane.api.Node;
import io.streamplane.api.NodeCondition;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.Taint;
import io.streamplane.controller.ControllersApp;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.store.StoreApp;
import io.streamplane.testing.LogTaps;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a real broker, with the real store: a node whose Lease stops being renewed is marked Unknown
 * and tainted unreachable by the controllers app, and the pod bound to it is deleted (it stays
 * Terminating: no kubelet is left to finish it) once its default toleration runs out.
 */
@ExtendWith(KafkaBrokerExtension.class)
class NodeLifecycleIT {

  private static final NodeLifecycleConfig FAST = new NodeLifecycleConfig(Duration.ofSeconds(3), 2);

  @Test
  void aNodeWhoseLeaseIsNoLongerRenewedIsMarkedAndItsPodDeleted(
      EmbeddedKafkaBroker broker, @TempDir Path state) throws Exception {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("nlc").replaceAll("[^a-zA-Z0-9_-]", "-"));
    List<AutoCloseable> running = new ArrayList<>();
    Map<String, ResourceEvent> latest = new ConcurrentHashMap<>();
    Thread observer = null;
    try (Admin admin = Admin.create(broker.clientProperties())) {
      ClusterTopics cluster = ClusterTopics.ensure(admin, broker.bootstrapServers(), layout);
      running.add(cluster);
      Topics topics = cluster.topics();
      String bootstrap = broker.bootstrapServers();
      observer =
          LogTaps.followEvents(
              bootstrap, topics, "node-lifecycle-observer", r -> latest.put(r.key(), r.value()));
      running.add(StoreApp.start(topics, bootstrap, state.resolve("store")));
      running.add(
          ControllersApp.start(
              topics, FAST, topics.commands(), bootstrap, state.resolve("controllers")));

      Instant now = Instant.now();
      try (KafkaProducer<String, ResourceCommand> producer = LogTaps.commands(bootstrap, topics)) {
        send(producer, topics, "nodes", "", null, node("dying", now));
        send(producer, topics, "leases", "coordination.k8s.io", "kube-node-lease", lease(now));
        send(producer, topics, "pods", "", "default", pod());
      }

      await("the node to be marked Unknown and tainted unreachable")
          .atMost(Duration.ofSeconds(90))
          .until(() -> unreachable(latest.get("nodes.//dying")));
      await("the pod to be deleted by the taint eviction controller")
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                ResourceEvent pod = latest.get("pods./default/web");
                return pod != null
                    && ((Pod) KindObjects.of(pod)).getMetadata().getDeletionTimestamp() != null;
              });

      ResourceEvent node = latest.get("nodes.//dying");
      assertThat(((Node) KindObjects.of(node)).getStatus().getConditions())
          .filteredOn(c -> c.getType().equals("Ready"))
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.getStatus()).isEqualTo("Unknown");
                assertThat(c.getReason()).isEqualTo("NodeStatusUnknown");
              });
      assertThat(latest.get("pods./default/web").getActor().getUsername())
          .isEqualTo("system:serviceaccount:kube-system:taint-eviction-controller");
    } finally {
      if (observer != null) {
        observer.interrupt();
      }
      for (int i = running.size() - 1; i >= 0; i--) {
        running.get(i).close();
      }
    }
  }

  private static boolean unreachable(ResourceEvent event) {
    if (event == null || !(KindObjects.of(event) instanceof Node node) || node.getSpec() == null) {
      return false;
    }
    List<Taint> taints =
        node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    return taints.stream()
        .anyMatch(
            t ->
                TaintEviction.UNREACHABLE.equals(t.getKey())
                    && TaintEviction.NO_EXECUTE.equals(t.getEffect()));
  }

  private static void send(
      KafkaProducer<String, ResourceCommand> producer,
      Topics topics,
      String resource,
      String group,
      String namespace,
      SpecificRecord object) {
    String name =
        ((ObjectMeta) object.get(object.getSchema().getField("metadata").pos())).getName();
    LogTaps.create(producer, topics, resource, group, namespace, name, object);
  }

  private static Node node(String name, Instant heartbeat) {
    Instant second = heartbeat.truncatedTo(ChronoUnit.SECONDS);
    return Node.newBuilder()
        .setApiVersion("v1")
        .setKind("Node")
        .setMetadata(ObjectMeta.newBuilder().setName(name).build())
        .setStatus(
            NodeStatus.newBuilder()
                .setConditions(
                    List.of(
                        NodeCondition.newBuilder()
                            .setType("Ready")
                            .setStatus("True")
                            .setReason("KubeletReady")
                            .setLastHeartbeatTime(second)
                            .setLastTransitionTime(second)
                            .build()))
                .build())
        .build();
  }

  private static Lease lease(Instant renewed) {
    return Lease.newBuilder()
        .setApiVersion("coordination.k8s.io/v1")
        .setKind("Lease")
        .setMetadata(
            ObjectMeta.newBuilder().setName("dying").setNamespace("kube-node-lease").build())
        .setSpec(
            LeaseSpec.newBuilder()
                .setHolderIdentity("dying")
                .setLeaseDurationSeconds(40)
                .setRenewTime(renewed.truncatedTo(ChronoUnit.MICROS))
                .build())
        .build();
  }

  private static Pod pod() {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(ObjectMeta.newBuilder().setName("web").setNamespace("default").build())
        .setSpec(
            PodSpec.newBuilder()
                .setNodeName("dying")
                .setContainers(
                    List.of(Container.newBuilder().setName("c").setImage("nginx").build()))
                .build())
        .build();
  }
}
