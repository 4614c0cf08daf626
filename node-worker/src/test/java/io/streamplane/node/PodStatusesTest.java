package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodStatusesTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00.700Z");
  private static final Instant T1 = Instant.parse("2026-01-01T10:00:05Z");

  @Test
  void pendingPodIsScheduledAndInitializedButNotReadyWithContainersCreating() {
    PodStatus status = PodStatuses.pending(pod("web", "nginx:1.27"), "127.0.0.1", T0);

    assertThat(status.getPhase()).isEqualTo("Pending");
    assertThat(condition(status, "PodScheduled").getStatus()).isEqualTo("True");
    assertThat(condition(status, "Initialized").getStatus()).isEqualTo("True");
    assertThat(condition(status, "Ready").getStatus()).isEqualTo("False");
    assertThat(condition(status, "Ready").getMessage())
        .isEqualTo("containers with unready status: [web]");
    assertThat(status.getHostIP()).isEqualTo("127.0.0.1");
    assertThat(status.getStartTime()).isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
    ContainerStatus web = status.getContainerStatuses().get(0);
    assertThat(web.getState().getWaiting().getReason()).isEqualTo("ContainerCreating");
    assertThat(web.getReady()).isFalse();
    assertThat(status.getPodIP()).isNull();
  }

  @Test
  void runningPodIsReadyWithItsIpAndARunningStatusPerContainer() {
    Pod pending = pod("web", "nginx:1.27");
    pending.setStatus(PodStatuses.pending(pending, "127.0.0.1", T0));
    PodSandbox sandbox =
        new PodSandbox(
            "sb",
            "default/p",
            "10.0.1.2",
            T1,
            List.of(
                new RuntimeContainer(
                    "web",
                    "nginx:1.27",
                    "nginx:1.27@sha256:ab",
                    "simulated://c1",
                    RuntimeContainer.State.RUNNING,
                    T1,
                    null,
                    null)));

    PodStatus status = PodStatuses.running(pending, sandbox, "127.0.0.1", T1);

    assertThat(status.getPhase()).isEqualTo("Running");
    for (String type :
        List.of(
            "PodScheduled",
            "Initialized",
            "ContainersReady",
            "Ready",
            "PodReadyToStartContainers")) {
      assertThat(condition(status, type).getStatus()).as(type).isEqualTo("True");
    }
    assertThat(condition(status, "Ready").getLastTransitionTime()).isEqualTo(T1);
    assertThat(condition(status, "PodScheduled").getLastTransitionTime())
        .as("an unchanged condition keeps its transition time")
        .isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
    assertThat(status.getStartTime()).isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
    assertThat(status.getPodIP()).isEqualTo("10.0.1.2");
    assertThat(status.getPodIPs()).hasSize(1);
    ContainerStatus web = status.getContainerStatuses().get(0);
    assertThat(web.getContainerID()).isEqualTo("simulated://c1");
    assertThat(web.getImageID()).isEqualTo("nginx:1.27@sha256:ab");
    assertThat(web.getReady()).isTrue();
    assertThat(web.getStarted()).isTrue();
    assertThat(web.getRestartCount()).isZero();
    assertThat(web.getState().getRunning().getStartedAt()).isEqualTo(T1);
    assertThat(
            PodStatuses.isRunningAt(Pod.newBuilder(pending).setStatus(status).build(), "10.0.1.2"))
        .isTrue();
  }

  @Test
  void qosClassFollowsRequestsAndLimits() {
    Pod bestEffort = pod("a", "busybox");
    Pod guaranteed = pod("a", "busybox");
    guaranteed
        .getSpec()
        .getContainers()
        .get(0)
        .setResources(
            ResourceRequirements.newBuilder()
                .setLimits(Map.of("cpu", "1", "memory", "1Gi"))
                .setRequests(Map.of("cpu", "1", "memory", "1Gi"))
                .build());
    Pod burstable = pod("a", "busybox");
    burstable
        .getSpec()
        .getContainers()
        .get(0)
        .setResources(ResourceRequirements.newBuilder().setRequests(Map.of("cpu", "100m")).build());

    assertThat(PodStatuses.qosClass(bestEffort)).isEqualTo("BestEffort");
    assertThat(PodStatuses.qosClass(guaranteed)).isEqualTo("Guaranteed");
    assertThat(PodStatuses.qosClass(burstable)).isEqualTo("Burstable");
  }

  @Test
  void aFailedInitContainerBacksOffOrFailsThePodAndHoldsTheContainers() {
    Pod pod = pod("app", "busybox");
    pod.getSpec()
        .setInitContainers(
            List.of(
                Container.newBuilder().setName("first").setImage("busybox").build(),
                Container.newBuilder().setName("second").setImage("busybox").build()));
    RuntimeContainer waitingApp =
        new RuntimeContainer(
            "app",
            "busybox",
            "busybox@sha256:ab",
            null,
            RuntimeContainer.State.CREATED,
            null,
            null,
            null,
            "PodInitializing",
            null);
    PodSandbox sandbox =
        new PodSandbox(
            "sb",
            "default/p",
            "127.1.0.2",
            T1,
            List.of(exited("first", 0, "Completed"), exited("second", 2, "Error")),
            List.of(waitingApp));

    PodStatus retrying =
        PodStatuses.observed(
            pod,
            sandbox,
            name ->
                name.equals("second")
                    ? new PodStatuses.ContainerView(false, false, Duration.ofSeconds(10))
                    : PodStatuses.ContainerView.PLAIN,
            null,
            "127.0.0.1",
            T1);
    assertThat(retrying.getPhase()).isEqualTo("Pending");
    assertThat(condition(retrying, "Initialized").getStatus()).isEqualTo("False");
    assertThat(condition(retrying, "Initialized").getMessage())
        .isEqualTo("containers with incomplete status: [second]");
    ContainerStatus first = retrying.getInitContainerStatuses().get(0);
    assertThat(first.getState().getTerminated().getReason()).isEqualTo("Completed");
    assertThat(first.getReady()).isTrue();
    ContainerStatus second = retrying.getInitContainerStatuses().get(1);
    assertThat(second.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
    assertThat(second.getLastState().getTerminated().getExitCode()).isEqualTo(2);
    assertThat(retrying.getContainerStatuses().get(0).getState().getWaiting().getReason())
        .isEqualTo("PodInitializing");

    PodStatus failed =
        PodStatuses.observed(
            pod,
            sandbox,
            name -> PodStatuses.ContainerView.PLAIN,
            new PodStatuses.Failure(null, null),
            "127.0.0.1",
            T1);
    assertThat(failed.getPhase()).isEqualTo("Failed");
    assertThat(failed.getInitContainerStatuses().get(1).getState().getTerminated().getReason())
        .isEqualTo("Error");
  }

  private static RuntimeContainer exited(String name, int code, String reason) {
    return new RuntimeContainer(
        name,
        "busybox",
        "busybox@sha256:ab",
        "process://" + name,
        RuntimeContainer.State.EXITED,
        T0,
        T1,
        code,
        reason,
        null);
  }

  private static PodCondition condition(PodStatus status, String type) {
    return status.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no condition " + type));
  }

  static Pod pod(String container, String image) {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("p")
                .setNamespace("default")
                .setResourceVersion("7")
                .build())
        .setSpec(
            PodSpec.newBuilder()
                .setNodeName("n1")
                .setContainers(
                    List.of(Container.newBuilder().setName(container).setImage(image).build()))
                .build())
        .build();
  }
}
