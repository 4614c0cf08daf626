package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The kubectl rollout commands against the controllers, on two simulated nodes (pods become Running
 * and Ready), with every ReplicaSet event of a rolling update watched: the ReplicaSets' desired
 * replicas never add up to more than replicas + maxSurge, and their available pods never fall below
 * replicas - maxUnavailable.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.TWO_SIMULATED_NODES)
class RolloutE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int REPLICAS = 4;
  private static final int MAX_SURGE = 1;
  private static final int MAX_UNAVAILABLE = 1;

  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster(LocalCluster shared) {
    cluster = shared;
    kubectl = cluster.kubectl;
  }

  @Test
  void aRollingUpdateNeverExceedsMaxSurgeAndTheRolloutCommandsWork() throws Exception {
    kubectl.runWithInput(deployment(), "apply", "-f", "-").expectSuccess();
    assertThat(
            kubectl.run("rollout", "status", "deploy/roll", "--timeout=90s").expectSuccess().out())
        .contains("successfully rolled out");

    Map<String, Integer> desired = new ConcurrentHashMap<>();
    List<String> violations = new CopyOnWriteArrayList<>();
    List<Integer> totals = new CopyOnWriteArrayList<>();
    Thread watcher = watchReplicaSets(cluster, desired, totals, violations);

    kubectl.run("set", "image", "deploy/roll", "c=nginx:1.16.1").expectSuccess();
    assertThat(
            kubectl.run("rollout", "status", "deploy/roll", "--timeout=90s").expectSuccess().out())
        .contains("successfully rolled out");
    assertThat(desired).hasSize(2);
    kubectl.run("rollout", "restart", "deploy/roll").expectSuccess();
    await("a third ReplicaSet").atMost(Duration.ofSeconds(60)).until(() -> desired.size() == 3);
    Thread.sleep(2000);
    watcher.interrupt();

    assertThat(violations)
        .as("moments where the ReplicaSets wanted too many pods or had too few available")
        .isEmpty();
    assertThat(totals)
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t).isLessThanOrEqualTo(REPLICAS + MAX_SURGE));

    String history = kubectl.run("rollout", "history", "deploy/roll").expectSuccess().out();
    assertThat(history).contains("1 ", "2 ", "3 ");
    kubectl.run("rollout", "undo", "deploy/roll", "--to-revision=1").expectSuccess();
    await("revision 1's ReplicaSet to become revision 4")
        .atMost(Duration.ofSeconds(60))
        .until(() -> kubectl.run("rollout", "history", "deploy/roll").out().contains("4 "));
    assertThat(
            kubectl
                .run(
                    "get",
                    "deploy",
                    "roll",
                    "-o",
                    "jsonpath={.spec.template.spec.containers[0].image}")
                .out())
        .isEqualTo("nginx:1.14.2");

    kubectl.run("rollout", "pause", "deploy/roll").expectSuccess();
    kubectl.run("set", "image", "deploy/roll", "c=nginx:1.17").expectSuccess();
    Thread.sleep(2000);
    assertThat(kubectl.run("get", "rs", "-l", "app=roll", "--no-headers").out().lines().count())
        .as("no new ReplicaSet while paused")
        .isEqualTo(3);
    kubectl.run("rollout", "resume", "deploy/roll").expectSuccess();
    await("a ReplicaSet for the change made while paused")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                kubectl.run("get", "rs", "-l", "app=roll", "--no-headers").out().lines().count()
                    == 4);

    kubectl.run("delete", "deploy", "roll").expectSuccess();
    await("the ReplicaSets and pods to go with it")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> kubectl.run("get", "rs,pods", "-l", "app=roll", "--no-headers").out().isBlank());
  }

  private static Thread watchReplicaSets(
      LocalCluster cluster,
      Map<String, Integer> desired,
      List<Integer> totals,
      List<String> violations)
      throws Exception {
    HttpClient client = cluster.adminHttp();
    HttpResponse<InputStream> response =
        client.send(
            HttpRequest.newBuilder(
                    URI.create(
                        cluster.apiUrl()
                            + "/apis/apps/v1/namespaces/default/replicasets?watch=true&labelSelector=app%3Droll"))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    Map<String, Integer> available = new ConcurrentHashMap<>();
    Thread thread =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  JsonNode event = JSON.readTree(line);
                  JsonNode rs = event.path("object");
                  String name = rs.path("metadata").path("name").asText();
                  if (event.path("type").asText().equals("DELETED")) {
                    desired.remove(name);
                    available.remove(name);
                  } else {
                    desired.put(name, rs.path("spec").path("replicas").asInt());
                    available.put(name, rs.path("status").path("availableReplicas").asInt());
                  }
                  int up = available.values().stream().mapToInt(Integer::intValue).sum();
                  if (up < REPLICAS - MAX_UNAVAILABLE) {
                    violations.add(
                        event.path("type").asText()
                            + " "
                            + name
                            + ": available "
                            + up
                            + " "
                            + available);
                  }
                  int total = desired.values().stream().mapToInt(Integer::intValue).sum();
                  totals.add(total);
                  if (total > REPLICAS + MAX_SURGE) {
                    violations.add(
                        event.path("type").asText()
                            + " "
                            + name
                            + ": total "
                            + total
                            + " "
                            + desired);
                  }
                }
              } catch (Exception e) {
                // interrupted or closed: the watch is over
              }
            },
            "rs-watch");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static String deployment() {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: roll
          labels:
            app: roll
        spec:
          replicas: %d
          strategy:
            type: RollingUpdate
            rollingUpdate:
              maxSurge: %d
              maxUnavailable: 1
          selector:
            matchLabels:
              app: roll
          template:
            metadata:
              labels:
                app: roll
            spec:
              containers:
              - name: c
                image: nginx:1.14.2
        """
        .formatted(REPLICAS, MAX_SURGE);
  }
}
