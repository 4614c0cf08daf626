package io.streamplane.node.runtime.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.api.Container;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulatedRuntimeTest {

  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final SimulatedRuntime runtime =
      new SimulatedRuntime(scheduler, Duration.ZERO, Duration.ZERO, Clock.systemUTC());

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
  }

  private static Pod pod(Map<String, String> annotations) {
    return Pod.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("job-x")
                .setNamespace("default")
                .setUid("uid-1")
                .setAnnotations(annotations)
                .build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(
                    List.of(Container.newBuilder().setName("main").setImage("busybox").build()))
                .build())
        .build();
  }

  @Test
  void aPodAnnotatedToRunForAWhileExitsWithZeroThen() throws Exception {
    PodSandbox box =
        runtime.start(pod(Map.of(SimulatedRuntime.RUN_FOR, "PT0.2S")), "10.0.0.1", null).get();
    assertThat(runtime.status(box).containers().get(0).state())
        .isEqualTo(RuntimeContainer.State.RUNNING);

    await("the container to exit")
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> runtime.status(box).containers().get(0).state() == RuntimeContainer.State.EXITED);

    RuntimeContainer exited = runtime.status(box).containers().get(0);
    assertThat(exited.exitCode()).isZero();
    assertThat(exited.reason()).isEqualTo("Completed");
  }

  @Test
  void aPodWithoutTheAnnotationKeepsRunning() throws Exception {
    PodSandbox box = runtime.start(pod(null), "10.0.0.1", null).get();
    Thread.sleep(300);

    assertThat(runtime.status(box).containers().get(0).state())
        .isEqualTo(RuntimeContainer.State.RUNNING);
  }
}
