package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of the whole cluster process in the middle of a rollout, right after a write was
 * answered: on restart the write is there, the rollout finishes with exactly its replicas, all
 * Running again within a bound of the restart's ready, and the Streams apps that were killed
 * discard their tasks' state at once (to restore it from the changelogs) rather than finding each
 * task corrupted. Then Ctrl-C and {@code up} again: a clean stop keeps the state, and the third
 * start finds the topics, the records and the certificates of the first, so its kubeconfig still
 * works.
 */
class CrashSafetyE2E {

  private static final int REPLICAS = 60;

  /** Every topic of the catalogue, the schemas topic among them. */
  private static final int TOPICS =
      new Topics(TopicLayout.singleBroker("sp"), new InMemorySchemaCatalog()).all().size();

  private static final Duration RUNNING_AGAIN = Duration.ofSeconds(60);

  @Test
  void aClusterKilledMidRolloutKeepsItsWritesAndFinishesTheRollout(@TempDir Path home)
      throws Exception {
    try (LocalCluster cluster =
        new LocalCluster(home, "--nodes", "4", "--runtime", "simulated").start()) {
      assertThat(cluster.launcher().awaitLine("topics:", Duration.ofSeconds(5)))
          .contains("0 found, " + TOPICS + " created");
      Kubectl kubectl = cluster.kubectl;
      kubectl
          .run(
              "create", "deployment", "web", "--image=nginx", "--replicas=" + REPLICAS, "--port=80")
          .expectSuccess();
      await("the rollout to be under way")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> !pods(kubectl).isEmpty());
      assertThat(
              kubectl
                  .run("create", "configmap", "survivor", "--from-literal=k=v")
                  .expectSuccess()
                  .out())
          .contains("configmap/survivor created");

      cluster.kill();
      cluster.start();

      assertThat(
              kubectl
                  .run("get", "configmap", "survivor", "-o", "jsonpath={.data.k}")
                  .expectSuccess()
                  .out())
          .isEqualTo("v");
      await("every replica Running again")
          .atMost(RUNNING_AGAIN)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> pods(kubectl).stream().filter(p -> p.endsWith("Running")).count() == REPLICAS);
      assertThat(pods(kubectl)).as("exactly the replicas, none twice").hasSize(REPLICAS);
      assertThat(kubectl.run("get", "rs", "--no-headers").expectSuccess().out().lines())
          .as("one ReplicaSet")
          .hasSize(1);
      assertThat(cluster.launcher().lines())
          .as("the killed apps discard their state at once")
          .anyMatch(l -> l.contains("did not stop cleanly; discarded the state of its"))
          .noneMatch(l -> l.contains("did not find checkpoint offsets while stores are not empty"));
      cluster.stop();
      String ca = Files.readString(cluster.pkiDir().resolve("ca.crt"));

      cluster.start();
      assertThat(cluster.launcher().awaitLine("topics:", Duration.ofSeconds(5)))
          .contains(TOPICS + " found, 0 created");
      assertThat(cluster.launcher().lines())
          .as("a clean stop keeps the apps' state")
          .noneMatch(l -> l.contains("did not stop cleanly"));
      assertThat(
              kubectl
                  .run("get", "configmap", "survivor", "-o", "jsonpath={.data.k}")
                  .expectSuccess()
                  .out())
          .isEqualTo("v");
      assertThat(Files.readString(cluster.pkiDir().resolve("ca.crt")))
          .as("the restarted cluster keeps the CA its kubeconfig trusts")
          .isEqualTo(ca);
      cluster.stop();
    }
  }

  /** The pods, as {@code name phase}. */
  private static List<String> pods(Kubectl kubectl) throws Exception {
    String out =
        kubectl
            .run(
                "get",
                "pods",
                "-o",
                "jsonpath={range .items[*]}{.metadata.name} {.status.phase}{\"\\n\"}{end}")
            .expectSuccess()
            .out();
    return Arrays.stream(out.split("\n")).filter(l -> !l.isBlank()).toList();
  }
}
