package io.streamplane.node.runtime;

import java.time.Instant;
import java.util.List;

/**
 * A pod as a runtime runs it: its sandbox id, its IP and its containers, in the order of the pod's
 * {@code spec.containers}. Immutable; a runtime answers {@code status} with a new value.
 */
public record PodSandbox(
    String id, String podKey, String podIP, Instant createdAt, List<RuntimeContainer> containers) {

  public PodSandbox {
    containers = List.copyOf(containers);
  }

  /** True when every container is running. */
  public boolean allRunning() {
    return containers.stream().allMatch(c -> c.state() == RuntimeContainer.State.RUNNING);
  }
}
