package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./streamplane up}, Ctrl-C, {@code ./streamplane up} again on the same directories: the
 * second start finds the topics it created the first time, and the records written before — as
 * counted by the launcher and as objects kubectl reads back — and its certificates, so the
 * kubeconfig of the first run still works.
 */
class UpRestartE2E {

  private static final Duration START = Duration.ofMinutes(3);

  /** Every topic of the catalogue, the schemas topic among them. */
  private static final int TOPICS =
      new Topics(TopicLayout.singleBroker("sp"), new InMemorySchemaCatalog()).all().size();

  @Test
  void aRestartedClusterFindsItsTopicsAndRecords(@TempDir Path home) throws Exception {
    try (LocalCluster cluster = new LocalCluster(home)) {
      cluster.start();
      assertThat(cluster.launcher().awaitLine("topics:", START))
          .contains("0 found, " + TOPICS + " created");
      cluster.kubectl.run("create", "configmap", "kept", "--from-literal=a=1").expectSuccess();
      String ca = Files.readString(cluster.pkiDir().resolve("ca.crt"));
      cluster.stop();
      assertThat(cluster.launcher().lines()).anyMatch(l -> l.endsWith("stopped."));

      cluster.start();
      assertThat(cluster.launcher().awaitLine("topics:", START))
          .contains(TOPICS + " found, 0 created");
      String offsets = cluster.launcher().awaitLine("log end offsets:", START);
      Matcher commands = Pattern.compile("sp\\.commands (\\d+) ").matcher(offsets);
      assertThat(commands.find()).as(offsets).isTrue();
      assertThat(Long.parseLong(commands.group(1)))
          .as("the commands of the first run: at least 4 system namespaces and the configmap")
          .isGreaterThanOrEqualTo(5);
      assertThat(
              cluster
                  .kubectl
                  .run("get", "configmap", "kept", "-o", "jsonpath={.data.a}")
                  .expectSuccess()
                  .out())
          .isEqualTo("1");
      assertThat(Files.readString(cluster.pkiDir().resolve("ca.crt")))
          .as("the restarted cluster keeps the CA its kubeconfig trusts")
          .isEqualTo(ca);
      cluster.stop();
    }
  }
}
