package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of the whole cluster process right after a write was answered: on restart the
 * write is there, and the Streams apps that were killed discard their tasks' state at once (to
 * restore it from the changelogs) rather than finding each task corrupted. Then Ctrl-C and {@code
 * up} again: a clean stop keeps the state, and the third start finds the topics, the records and
 * the certificates of the first, so its kubeconfig still works.
 */
class CrashSafetyE2E {

  /** Every topic of the catalogue, the schemas topic among them. */
  private static final int TOPICS =
      new Topics(TopicLayout.singleBroker("sp"), new InMemorySchemaCatalog()).all().size();

  @Test
  void aClusterKilledRightAfterAWriteKeepsItAndItsAppsDiscardTheirStateAtOnce(@TempDir Path home)
      throws Exception {
    try (LocalCluster cluster = new LocalCluster(home).start()) {
      assertThat(cluster.launcher().awaitLine("topics:", Duration.ofSeconds(5)))
          .contains("0 found, " + TOPICS + " created");
      Kubectl kubectl = cluster.kubectl;
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
}
