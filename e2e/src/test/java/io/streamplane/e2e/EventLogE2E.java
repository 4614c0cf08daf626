package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The log as the product, end to end with the real kubectl: a Deployment rolled out twice, a pod
 * deleted, the time noted, the Deployment deleted; then {@code streamplane history} shows every
 * version with its actor and a diff, {@code streamplane replay --until <that time> --serve} serves
 * the cluster as it was (the Deployment, its ReplicaSets and pods) read-only, a list at an old
 * resourceVersion answers the old pods, and after scale-downs, a node killed for good and a
 * namespace deleted, {@code streamplane replay --verify} finds the log and the live state equal.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EventLogE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration LONG = Duration.ofMinutes(3);
  private static final Duration POLL = Duration.ofMillis(500);

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;
  private final List<Launcher> started = new ArrayList<>();

  @BeforeAll
  void startCluster() throws Exception {
    home = Files.createTempDirectory("event-log-e2e");
    cluster =
        new LocalCluster(
                home,
                "--nodes",
                "0",
                "--node-monitor-grace-period",
                "20",
                "--default-toleration-seconds",
                "5")
            .start();
    kubectl = cluster.kubectl;
    startNode("node-a");
    startNode("node-b");
    await("both nodes Ready").atMost(LONG).pollInterval(POLL).until(() -> readyNodes() == 2);
  }

  @AfterAll
  void stopCluster() {
    started.forEach(Launcher::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void thePastIsReadableReplayableAndEqualToTheLiveState() throws Exception {
    kubectl.run("apply", "-f", example("nginx-deployment.yaml")).expectSuccess();
    rolledOut();
    String before = listVersion("default");
    List<String> podsBefore = names(kubectl.run("get", "pods", "-o", "json").expectSuccess().out());
    kubectl.run("set", "image", "deploy/nginx-deployment", "nginx=nginx:1.26").expectSuccess();
    rolledOut();
    kubectl.run("set", "image", "deploy/nginx-deployment", "nginx=nginx:1.27").expectSuccess();
    rolledOut();
    String aPod = names(kubectl.run("get", "pods", "-o", "json").expectSuccess().out()).get(0);
    kubectl.run("delete", "pod", aPod, "--wait=false").expectSuccess();
    await("the replacement pod").atMost(LONG).pollInterval(POLL).until(this::allPodsRunning);
    Thread.sleep(1500);
    Instant noted = Instant.now();
    List<String> podsAtNoted =
        names(kubectl.run("get", "pods", "-o", "json").expectSuccess().out());
    Thread.sleep(1500);
    kubectl.run("delete", "deployment", "nginx-deployment").expectSuccess();

    // history: every version, with actors and diffs.
    Launcher history =
        Launcher.start(
            "history", "deployment/nginx-deployment", "--kubeconfig", kubeconfigPath().toString());
    assertThat(history.awaitExit(LONG)).as(String.join("\n", history.lines())).isZero();
    String shown = String.join("\n", history.lines());
    assertThat(shown)
        .contains("=== ADDED")
        .contains("=== DELETED")
        .contains("actor: kubernetes-admin")
        .contains("system:serviceaccount:kube-system:deployment-controller")
        .containsPattern("\\n\\+ +image: nginx:1.26\\n");

    // A list at an old version answers the pods of then.
    JsonNode old =
        JSON.readTree(
            kubectl
                .run(
                    "get",
                    "--raw",
                    "/api/v1/namespaces/default/pods?resourceVersionMatch=Exact&resourceVersion="
                        + before)
                .expectSuccess()
                .out());
    assertThat(names(old)).containsExactlyInAnyOrderElementsOf(podsBefore);

    // The cluster as it was at the noted time, served read-only.
    int port = Launcher.freePort();
    Path pastConfig = home.resolve("past-kubeconfig");
    Launcher past =
        Launcher.startLabelled(
            "replay",
            "replay",
            "--until",
            noted.toString(),
            "--serve",
            "--port",
            Integer.toString(port),
            "--kubeconfig",
            pastConfig.toString(),
            "--bootstrap-server",
            cluster.kafkaBootstrap());
    started.add(past);
    Kubectl then = new Kubectl(pastConfig);
    await("the past to be served")
        .atMost(LONG)
        .pollInterval(POLL)
        .until(() -> Files.exists(pastConfig) && then.run("get", "ns").exitCode() == 0);
    assertThat(then.run("get", "deploy", "nginx-deployment").expectSuccess().out())
        .contains("nginx-deployment");
    assertThat(names(then.run("get", "rs", "-o", "json").expectSuccess().out())).hasSize(3);
    assertThat(names(then.run("get", "pods", "-o", "json").expectSuccess().out()))
        .containsExactlyInAnyOrderElementsOf(podsAtNoted);
    assertThat(then.run("get", "deploy", "nginx-deployment", "-o", "yaml").expectSuccess().out())
        .contains("image: nginx:1.27");
    Kubectl.Result write = then.run("delete", "pod", podsAtNoted.get(0));
    assertThat(write.exitCode()).isNotZero();
    assertThat(write.err()).contains("read-only");
    past.close();

    // More history: scale-downs, a node lost, a namespace deleted; then the log must verify.
    kubectl.run("create", "namespace", "shop").expectSuccess();
    kubectl
        .run("create", "deployment", "web", "-n", "shop", "--image=nginx", "--replicas=4")
        .expectSuccess();
    kubectl.run("apply", "-f", example("nginx-deployment.yaml")).expectSuccess();
    kubectl.run("scale", "deploy/nginx-deployment", "--replicas=4").expectSuccess();
    rolledOut();
    kubectl.run("scale", "deploy/nginx-deployment", "--replicas=1").expectSuccess();
    rolledOut();
    kubectl.run("delete", "namespace", "shop", "--wait=false").expectSuccess();
    await("namespace shop gone")
        .atMost(LONG)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> kubectl.run("get", "namespace", "shop").exitCode() != 0);
    started.get(1).kill();
    // Pods evicted from the dead node stay Terminating until it confirms, as in Kubernetes.
    await("node-b NotReady and the Deployment's pod Running on node-a")
        .atMost(LONG)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> readyNodes() == 1 && activePodsRunningOn("node-a") == 1);
    Thread.sleep(3000);

    Launcher verify =
        Launcher.start("replay", "--verify", "--bootstrap-server", cluster.kafkaBootstrap());
    int exit = verify.awaitExit(LONG);
    assertThat(exit).as(String.join("\n", verify.lines())).isZero();
  }

  private void startNode(String name) throws Exception {
    Launcher node =
        Launcher.startLabelled(
            name,
            "node",
            "--name",
            name,
            "--runtime",
            "simulated",
            "--api-server",
            cluster.apiUrl(),
            "--pki-dir",
            cluster.pkiDir().toString(),
            "--bootstrap-server",
            cluster.kafkaBootstrap(),
            "--root-dir",
            home.resolve(name).toString());
    node.awaitLine("Ctrl-C to stop", LONG);
    started.add(node);
  }

  private Path kubeconfigPath() {
    return home.resolve("kubeconfig");
  }

  private void rolledOut() throws Exception {
    kubectl.run("rollout", "status", "deploy/nginx-deployment", "--timeout=120s").expectSuccess();
    await("every pod Running").atMost(LONG).pollInterval(POLL).until(this::allPodsRunning);
  }

  private boolean allPodsRunning() throws Exception {
    JsonNode pods = JSON.readTree(kubectl.run("get", "pods", "-o", "json").expectSuccess().out());
    for (JsonNode pod : pods.path("items")) {
      if (!pod.path("metadata").path("deletionTimestamp").isMissingNode()
          || !"Running".equals(pod.path("status").path("phase").asText())) {
        return false;
      }
    }
    return true;
  }

  private long activePodsRunningOn(String node) throws Exception {
    JsonNode pods = JSON.readTree(kubectl.run("get", "pods", "-o", "json").expectSuccess().out());
    long running = 0;
    for (JsonNode pod : pods.path("items")) {
      if (pod.path("metadata").path("deletionTimestamp").isMissingNode()
          && node.equals(pod.path("spec").path("nodeName").asText())
          && "Running".equals(pod.path("status").path("phase").asText())) {
        running++;
      }
    }
    return running;
  }

  private long readyNodes() throws Exception {
    JsonNode nodes = JSON.readTree(kubectl.run("get", "nodes", "-o", "json").expectSuccess().out());
    long ready = 0;
    for (JsonNode node : nodes.path("items")) {
      for (JsonNode condition : node.path("status").path("conditions")) {
        if ("Ready".equals(condition.path("type").asText())
            && "True".equals(condition.path("status").asText())) {
          ready++;
        }
      }
    }
    return ready;
  }

  private String listVersion(String namespace) throws Exception {
    return JSON.readTree(
            kubectl
                .run("get", "--raw", "/api/v1/namespaces/" + namespace + "/pods")
                .expectSuccess()
                .out())
        .path("metadata")
        .path("resourceVersion")
        .asText();
  }

  private static List<String> names(String listJson) throws Exception {
    return names(JSON.readTree(listJson));
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.path("items").forEach(i -> names.add(i.path("metadata").path("name").asText()));
    return names;
  }

  private static String example(String file) {
    return Launcher.repositoryRoot().resolve("examples").resolve(file).toString();
  }
}
