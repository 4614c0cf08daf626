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
 * A DaemonSet on a cluster of process nodes, judged with kubectl: one Ready pod per Ready node, a
 * pod for a node that joins later, a template change rolled out node by node until {@code kubectl
 * rollout status} says so, and the revisions {@code kubectl rollout history} and {@code undo} read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DaemonSetE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration LONG = Duration.ofSeconds(120);

  private static final String DAEMON_SET =
      """
      apiVersion: apps/v1
      kind: DaemonSet
      metadata:
        name: agent
      spec:
        selector:
          matchLabels:
            app: agent
        template:
          metadata:
            labels:
              app: agent
          spec:
            terminationGracePeriodSeconds: 1
            containers:
            - name: agent
              image: busybox
              command: ["/bin/sh", "-c", "sleep 3600"]
      """;

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;
  private Launcher joined;

  @BeforeAll
  void startCluster() throws Exception {
    home = Files.createTempDirectory("daemonset-e2e");
    cluster = new LocalCluster(home, "--nodes", "2", "--runtime", "process").start();
    kubectl = cluster.kubectl;
    await("two Ready nodes").atMost(LONG).until(() -> readyNodes().size() == 2);
  }

  @AfterAll
  void stopCluster() throws Exception {
    try {
      if (joined != null) {
        joined.close();
      }
      cluster.stop();
    } finally {
      cluster.close();
      try (var files = Files.walk(home)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void aDaemonSetRunsOneReadyPodPerNodeFollowsANewNodeAndRollsATemplateChange() throws Exception {
    kubectl.runWithInput(DAEMON_SET, "apply", "-f", "-").expectSuccess();
    assertThat(rolloutStatus()).contains("daemon set \"agent\" successfully rolled out");
    assertThat(podNodes()).containsExactlyInAnyOrderElementsOf(readyNodes());
    assertThat(
            String.join(
                " ",
                kubectl
                    .run("get", "ds", "agent", "--no-headers")
                    .expectSuccess()
                    .out()
                    .trim()
                    .split("\\s+")))
        .startsWith("agent 2 2 2 2 2 <none>");
    assertThat(kubectl.run("get", "all", "--no-headers").expectSuccess().out())
        .contains("daemonset.apps/agent");

    joined = cluster.startProcessNode("joined", home.resolve("joined"));
    await("the joined node Ready").atMost(LONG).until(() -> readyNodes().size() == 3);
    await("a Ready agent pod on each of the three nodes")
        .atMost(LONG)
        .untilAsserted(
            () -> assertThat(podNodes()).containsExactlyInAnyOrderElementsOf(readyNodes()));
    assertThat(podNodes()).contains("joined");

    kubectl.run("annotate", "ds/agent", "kubernetes.io/change-cause=v2").expectSuccess();
    kubectl.run("set", "env", "ds/agent", "VERSION=2").expectSuccess();
    assertThat(rolloutStatus()).contains("daemon set \"agent\" successfully rolled out");
    JsonNode pods = json("get", "pods", "-l", "app=agent", "-o", "json").path("items");
    assertThat(pods).hasSize(3);
    for (JsonNode pod : pods) {
      assertThat(pod.at("/spec/containers/0/env/0/value").asText()).isEqualTo("2");
    }
    String history = kubectl.run("rollout", "history", "ds/agent").expectSuccess().out();
    assertThat(history.lines().map(String::strip)).contains("1         <none>", "2         v2");

    kubectl.run("rollout", "undo", "ds/agent").expectSuccess();
    assertThat(rolloutStatus()).contains("daemon set \"agent\" successfully rolled out");
    assertThat(json("get", "pods", "-l", "app=agent", "-o", "json").path("items"))
        .hasSize(3)
        .allSatisfy(pod -> assertThat(pod.at("/spec/containers/0/env").isMissingNode()).isTrue());
  }

  private String rolloutStatus() throws Exception {
    return kubectl.run("rollout", "status", "ds/agent", "--timeout=180s").expectSuccess().out();
  }

  private List<String> readyNodes() throws Exception {
    List<String> ready = new ArrayList<>();
    for (String line : kubectl.run("get", "nodes", "--no-headers").out().lines().toList()) {
      String[] cells = line.trim().split("\\s+");
      if (cells.length > 1 && cells[1].equals("Ready")) {
        ready.add(cells[0]);
      }
    }
    return ready;
  }

  /** The nodes of the agent pods that are Running and Ready and not being deleted. */
  private List<String> podNodes() throws Exception {
    List<String> nodes = new ArrayList<>();
    for (JsonNode pod : json("get", "pods", "-l", "app=agent", "-o", "json").path("items")) {
      boolean ready = false;
      for (JsonNode condition : pod.at("/status/conditions")) {
        ready |=
            condition.path("type").asText().equals("Ready")
                && condition.path("status").asText().equals("True");
      }
      if (ready && pod.at("/metadata/deletionTimestamp").isMissingNode()) {
        nodes.add(pod.at("/spec/nodeName").asText());
      }
    }
    return nodes;
  }

  private JsonNode json(String... args) throws Exception {
    return JSON.readTree(kubectl.run(args).expectSuccess().out());
  }
}
