package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.controller.ControllersApp;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.UserInfo;
import io.streamplane.node.runtime.simulated.SimulatedRuntime;
import io.streamplane.scheduler.SchedulerApp;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.store.StoreApp;
import io.streamplane.topics.BindingKey;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Simulated nodes against the whole control plane — broker, store, controllers, scheduler, binder
 * and gateway: a Deployment's pods run and become Ready on two nodes, a deleted pod is stopped,
 * confirmed and replaced, a fleet of 200 nodes registers and holds its leases, and a deleted
 * kube-node-lease namespace comes back, with the leases of the nodes that renew there.
 *
 * <p>The Deployment test runs first: the fleet's nodes stay registered (and schedulable) after the
 * fleet stops, and a pod placed on one of them would never run.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeAgentIT {

  private static final UserInfo SYSTEM =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters"))
          .build();

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<AutoCloseable> running = new ArrayList<>();
  private String bootstrap;
  private Topics topics;
  private GatewayServer gateway;

  @BeforeAll
  void startControlPlane(EmbeddedKafkaBroker broker, @TempDir Path state) throws Exception {
    bootstrap = broker.bootstrapServers();
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("node").replaceAll("[^a-zA-Z0-9_-]", "-"));
    try (Admin admin = Admin.create(broker.clientProperties())) {
      ClusterTopics cluster = ClusterTopics.ensure(admin, bootstrap, layout);
      running.add(cluster);
      topics = cluster.topics();
    }
    running.add(StoreApp.start(topics, bootstrap, state.resolve("store")));
    running.add(ControllersApp.start(topics, bootstrap, state.resolve("controllers")));
    running.add(SchedulerApp.startBinder(topics, bootstrap, state.resolve("binder")));
    running.add(
        SchedulerApp.startScheduler(
            topics, SchedulerConfig.defaults(), "s", bootstrap, state.resolve("scheduler")));
    gateway = GatewayServer.start(bootstrap, topics, "127.0.0.1", 0, 0);
    running.add(gateway);
    gateway.ensureSystemNamespaces(SYSTEM);
  }

  @AfterAll
  void stopControlPlane() throws Exception {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  @Test
  @Order(1)
  void deploymentPodsRunReadyOnTwoNodesAndADeletedPodIsStoppedConfirmedAndReplaced()
      throws Exception {
    List<NodeFleet> nodes = new ArrayList<>();
    try {
      for (int i = 1; i <= 2; i++) {
        NodeOptions options =
            NodeOptions.defaults("it-node-" + i).withPodCIDR(PodAddresses.cidrForIndex(1000 + i));
        nodes.add(
            NodeFleet.start(
                gateway.url(),
                bootstrap,
                topics.bindings(),
                List.of(options),
                SimulatedRuntime::new,
                KubeletConfig.simulated()));
      }
      await("both nodes to register")
          .atMost(Duration.ofSeconds(60))
          .until(() -> nodes.stream().allMatch(f -> f.registered() == 1));

      HttpResponse<String> created =
          send("POST", "/apis/apps/v1/namespaces/default/deployments", deployment("web", 3));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

      await("3 pods Running and Ready")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> readyPods("web").size() == 3);
      List<JsonNode> pods = readyPods("web");
      for (JsonNode pod : pods) {
        assertThat(pod.at("/spec/nodeName").asText()).startsWith("it-node-");
        assertThat(pod.at("/status/podIP").asText()).startsWith("10.3.");
        assertThat(pod.at("/status/hostIP").asText()).isEqualTo("127.0.0.1");
        assertThat(pod.at("/status/containerStatuses/0/containerID").asText())
            .startsWith("simulated://");
        assertThat(pod.at("/status/containerStatuses/0/state/running/startedAt").isMissingNode())
            .isFalse();
      }
      await("the Deployment to be Available with 3 available replicas")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                JsonNode deployment = get("/apis/apps/v1/namespaces/default/deployments/web");
                return deployment.at("/status/availableReplicas").asInt() == 3
                    && hasCondition(deployment, "Available", "True");
              });

      String victim = pods.get(0).at("/metadata/name").asText();
      Set<String> before = names(pods);
      HttpResponse<String> deleted =
          send("DELETE", "/api/v1/namespaces/default/pods/" + victim, null);
      assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);

      await("the deleted pod to be stopped and gone")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> status("/api/v1/namespaces/default/pods/" + victim) == 404);
      await("a replacement pod Running and Ready")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                Set<String> now = names(readyPods("web"));
                return now.size() == 3 && !now.contains(victim) && !now.equals(before);
              });
      assertThat(nodes.stream().mapToLong(NodeFleet::errors).sum()).as("failed requests").isZero();
    } finally {
      for (NodeFleet fleet : nodes) {
        fleet.close();
      }
    }
  }

  @Test
  @Order(2)
  void aFleetOf200SimulatedNodesRegistersReadyNodesAndRenewsTheirLeases() throws Exception {
    int count = 200;
    try (NodeFleet fleet =
        NodeFleet.start(
            gateway.url(),
            bootstrap,
            topics.bindings(),
            NodeFleet.numbered("fleet-", count, NodeOptions.defaults("template"), false),
            SimulatedRuntime::new,
            KubeletConfig.simulated())) {
      await("every node of the fleet to register")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> fleet.registered() == count);

      Set<String> readyNodes = new HashSet<>();
      for (JsonNode node : get("/api/v1/nodes").get("items")) {
        String name = node.at("/metadata/name").asText();
        if (name.startsWith("fleet-") && hasCondition(node, "Ready", "True")) {
          readyNodes.add(name);
        }
      }
      assertThat(readyNodes).hasSize(count);
      await("a lease for every node of the fleet")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> leaseHolders("fleet-").size() == count);
      assertThat(fleet.errors()).as("failed requests").isZero();
      assertThat(BindingsConsumer.partition("fleet-7", 6))
          .as("the node reads the partition the store writes")
          .isEqualTo(BindingKey.partition("fleet-7", 6));
    }
  }

  @Test
  @Order(3)
  void aDeletedKubeNodeLeaseComesBackAndTheNodeCreatesItsLeaseThereAgain() throws Exception {
    String namespace = "/api/v1/namespaces/kube-node-lease";
    gateway.keepSystemNamespaces(SYSTEM, Duration.ofMillis(500));
    try (NodeFleet node =
        NodeFleet.start(
            gateway.url(),
            bootstrap,
            topics.bindings(),
            NodeFleet.numbered("renewing-", 1, NodeOptions.defaults("template"), false),
            SimulatedRuntime::new,
            KubeletConfig.simulated())) {
      await("the node's lease")
          .atMost(Duration.ofSeconds(60))
          .until(() -> leaseHolders("renewing-").size() == 1);
      String oldUid = get(namespace).at("/metadata/uid").asText();

      assertThat(send("DELETE", namespace, null).statusCode()).isEqualTo(200);

      // The namespace controller empties and finalizes it; then the gateway creates it again.
      await("a new kube-node-lease")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                HttpResponse<String> ns = send("GET", namespace, null);
                JsonNode body = KubeJson.parseJson(ns.body());
                return ns.statusCode() == 200
                    && !body.at("/metadata/uid").asText().equals(oldUid)
                    && body.at("/status/phase").asText().equals("Active");
              });
      await("the node's lease in the new namespace")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> leaseHolders("renewing-").size() == 1);
    }
  }

  @Test
  @Order(4)
  void aRestartedNodeNeverRunsAFinishedPodAgain() throws Exception {
    NodeOptions options =
        NodeOptions.defaults("restarted-node").withPodCIDR(PodAddresses.cidrForIndex(1100));
    String pod =
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"once","namespace":"default",
         "annotations":{"%s":"1s"}},
         "spec":{"nodeName":"restarted-node","restartPolicy":"Never",
         "containers":[{"name":"c","image":"busybox"}]}}
        """
            .formatted(SimulatedRuntime.RUN_FOR);
    String path = "/api/v1/namespaces/default/pods/once";
    try (NodeFleet node = startNode(options)) {
      await("the node to register")
          .atMost(Duration.ofSeconds(60))
          .until(() -> node.registered() == 1);
      HttpResponse<String> created = send("POST", "/api/v1/namespaces/default/pods", pod);
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      await("the pod to succeed")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> get(path).at("/status/phase").asText().equals("Succeeded"));
    }
    String finished = get(path).at("/metadata/resourceVersion").asText();

    // The restarted node reads the pod's bindings from the start: pending, running, succeeded.
    try (NodeFleet node = startNode(options)) {
      await("the node to register again")
          .atMost(Duration.ofSeconds(60))
          .until(() -> node.registered() == 1);
      Thread.sleep(5_000);
      JsonNode after = get(path);
      assertThat(after.at("/status/phase").asText()).isEqualTo("Succeeded");
      assertThat(after.at("/metadata/resourceVersion").asText())
          .as("nothing written about the finished pod")
          .isEqualTo(finished);
    } finally {
      send("DELETE", path, null);
    }
  }

  private NodeFleet startNode(NodeOptions options) throws Exception {
    return NodeFleet.start(
        gateway.url(),
        bootstrap,
        topics.bindings(),
        List.of(options),
        SimulatedRuntime::new,
        KubeletConfig.simulated());
  }

  private Set<String> leaseHolders(String prefix) throws Exception {
    Set<String> holders = new HashSet<>();
    for (JsonNode lease :
        get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases").get("items")) {
      String holder = lease.at("/spec/holderIdentity").asText();
      if (holder.startsWith(prefix) && lease.at("/spec/renewTime").isTextual()) {
        holders.add(holder);
      }
    }
    return holders;
  }

  private List<JsonNode> readyPods(String app) throws Exception {
    List<JsonNode> ready = new ArrayList<>();
    for (JsonNode pod :
        get("/api/v1/namespaces/default/pods?labelSelector=app%3D" + app).get("items")) {
      if (pod.at("/metadata/deletionTimestamp").isMissingNode()
          && "Running".equals(pod.at("/status/phase").asText())
          && hasCondition(pod, "Ready", "True")) {
        ready.add(pod);
      }
    }
    return ready;
  }

  private static Set<String> names(List<JsonNode> objects) {
    Set<String> names = new HashSet<>();
    objects.forEach(o -> names.add(o.at("/metadata/name").asText()));
    return names;
  }

  private static boolean hasCondition(JsonNode object, String type, String status) {
    for (JsonNode condition : object.at("/status/conditions")) {
      if (type.equals(condition.path("type").asText())
          && status.equals(condition.path("status").asText())) {
        return true;
      }
    }
    return false;
  }

  private static String deployment(String name, int replicas) {
    return """
        {"apiVersion":"apps/v1","kind":"Deployment",
         "metadata":{"name":"%s","namespace":"default"},
         "spec":{"replicas":%d,"selector":{"matchLabels":{"app":"%s"}},
           "template":{"metadata":{"labels":{"app":"%s"}},
             "spec":{"terminationGracePeriodSeconds":1,
               "containers":[{"name":"web","image":"nginx:1.27",
                 "resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}}
        """
        .formatted(name, replicas, name, name);
  }

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> response = send("GET", path, null);
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return KubeJson.parseJson(response.body());
  }

  private int status(String path) throws Exception {
    return send("GET", path, null).statusCode();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(gateway.url() + path))
            .timeout(Duration.ofSeconds(40))
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
