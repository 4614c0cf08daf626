package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A PodDisruptionBudget judged with kubectl on two simulated nodes: its status kept by the
 * disruption controller, one eviction accepted and the next refused with 429 while the budget is
 * spent, and {@code kubectl drain} evicting a node's pods one at a time as the Deployment replaces
 * them on the other node, then {@code kubectl uncordon}. And a HorizontalPodAutoscaler made with
 * {@code kubectl autoscale} scaling a Deployment up and back down as its pods' simulated use
 * ({@code streamplane.io/simulated-usage}) rises and falls; the gateway scrapes the nodes and the
 * autoscaler looks every 2 s here, rather than 15.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.TWO_SIMULATED_NODES)
class DisruptionE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration LONG = Duration.ofSeconds(120);

  private static final String WORKLOAD =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        replicas: 3
        selector:
          matchLabels:
            app: web
        template:
          metadata:
            labels:
              app: web
          spec:
            terminationGracePeriodSeconds: 1
            containers:
            - name: web
              image: nginx
      ---
      apiVersion: policy/v1
      kind: PodDisruptionBudget
      metadata:
        name: web
      spec:
        minAvailable: 2
        selector:
          matchLabels:
            app: web
      """;

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    home = Files.createTempDirectory("disruption-e2e");
    cluster = shared;
    kubectl = cluster.kubectl;
  }

  @AfterAll
  void cleanUp() throws Exception {
    kubectl
        .run("delete", "deploy/web", "pdb/web", "pdb/db", "--ignore-not-found", "--wait=false")
        .expectSuccess();
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void evictionsRespectTheBudgetAndDrainEmptiesANode() throws Exception {
    kubectl.runWithInput(WORKLOAD, "apply", "-f", "-").expectSuccess();
    awaitBudgetAllows(1);
    assertThat(
            String.join(
                " ",
                kubectl
                    .run("get", "pdb", "web", "--no-headers")
                    .expectSuccess()
                    .out()
                    .trim()
                    .split("\\s+")))
        .startsWith("web 2 N/A 1");
    JsonNode status = json("get", "pdb", "web", "-o", "json").path("status");
    assertThat(status.path("expectedPods").asInt()).isEqualTo(3);
    assertThat(status.path("currentHealthy").asInt()).isEqualTo(3);
    assertThat(status.path("desiredHealthy").asInt()).isEqualTo(2);
    assertThat(status.at("/conditions/0/reason").asText()).isEqualTo("SufficientPods");

    List<String> pods = readyPods(null);
    evict(pods.get(0)).expectSuccess();
    Kubectl.Result refused = evict(pods.get(1));
    assertThat(refused.exitCode()).isNotZero();
    assertThat(refused.err())
        .contains("TooManyRequests")
        .contains("Cannot evict pod as it would violate the pod's disruption budget.");
    assertThat(readyPods(null)).doesNotContain(pods.get(0)).contains(pods.get(1));

    awaitBudgetAllows(1);
    String node = nodeOf(readyPods(null).get(0));
    Kubectl.Result drained =
        kubectl
            // Only this test's pods: other classes' pods may share the node.
            .run(
                "drain",
                node,
                "--pod-selector=app=web",
                "--ignore-daemonsets",
                "--delete-emptydir-data",
                "--timeout=120s")
            .expectSuccess();
    assertThat(drained.out()).contains("node/" + node + " cordoned").contains(" evicted");
    assertThat(readyPods(node)).isEmpty();
    assertThat(json("get", "node", node, "-o", "json").at("/spec/unschedulable").asBoolean())
        .isTrue();
    awaitBudgetAllows(1);
    assertThat(readyPods(null)).hasSize(3);

    // kubectl create pdb sends its budget as protobuf.
    kubectl.run("create", "pdb", "db", "--selector=app=db", "--max-unavailable=1").expectSuccess();
    assertThat(
            String.join(
                " ",
                kubectl
                    .run("get", "pdb", "db", "--no-headers")
                    .expectSuccess()
                    .out()
                    .trim()
                    .split("\\s+")))
        .startsWith("db N/A 1 0");

    kubectl.run("uncordon", node).expectSuccess();
    assertThat(json("get", "node", node, "-o", "json").at("/spec/unschedulable").asBoolean())
        .isFalse();
  }

  private Kubectl.Result evict(String pod) throws Exception {
    Path body = home.resolve("eviction-" + pod + ".json");
    Files.writeString(
        body,
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\""
            + pod
            + "\",\"namespace\":\"default\"}}");
    return kubectl.run(
        "create",
        "--raw",
        "/api/v1/namespaces/default/pods/" + pod + "/eviction",
        "-f",
        body.toString());
  }

  private void awaitBudgetAllows(int disruptions) {
    await("the budget to allow " + disruptions + " disruption with three Ready pods")
        .atMost(LONG)
        .until(
            () -> {
              JsonNode status = json("get", "pdb", "web", "-o", "json").path("status");
              return status.path("disruptionsAllowed").asInt() == disruptions
                  && status.path("currentHealthy").asInt() == 3;
            });
  }

  private String nodeOf(String pod) throws Exception {
    return json("get", "pod", pod, "-o", "json").at("/spec/nodeName").asText();
  }

  /** The web pods Running, Ready and not being deleted, on {@code node} (null: any). */
  private List<String> readyPods(String node) throws Exception {
    List<String> names = new ArrayList<>();
    for (JsonNode pod : json("get", "pods", "-l", "app=web", "-o", "json").path("items")) {
      boolean ready = false;
      for (JsonNode condition : pod.at("/status/conditions")) {
        ready |=
            condition.path("type").asText().equals("Ready")
                && condition.path("status").asText().equals("True");
      }
      if (ready
          && pod.at("/metadata/deletionTimestamp").isMissingNode()
          && (node == null || node.equals(pod.at("/spec/nodeName").asText()))) {
        names.add(pod.at("/metadata/name").asText());
      }
    }
    return names;
  }

  private JsonNode json(String... args) throws Exception {
    return JSON.readTree(kubectl.run(args).expectSuccess().out());
  }

  @Test
  void anAutoscalerScalesADeploymentUpUnderLoadAndBackDownWhenItStops() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: Namespace
            metadata:
              name: autoscaled
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: burner
              namespace: autoscaled
            spec:
              replicas: 1
              selector:
                matchLabels:
                  app: burner
              template:
                metadata:
                  labels:
                    app: burner
                  annotations:
                    streamplane.io/simulated-usage: cpu=100m
                spec:
                  terminationGracePeriodSeconds: 1
                  containers:
                  - name: burn
                    image: busybox
                    command: ["sh", "-c", "while true; do :; done"]
                    resources: {requests: {cpu: 100m}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    kubectl
        .run(
            "autoscale",
            "deployment",
            "burner",
            "-n",
            "autoscaled",
            "--cpu-percent=50",
            "--min=1",
            "--max=4")
        .expectSuccess();
    // A short scale-down window, so that the test takes seconds rather than five minutes.
    kubectl
        .run(
            "patch",
            "hpa",
            "burner",
            "-n",
            "autoscaled",
            "--type=merge",
            "-p",
            "{\"spec\":{\"behavior\":{\"scaleDown\":{\"stabilizationWindowSeconds\":4}}}}")
        .expectSuccess();

    // 100m used of 100m requested is 100% against 50%: up to maxReplicas.
    await("the autoscaler to scale the Deployment up to 4")
        .atMost(LONG)
        .until(() -> replicas("burner"), r -> r == 4);
    await("kubectl get hpa to show the use against the target")
        .atMost(LONG)
        .until(
            () -> kubectl.run("get", "hpa", "-n", "autoscaled", "--no-headers").out(),
            out ->
                out.matches(
                    "(?s)burner\\s+Deployment/burner\\s+cpu: 100%/50%\\s+1\\s+4\\s+4\\s+.*"));
    JsonNode hpa = json("get", "hpa", "burner", "-n", "autoscaled", "-o", "json");
    assertThat(hpa.at("/spec/behavior/scaleUp/policies").size()).isEqualTo(2);
    assertThat(hpa.at("/status/lastScaleTime").asText()).isNotEmpty();
    assertThat(kubectl.run("top", "pods", "-n", "autoscaled").expectSuccess().out())
        .containsPattern("burner-\\S+\\s+100m");
    assertThat(kubectl.run("describe", "hpa", "burner", "-n", "autoscaled").expectSuccess().out())
        .as("the autoscaler's Event")
        .containsPattern(
            "Normal\\s+SuccessfulRescale\\s+.*New size: \\d; reason: cpu resource utilization"
                + " \\(percentage of request\\) above target");

    // At maxReplicas and still busy, once its new pods are Ready and measured, the autoscaler
    // writes nothing more: its resourceVersion holds over three passes.
    await("the converged autoscaler to write nothing for 6 s")
        .atMost(LONG)
        .until(
            () -> {
              String before = resourceVersion("burner");
              Thread.sleep(6_000);
              return resourceVersion("burner").equals(before);
            });

    kubectl
        .run(
            "annotate",
            "pods",
            "-n",
            "autoscaled",
            "-l",
            "app=burner",
            "--overwrite",
            "streamplane.io/simulated-usage=cpu=0")
        .expectSuccess();
    await("the autoscaler to scale the Deployment back down to 1")
        .atMost(LONG)
        .until(() -> replicas("burner"), r -> r == 1);
    JsonNode v1 =
        json(
            "get",
            "--raw",
            "/apis/autoscaling/v1/namespaces/autoscaled/horizontalpodautoscalers/burner");
    assertThat(v1.at("/spec/targetCPUUtilizationPercentage").asInt()).isEqualTo(50);
    assertThat(v1.at("/metadata/annotations").toString())
        .contains("autoscaling.alpha.kubernetes.io/conditions");
    kubectl.run("delete", "namespace", "autoscaled", "--wait=false").expectSuccess();
  }

  private String resourceVersion(String hpa) throws Exception {
    return json("get", "hpa", hpa, "-n", "autoscaled", "-o", "json")
        .at("/metadata/resourceVersion")
        .asText();
  }

  private int replicas(String deployment) throws Exception {
    return json("get", "deployment", deployment, "-n", "autoscaled", "-o", "json")
        .at("/spec/replicas")
        .asInt();
  }
}
