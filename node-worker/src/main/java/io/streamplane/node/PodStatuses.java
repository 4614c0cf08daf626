package io.streamplane.node;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerState;
import io.streamplane.api.ContainerStateRunning;
import io.streamplane.api.ContainerStateWaiting;
import io.streamplane.api.ContainerStatus;
import io.streamplane.api.HostIP;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodIP;
import io.streamplane.api.PodStatus;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The pod statuses a node writes, as pure functions of the pod, what the runtime reports and the
 * time — the kubelet's {@code generateAPIPodStatus}. {@code pending}: accepted, containers
 * creating; {@code running}: every container running, the pod Ready.
 *
 * <p>Contract: a condition whose status does not change keeps its lastTransitionTime, and startTime
 * is set once, so writing the same status twice changes nothing but nothing older is lost.
 * Timestamps are whole seconds, as metav1.Time serialises.
 *
 * <p>Limits: no init containers, readiness probes or terminated containers yet.
 */
public final class PodStatuses {

  private PodStatuses() {}

  /** Accepted by the node, containers being created: phase Pending, not Ready. */
  public static PodStatus pending(Pod pod, String hostIP, Instant now) {
    Instant second = now.truncatedTo(ChronoUnit.SECONDS);
    PodStatus previous = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    List<String> names = containers(pod).stream().map(Container::getName).toList();
    String notReady = "containers with unready status: [" + String.join(" ", names) + "]";
    List<ContainerStatus> statuses = new ArrayList<>();
    for (Container container : containers(pod)) {
      statuses.add(
          ContainerStatus.newBuilder()
              .setName(container.getName())
              .setImage(container.getImage())
              .setImageID("")
              .setReady(false)
              .setStarted(false)
              .setRestartCount(0)
              .setState(
                  ContainerState.newBuilder()
                      .setWaiting(
                          ContainerStateWaiting.newBuilder().setReason("ContainerCreating").build())
                      .build())
              .build());
    }
    return PodStatus.newBuilder()
        .setPhase("Pending")
        .setConditions(
            List.of(
                condition(previous, "PodReadyToStartContainers", "False", null, null, second),
                condition(previous, "Initialized", "True", null, null, second),
                condition(previous, "Ready", "False", "ContainersNotReady", notReady, second),
                condition(
                    previous, "ContainersReady", "False", "ContainersNotReady", notReady, second),
                condition(previous, "PodScheduled", "True", null, null, second)))
        .setHostIP(hostIP)
        .setHostIPs(List.of(new HostIP(hostIP)))
        .setStartTime(previous.getStartTime() == null ? second : previous.getStartTime())
        .setContainerStatuses(statuses)
        .setQosClass(qosClass(pod))
        .build();
  }

  /** Every container running in {@code sandbox}: phase Running, Ready. */
  public static PodStatus running(Pod pod, PodSandbox sandbox, String hostIP, Instant now) {
    Instant second = now.truncatedTo(ChronoUnit.SECONDS);
    PodStatus previous = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    Map<String, RuntimeContainer> byName =
        sandbox.containers().stream()
            .collect(Collectors.toMap(RuntimeContainer::name, c -> c, (a, b) -> a));
    List<ContainerStatus> statuses = new ArrayList<>();
    for (Container container : containers(pod)) {
      RuntimeContainer running = byName.get(container.getName());
      Instant startedAt =
          running == null || running.startedAt() == null
              ? second
              : running.startedAt().truncatedTo(ChronoUnit.SECONDS);
      statuses.add(
          ContainerStatus.newBuilder()
              .setName(container.getName())
              .setImage(container.getImage())
              .setImageID(running == null ? "" : running.imageID())
              .setContainerID(running == null ? null : running.containerID())
              .setReady(true)
              .setStarted(true)
              .setRestartCount(0)
              .setState(
                  ContainerState.newBuilder()
                      .setRunning(
                          ContainerStateRunning.newBuilder().setStartedAt(startedAt).build())
                      .build())
              .build());
    }
    return PodStatus.newBuilder()
        .setPhase("Running")
        .setConditions(
            List.of(
                condition(previous, "PodReadyToStartContainers", "True", null, null, second),
                condition(previous, "Initialized", "True", null, null, second),
                condition(previous, "Ready", "True", null, null, second),
                condition(previous, "ContainersReady", "True", null, null, second),
                condition(previous, "PodScheduled", "True", null, null, second)))
        .setHostIP(hostIP)
        .setHostIPs(List.of(new HostIP(hostIP)))
        .setPodIP(sandbox.podIP())
        .setPodIPs(List.of(new PodIP(sandbox.podIP())))
        .setStartTime(previous.getStartTime() == null ? second : previous.getStartTime())
        .setContainerStatuses(statuses)
        .setQosClass(qosClass(pod))
        .build();
  }

  /** True when {@code pod}'s status already says Running and Ready at {@code podIP}. */
  public static boolean isRunningAt(Pod pod, String podIP) {
    PodStatus status = pod.getStatus();
    if (status == null || !"Running".equals(status.getPhase()) || podIP == null) {
      return false;
    }
    return podIP.equals(status.getPodIP()) && "True".equals(conditionStatus(status, "Ready"));
  }

  /**
   * Kubernetes' QoS class: Guaranteed when every container limits cpu and memory and requests equal
   * limits, BestEffort when nothing is requested or limited, Burstable otherwise.
   */
  static String qosClass(Pod pod) {
    boolean any = false;
    boolean guaranteed = true;
    for (Container container : containers(pod)) {
      ResourceRequirements resources = container.getResources();
      Map<String, String> limits = resources == null ? null : resources.getLimits();
      Map<String, String> requests = resources == null ? null : resources.getRequests();
      boolean hasLimits = limits != null && !limits.isEmpty();
      boolean hasRequests = requests != null && !requests.isEmpty();
      any |= hasLimits || hasRequests;
      if (!hasLimits || !limits.containsKey("cpu") || !limits.containsKey("memory")) {
        guaranteed = false;
        continue;
      }
      if (hasRequests) {
        for (var request : requests.entrySet()) {
          if (!request.getValue().equals(limits.get(request.getKey()))) {
            guaranteed = false;
          }
        }
      }
    }
    if (!any) {
      return "BestEffort";
    }
    return guaranteed ? "Guaranteed" : "Burstable";
  }

  private static String conditionStatus(PodStatus status, String type) {
    if (status.getConditions() == null) {
      return null;
    }
    for (PodCondition condition : status.getConditions()) {
      if (type.equals(condition.getType())) {
        return condition.getStatus();
      }
    }
    return null;
  }

  private static PodCondition condition(
      PodStatus previous, String type, String status, String reason, String message, Instant now) {
    Instant since = now;
    if (previous.getConditions() != null) {
      for (PodCondition old : previous.getConditions()) {
        if (type.equals(old.getType())
            && status.equals(old.getStatus())
            && old.getLastTransitionTime() != null) {
          since = old.getLastTransitionTime();
        }
      }
    }
    return PodCondition.newBuilder()
        .setType(type)
        .setStatus(status)
        .setReason(reason)
        .setMessage(message)
        .setLastTransitionTime(since)
        .build();
  }

  private static List<Container> containers(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getContainers() == null
        ? List.of()
        : pod.getSpec().getContainers();
  }
}
