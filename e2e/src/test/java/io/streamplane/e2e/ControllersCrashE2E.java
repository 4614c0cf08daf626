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

        // Mid-rollout: the image changes and the controllers die before they can act on it.
        cluster
            .kubectl
            .run("create", "deployment", "rolling", "--image=nginx:1.14.2", "--replicas=4")
            .expectSuccess();
        await("the first ReplicaSet's 4 pods")
            .atMost(Duration.ofSeconds(60))
            .until(() -> podsOf(cluster, "app=rolling").size() == 4);
        cluster.kubectl.run("set", "image", "deploy/rolling", "nginx=nginx:1.16.1").expectSuccess();
        second.kill();
      }
      try (Launcher third = Launcher.start(controllers)) {
        await("the rollout's second ReplicaSet, with its pods, after the restart")
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofSeconds(1))
            .until(
                () -> {
                  JsonNode sets = json(cluster, "get", "rs", "-l", "app=rolling", "-o", "json");
                  int wanted = 0;
                  for (JsonNode rs : sets.path("items")) {
                    wanted += rs.path("spec").path("replicas").asInt();
                  }
                  return sets.path("items").size() == 2
                      && podsOf(cluster, "app=rolling").size() == wanted;
                });
        List<String> rolling = podsOf(cluster, "app=rolling");
        assertThat(new HashSet<>(rolling)).hasSameSizeAs(rolling);
        assertThat(rolling.size()).as("4 replicas and a surge of 25%% (1)").isLessThanOrEqualTo(5);
        third.interrupt(Duration.ofSeconds(60));
      }
      cluster.stop();
    }
  }

  private static List<String> pods(LocalCluster cluster) throws Exception {
    return podsOf(cluster, "app=crowd");
  }

  private static JsonNode json(LocalCluster cluster, String... args) throws Exception {
    return JSON.readTree(cluster.kubectl.run(args).expectSuccess().out());
  }

  private static List<String> podsOf(LocalCluster cluster, String selector) throws Exception {
    JsonNode list = json(cluster, "get", "pods", "-l", selector, "-o", "json");
    List<String> names = new ArrayList<>();
    list.path("items").forEach(p -> names.add(p.path("metadata").path("name").asText()));
    return names;
  }
}
