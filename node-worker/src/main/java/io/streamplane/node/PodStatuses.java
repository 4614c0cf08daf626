package io.streamplane.node;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerState;
import io.streamplane.api.ContainerStateRunning;
import io.streamplane.api.ContainerStateTerminated;
import io.streamplane.api.ContainerStateWaiting;
import io.streamplane.api.ContainerStatus;
import io.streamplane.api.EphemeralContainer;
import io.streamplane.api.HostIP;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodIP;
import io.streamplane.api.PodStatus;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.node.runtime.PodSandbox;
import io.streamplane.node.runtime.RuntimeContainer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The pod statuses a node writes, as pure functions of the pod, what the runtime reports and the
 * time — the kubelet's {@code generateAPIPodStatus}. {@code pending}: accepted, containers
 * creating; {@code observed}: what the runtime reports, with probes and restarts.
 *
 * <p>Contract: a condition whose status does not change keeps its lastTransitionTime, and startTime
 * is set once, so writing the same status twice changes nothing but nothing older is lost.
 * Timestamps are whole seconds, as metav1.Time serialises.
 *
 * <p>Limits: sidecar init containers ({@code restartPolicy: Always}) are run to completion like the
 * others.
 */
public final class PodStatuses {

  private PodStatuses() {}

  /** Accepted by the node, containers being created: phase Pending, not Ready. */
  public static PodStatus pending(Pod pod, String hostIP, Instant now) {
    return pending(pod, hostIP, now, "ContainerCreating", null);
  }

  /**
   * Accepted by the node, containers waiting for {@code reason} (ContainerCreating, or e.g.
   * CreateContainerConfigError when a ConfigMap it needs is missing): phase Pending, not Ready.
   */
  public static PodStatus pending(
      Pod pod, String hostIP, Instant now, String reason, String message) {
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
                          ContainerStateWaiting.newBuilder()
                              .setReason(reason)
                              .setMessage(message)
                              .build())
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

  /**
   * What the node knows of one container beyond the runtime's report: whether it counts as started
   * (its startup probe passed, or it has none) and ready (its readiness probe passes, or it has
   * none), and, for an EXITED container waiting to be restarted, the back-off it waits (else null).
   */
  public record ContainerView(boolean started, boolean ready, Duration backOff) {

    /** No probes and no back-off: started and ready as soon as it runs. */
    public static final ContainerView PLAIN = new ContainerView(true, true, null);
  }

  /**
   * Why a pod failed as a whole, not through its containers' exits: {@code DeadlineExceeded} (its
   * activeDeadlineSeconds passed) or a start that cannot be retried.
   */
  public record Failure(String reason, String message) {}

  /** Every container running in {@code sandbox}, no probes: phase Running, Ready. */
  public static PodStatus running(Pod pod, PodSandbox sandbox, String hostIP, Instant now) {
    return observed(pod, sandbox, name -> ContainerView.PLAIN, null, hostIP, now);
  }

  /**
   * The status of a pod whose sandbox the runtime reports as {@code sandbox}, as the kubelet's
   * {@code generateAPIPodStatus} and {@code getPhase} make it.
   *
   * <p>Per container: RUNNING is {@code running} (ready as its view says); EXITED and about to be
   * restarted (a back-off in its view) is {@code waiting: CrashLoopBackOff}; EXITED otherwise is
   * {@code terminated}; CREATED is {@code waiting} with the runtime's reason. The previous run is
   * {@code lastState.terminated}. Phase: Failed when {@code failure} is given; Pending while a
   * container waits without ever having run; Running while any runs or will be restarted; once all
   * have ended for good, Failed when any exited non-zero, else Succeeded.
   */
  public static PodStatus observed(
      Pod pod,
      PodSandbox sandbox,
      Function<String, ContainerView> views,
      Failure failure,
      String hostIP,
      Instant now) {
    Instant second = now.truncatedTo(ChronoUnit.SECONDS);
    PodStatus previous = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    Map<String, RuntimeContainer> byName =
        sandbox.containers().stream()
            .collect(Collectors.toMap(RuntimeContainer::name, c -> c, (a, b) -> a));
    List<ContainerStatus> statuses = new ArrayList<>();
    List<String> unready = new ArrayList<>();
    int waiting = 0;
    int active = 0;
    int failed = 0;
    for (Container container : containers(pod)) {
      RuntimeContainer run = byName.get(container.getName());
      ContainerView view = views.apply(container.getName());
      ContainerStatus.Builder status =
          ContainerStatus.newBuilder()
              .setName(container.getName())
              .setImage(container.getImage())
              .setImageID(run == null || run.imageID() == null ? "" : run.imageID())
              .setContainerID(run == null ? null : run.containerID())
              .setRestartCount(run == null ? 0 : run.restartCount())
              .setReady(false)
              .setStarted(false);
      if (run != null && run.lastTermination() != null) {
        status.setLastState(
            ContainerState.newBuilder().setTerminated(terminated(run.lastTermination())).build());
      }
      boolean ready = false;
      if (run == null || run.state() == RuntimeContainer.State.CREATED) {
        waiting++;
        if (run != null
            && "ErrImagePull".equals(run.reason())
            && wasWaitingForImage(previous, container.getName())) {
          // As the kubelet: after the first failed pull, the container waits in back-off.
          status.setState(
              waiting(
                  "ImagePullBackOff", "Back-off pulling image \"" + container.getImage() + "\""));
        } else {
          status.setState(
              waiting(
                  run == null || run.reason() == null ? "ContainerCreating" : run.reason(),
                  run == null ? null : run.message()));
        }
      } else if (run.state() == RuntimeContainer.State.RUNNING) {
        active++;
        ready = view.ready() && view.started() && failure == null;
        status
            .setStarted(view.started())
            .setReady(ready)
            .setState(
                ContainerState.newBuilder()
                    .setRunning(
                        ContainerStateRunning.newBuilder()
                            .setStartedAt(seconds(run.startedAt(), second))
                            .build())
                    .build());
      } else if (view.backOff() != null && failure == null) {
        active++;
        status
            .setState(
                waiting(
                    "CrashLoopBackOff", backOffMessage(pod, container.getName(), view.backOff())))
            .setLastState(ContainerState.newBuilder().setTerminated(terminated(run)).build());
      } else {
        if (run.exitCode() == null || run.exitCode() != 0) {
          failed++;
        }
        status.setState(ContainerState.newBuilder().setTerminated(terminated(run)).build());
      }
      if (!ready) {
        unready.add(container.getName());
      }
      statuses.add(status.build());
    }
    String phase;
    if (failure != null) {
      phase = "Failed";
    } else if (waiting > 0 && active == 0) {
      phase = "Pending";
    } else if (active > 0) {
      phase = "Running";
    } else {
      phase = failed > 0 ? "Failed" : "Succeeded";
    }
    boolean terminal = phase.equals("Failed") || phase.equals("Succeeded");
    String notReadyReason = terminal ? "PodCompleted" : "ContainersNotReady";
    String notReady =
        terminal ? null : "containers with unready status: [" + String.join(" ", unready) + "]";
    String readyStatus = unready.isEmpty() && !terminal ? "True" : "False";
    List<String> incomplete = incompleteInits(sandbox);
    PodCondition initialized =
        incomplete.isEmpty()
            ? condition(previous, "Initialized", "True", null, null, second)
            : condition(
                previous,
                "Initialized",
                "False",
                "ContainersNotInitialized",
                "containers with incomplete status: [" + String.join(" ", incomplete) + "]",
                second);
    return PodStatus.newBuilder()
        .setPhase(phase)
        .setReason(failure == null ? null : failure.reason())
        .setMessage(failure == null ? null : failure.message())
        .setConditions(
            List.of(
                condition(
                    previous,
                    "PodReadyToStartContainers",
                    terminal ? "False" : "True",
                    null,
                    null,
                    second),
                initialized,
                readyStatus.equals("True")
                    ? condition(previous, "Ready", "True", null, null, second)
                    : condition(previous, "Ready", "False", notReadyReason, notReady, second),
                readyStatus.equals("True")
                    ? condition(previous, "ContainersReady", "True", null, null, second)
                    : condition(
                        previous, "ContainersReady", "False", notReadyReason, notReady, second),
                condition(previous, "PodScheduled", "True", null, null, second)))
        .setHostIP(hostIP)
        .setHostIPs(List.of(new HostIP(hostIP)))
        .setPodIP(sandbox.podIP())
        .setPodIPs(List.of(new PodIP(sandbox.podIP())))
        .setStartTime(previous.getStartTime() == null ? second : previous.getStartTime())
        .setInitContainerStatuses(initStatuses(pod, sandbox, views, second))
        .setContainerStatuses(statuses)
        .setEphemeralContainerStatuses(ephemeralStatuses(pod, sandbox, second))
        .setQosClass(qosClass(pod))
        .build();
  }

  /**
   * The ephemeral containers' statuses, in the order of the spec: running or terminated as their
   * one run goes, waiting (ContainerCreating) until the node starts them; null when there are none,
   * as Kubernetes leaves the field out.
   */
  private static List<ContainerStatus> ephemeralStatuses(
      Pod pod, PodSandbox sandbox, Instant second) {
    List<EphemeralContainer> specs =
        pod.getSpec() == null ? null : pod.getSpec().getEphemeralContainers();
    if (specs == null || specs.isEmpty()) {
      return null;
    }
    Map<String, RuntimeContainer> byName =
        sandbox.ephemeralContainers().stream()
            .collect(Collectors.toMap(RuntimeContainer::name, c -> c, (a, b) -> a));
    List<ContainerStatus> statuses = new ArrayList<>();
    for (EphemeralContainer spec : specs) {
      RuntimeContainer run = byName.get(spec.getName());
      ContainerStatus.Builder status =
          ContainerStatus.newBuilder()
              .setName(spec.getName())
              .setImage(spec.getImage())
              .setImageID(run == null || run.imageID() == null ? "" : run.imageID())
              .setContainerID(run == null ? null : run.containerID())
              .setRestartCount(0)
              .setReady(false);
      if (run == null || run.state() == RuntimeContainer.State.CREATED) {
        status.setState(
            waiting(
                run == null || run.reason() == null ? "ContainerCreating" : run.reason(),
                run == null ? null : run.message()));
      } else if (run.state() == RuntimeContainer.State.RUNNING) {
        status.setState(
            ContainerState.newBuilder()
                .setRunning(
                    ContainerStateRunning.newBuilder()
                        .setStartedAt(seconds(run.startedAt(), second))
                        .build())
                .build());
      } else {
        status.setState(ContainerState.newBuilder().setTerminated(terminated(run)).build());
      }
      statuses.add(status.build());
    }
    return statuses;
  }

  /** True when {@code previous} already shows the container waiting for its image. */
  private static boolean wasWaitingForImage(PodStatus previous, String container) {
    if (previous.getContainerStatuses() == null) {
      return false;
    }
    for (ContainerStatus status : previous.getContainerStatuses()) {
      if (container.equals(status.getName())
          && status.getState() != null
          && status.getState().getWaiting() != null) {
        String reason = status.getState().getWaiting().getReason();
        return "ErrImagePull".equals(reason) || "ImagePullBackOff".equals(reason);
      }
    }
    return false;
  }

  /**
   * The init containers as they stand: Completed (ready), running, failed — waiting in
   * CrashLoopBackOff when {@code views} gives it a back-off — or not started yet (PodInitializing).
   */
  private static List<ContainerStatus> initStatuses(
      Pod pod, PodSandbox sandbox, Function<String, ContainerView> views, Instant second) {
    List<ContainerStatus> statuses = new ArrayList<>();
    for (RuntimeContainer init : sandbox.initContainers()) {
      ContainerStatus.Builder status =
          ContainerStatus.newBuilder()
              .setName(init.name())
              .setImage(init.image())
              .setImageID(init.imageID() == null ? "" : init.imageID())
              .setContainerID(init.containerID())
              .setReady(false)
              .setStarted(false)
              .setRestartCount(init.restartCount());
      if (init.lastTermination() != null) {
        status.setLastState(
            ContainerState.newBuilder().setTerminated(terminated(init.lastTermination())).build());
      }
      Duration backOff = views.apply(init.name()).backOff();
      switch (init.state()) {
        case CREATED -> status.setState(waiting(init.reason(), init.message()));
        case RUNNING ->
            status
                .setStarted(true)
                .setState(
                    ContainerState.newBuilder()
                        .setRunning(
                            ContainerStateRunning.newBuilder()
                                .setStartedAt(seconds(init.startedAt(), second))
                                .build())
                        .build());
        case EXITED -> {
          boolean completed = init.exitCode() != null && init.exitCode() == 0;
          if (!completed && backOff != null) {
            status
                .setState(waiting("CrashLoopBackOff", backOffMessage(pod, init.name(), backOff)))
                .setLastState(ContainerState.newBuilder().setTerminated(terminated(init)).build());
          } else {
            status
                .setReady(completed)
                .setState(ContainerState.newBuilder().setTerminated(terminated(init)).build());
          }
        }
      }
      statuses.add(status.build());
    }
    return statuses.isEmpty() ? null : statuses;
  }

  /** The init containers that have not completed, by name. */
  private static List<String> incompleteInits(PodSandbox sandbox) {
    List<String> incomplete = new ArrayList<>();
    for (RuntimeContainer init : sandbox.initContainers()) {
      if (init.state() != RuntimeContainer.State.EXITED
          || init.exitCode() == null
          || init.exitCode() != 0) {
        incomplete.add(init.name());
      }
    }
    return incomplete;
  }

  private static String backOffMessage(Pod pod, String container, Duration backOff) {
    return "back-off "
        + backOff.toSeconds()
        + "s restarting failed container="
        + container
        + " pod="
        + podRef(pod);
  }

  /** A pod as the kubelet names it in messages: {@code <name>_<namespace>(<uid>)}. */
  static String podRef(Pod pod) {
    return pod.getMetadata().getName()
        + "_"
        + pod.getMetadata().getNamespace()
        + "("
        + pod.getMetadata().getUid()
        + ")";
  }

  /** The status of a pod whose start failed for good (restartPolicy Never): phase Failed. */
  public static PodStatus failedToStart(Pod pod, String message, String hostIP, Instant now) {
    PodStatus pending = pending(pod, hostIP, now);
    return PodStatus.newBuilder(pending)
        .setPhase("Failed")
        .setReason("StartError")
        .setMessage(message)
        .build();
  }

  /**
   * True when {@code pod}'s status already says this node accepted it and its containers wait
   * (phase Pending, the node's host IP): a retried start need not write that again.
   */
  public static boolean isPendingOn(Pod pod, String hostIP) {
    PodStatus status = pod.getStatus();
    return status != null
        && "Pending".equals(status.getPhase())
        && hostIP.equals(status.getHostIP())
        && status.getContainerStatuses() != null
        && !status.getContainerStatuses().isEmpty();
  }

  /** The phase in {@code pod}'s status is Succeeded or Failed: nothing of it runs again. */
  public static boolean isTerminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  private static ContainerState waiting(String reason, String message) {
    return ContainerState.newBuilder()
        .setWaiting(
            ContainerStateWaiting.newBuilder().setReason(reason).setMessage(message).build())
        .build();
  }

  private static ContainerStateTerminated terminated(RuntimeContainer run) {
    return ContainerStateTerminated.newBuilder()
        .setExitCode(run.exitCode() == null ? 0 : run.exitCode())
        .setReason(run.reason())
        .setMessage(run.message())
        .setStartedAt(
            run.startedAt() == null ? null : run.startedAt().truncatedTo(ChronoUnit.SECONDS))
        .setFinishedAt(
            run.finishedAt() == null ? null : run.finishedAt().truncatedTo(ChronoUnit.SECONDS))
        .setContainerID(run.containerID())
        .build();
  }

  private static Instant seconds(Instant time, Instant otherwise) {
    return time == null ? otherwise : time.truncatedTo(ChronoUnit.SECONDS);
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
