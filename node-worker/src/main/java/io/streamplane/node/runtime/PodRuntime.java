package io.streamplane.node.runtime;

import io.streamplane.api.Container;
import io.streamplane.api.Pod;
import io.streamplane.node.logs.LogLocator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a node needs from a container runtime: the Streamplane analogue of the CRI's
 * RunPodSandbox/CreateContainer/StartContainer, ContainerStatus, ExecSync, StopContainer and
 * StopPodSandbox.
 *
 * <p>Contract: {@code start} runs the init containers in order and completes when every container
 * of the pod has started (or fails with the reason it could not); the node has already chosen the
 * pod's IP. {@code status} answers from the runtime's own bookkeeping without blocking. The node
 * decides restarts (restartPolicy, back-off, liveness): {@code restartContainer} runs an EXITED
 * container again, counting the restart and keeping the run that ended as its last termination;
 * {@code stopContainer} stops one container, which then reads EXITED. {@code exec} runs a command
 * in a container's environment and completes with its exit code (exec probes and hooks). {@code
 * stop} completes when nothing of the pod is left running, at the latest after {@code grace};
 * stopping an unknown sandbox completes at once. Implementations are thread-safe and never block
 * the caller: long work completes the returned future later.
 */
public interface PodRuntime extends AutoCloseable {

  /** The runtime's name and version, as Kubernetes shows it: {@code name://version}. */
  String version();

  /** The operating system image the node reports (Node {@code status.nodeInfo.osImage}). */
  String osImage();

  /**
   * True when containers are real processes reachable at the pod IP, so HTTP and TCP probes and
   * hooks can run; false for a runtime that only simulates them (their probes then always pass).
   */
  default boolean runsProcesses() {
    return true;
  }

  /**
   * The kubelet root directory of node {@code nodeName}: its {@code plugins_registry} where CSI
   * drivers register, the drivers' global mounts under {@code plugins}, and the directories the
   * pods' CSI volumes are published at under {@code pods}; empty for a runtime whose containers
   * mount no volumes.
   */
  default Optional<java.nio.file.Path> nodeRoot(String nodeName) {
    return Optional.empty();
  }

  /** Where the node's log server finds container logs; empty when containers write none. */
  default Optional<LogLocator> logs() {
    return Optional.empty();
  }

  /**
   * Starts every container of {@code pod} in a new sandbox reachable at {@code podIP}, with the
   * ConfigMaps, Secrets and service variables the node read for it.
   */
  CompletableFuture<PodSandbox> start(Pod pod, String podIP, PodInputs inputs);

  /** The current state of a sandbox this runtime started. */
  PodSandbox status(PodSandbox sandbox);

  /** Runs the EXITED container {@code container} of {@code sandbox} again. */
  CompletableFuture<Void> restartContainer(PodSandbox sandbox, String container);

  /** Stops one container (SIGTERM, then SIGKILL after {@code grace}). */
  CompletableFuture<Void> stopContainer(PodSandbox sandbox, String container, Duration grace);

  /** Runs {@code command} in {@code container}'s environment; completes with its exit code. */
  CompletableFuture<Integer> exec(
      PodSandbox sandbox, String container, List<String> command, Duration timeout);

  /**
   * Starts {@code command} in the container {@code container} of the pod {@code namespace/name} for
   * a client to stream to ({@code kubectl exec}), in the container's environment, working directory
   * and mounts, on a terminal when {@code tty}. Fails with a {@link ContainerStreamException} when
   * the runtime cannot.
   */
  default ContainerCommand execStream(
      String namespace, String name, String container, List<String> command, boolean tty) {
    throw new ContainerStreamException(400, "BadRequest", streamsRefused("exec"));
  }

  /**
   * The container's own input and output, for {@code kubectl attach}. Fails with a {@link
   * ContainerStreamException} when the runtime does not keep them.
   */
  default ContainerCommand attach(
      String namespace, String name, String container, boolean stdin, boolean tty) {
    throw new ContainerStreamException(400, "BadRequest", streamsRefused("attach"));
  }

  /**
   * The address the pod {@code namespace/name}'s servers listen on, for {@code kubectl
   * port-forward}. Fails with a {@link ContainerStreamException} when the runtime cannot.
   */
  default String portForwardAddress(String namespace, String name) {
    throw new ContainerStreamException(400, "BadRequest", streamsRefused("port-forward"));
  }

  /**
   * Starts an ephemeral container in the running pod ({@code kubectl debug}): once, never
   * restarted, reported in {@link PodSandbox#ephemeralContainers}. A runtime that runs no processes
   * reports it waiting with its refusal.
   */
  default CompletableFuture<Void> startEphemeralContainer(PodSandbox sandbox, Container spec) {
    return CompletableFuture.failedFuture(
        new ContainerStreamException(
            400, "BadRequest", streamsRefused("run ephemeral containers")));
  }

  /**
   * What each running container of the sandbox uses now, by container name: CPU time and resident
   * memory of its processes, as the kubelet's stats provider reads them for {@code /stats/summary}.
   * {@code pod} is the pod as the node last saw it. Empty for a runtime that measures nothing.
   */
  default Map<String, ContainerUsage> usage(Pod pod, PodSandbox sandbox) {
    return Map.of();
  }

  /**
   * One container's use: CPU time in nanoseconds (all cores), resident memory in bytes, and the
   * moment they are of when the runtime knows it exactly (null: when read).
   */
  record ContainerUsage(long cpuNanos, long memoryBytes, java.time.Instant at) {
    public ContainerUsage(long cpuNanos, long memoryBytes) {
      this(cpuNanos, memoryBytes, null);
    }
  }

  /** Why this runtime refuses a stream. */
  default String streamsRefused(String what) {
    return "the " + version() + " runtime cannot " + what;
  }

  /** Stops a sandbox's containers, waiting at most {@code grace} for them to exit. */
  CompletableFuture<Void> stop(PodSandbox sandbox, Duration grace);

  @Override
  void close();
}
