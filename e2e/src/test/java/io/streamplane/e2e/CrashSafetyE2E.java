package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write answered 2xx survives {@code kill -9} of the whole cluster process, issued right after
 * the answer and before any read: on restart the object is there.
 */
class CrashSafetyE2E {

  @Test
  void anAcknowledgedCreateSurvivesKillMinusNine(@TempDir Path home) throws Exception {
    try (LocalCluster cluster = new LocalCluster(home).start()) {
      assertThat(
              cluster
                  .kubectl
                  .run("create", "configmap", "survivor", "--from-literal=k=v")
                  .expectSuccess()
                  .out())
          .contains("configmap/survivor created");

      cluster.kill();
      cluster.start();

      assertThat(
              cluster
                  .kubectl
                  .run("get", "configmap", "survivor", "-o", "jsonpath={.data.k}")
                  .expectSuccess()
                  .out())
          .isEqualTo("v");
      cluster.stop();
    }
  }
}
