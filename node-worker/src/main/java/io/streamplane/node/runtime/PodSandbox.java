package io.streamplane.node.runtime;

import java.time.Instant;
import java.util.List;

/**
 * A pod as a runtime runs it: its sandbox id, its IP, its init containers as they ended (in the
 * order of {@code spec.initContainers}; every one Completed, since a sandbox exists only once they
 * all succeeded), its containers, in the order of the pod's {@code spec.containers}, and the
 * ephemeral containers started in it since ({@code kubectl debug}), in the order started.
 * Immutable; a runtime answers {@code status} with a new value.
 */
public record PodSandbox(
    String id,
    String podKey,
    String podIP,
    Instant createdAt,
    List<RuntimeContainer> initContainers,
    List<RuntimeContainer> containers,
    List<RuntimeContainer> ephemeralContainers) {

  public PodSandbox {
    initContainers = List.copyOf(initContainers);
    containers = List.copyOf(containers);
    ephemeralContainers = List.copyOf(ephemeralContainers);
  }

  /** A sandbox without ephemeral containers. */
  public PodSandbox(
      String id,
      String podKey,
      String podIP,
      Instant createdAt,
      List<RuntimeContainer> initContainers,
      List<RuntimeContainer> containers) {
    this(id, podKey, podIP, createdAt, initContainers, containers, List.of());
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
