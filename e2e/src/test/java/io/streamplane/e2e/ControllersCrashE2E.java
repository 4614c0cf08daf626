package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controllers run as their own process ({@code streamplane controllers}) next to {@code up
 * --no-controllers}; killed with {@code kill -9} in the middle of scaling and started again, they
 * finish the job with no duplicate pod and no step lost.
 */
class ControllersCrashE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String REPLICA_SET =
      """
      apiVersion: apps/v1
      kind: ReplicaSet
      metadata:
        name: crowd
      spec:
        replicas: %d
        selector:
          matchLabels:
            app: crowd
        template:
          metadata:
            labels:
              app: crowd
          spec:
            containers:
            - name: c
              image: nginx:1.14.2
      """;

  @Test
  void killedControllersResumeWithoutDuplicatesOrLoss(@TempDir Path home) throws Exception {
    try (LocalCluster cluster = new LocalCluster(home, "--no-controllers").start()) {
      String[] controllers = {
        "controllers",
        "--bootstrap-server",
        cluster.kafkaBootstrap(),
        "--state-dir",
        home.resolve("ctl").toString()
      };
      Launcher first = Launcher.start(controllers);
      first.awaitLine("controllers: running", Duration.ofMinutes(2));
      cluster.kubectl.runWithInput(REPLICA_SET.formatted(40), "apply", "-f", "-").expectSuccess();
      await("the controllers to start creating pods")
          .atMost(Duration.ofSeconds(60))
          .until(() -> pods(cluster).size() > 0);

      first.kill();
      cluster.kubectl.run("scale", "rs", "crowd", "--replicas=60").expectSuccess();
      try (Launcher second = Launcher.start(controllers)) {
        await("60 pods after the restart")
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> pods(cluster).size() == 60);
        await("the ReplicaSet status to count them")
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    cluster
                        .kubectl
                        .run("get", "rs", "crowd", "-o", "jsonpath={.status.replicas}")
                        .out()
                        .equals("60"));
        Set<String> names = new HashSet<>(pods(cluster));
        assertThat(names).hasSize(60);
        assertThat(pods(cluster)).as("no pod beyond the 60 appears later").hasSize(60);
        second.interrupt(Duration.ofSeconds(60));
      }
      cluster.stop();
    }
  }

  private static List<String> pods(LocalCluster cluster) throws Exception {
    JsonNode list =
        JSON.readTree(
            cluster
                .kubectl
                .run("get", "pods", "-l", "app=crowd", "-o", "json")
                .expectSuccess()
                .out());
    List<String> names = new ArrayList<>();
    list.path("items").forEach(p -> names.add(p.path("metadata").path("name").asText()));
    return names;
  }
}
