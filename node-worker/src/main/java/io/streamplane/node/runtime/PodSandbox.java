package io.streamplane.node.runtime;

import java.time.Instant;
import java.util.List;

/**
 * A pod as a runtime runs it: its sandbox id, its IP, its init containers as they ended (in the
 * order of {@code spec.initContainers}; every one Completed, since a sandbox exists only once they
 * all succeeded) and its containers, in the order of the pod's {@code spec.containers}. Immutable;
 * a runtime answers {@code status} with a new value.
 */
public record PodSandbox(
    String id,
    String podKey,
    String podIP,
    Instant createdAt,
    List<RuntimeContainer> initContainers,
    List<RuntimeContainer> containers) {

  public PodSandbox {
    initContainers = List.copyOf(initContainers);
    containers = List.copyOf(containers);
  }

  /** A sandbox of a pod without init containers. */
  public PodSandbox(
      String id,
      String podKey,
      String podIP,
      Instant createdAt,
      List<RuntimeContainer> containers) {
    this(id, podKey, podIP, createdAt, List.of(), containers);
  }

  /** True when every container is running. */
  public boolean allRunning() {
    return containers.stream().allMatch(c -> c.state() == RuntimeContainer.State.RUNNING);
  }
}
