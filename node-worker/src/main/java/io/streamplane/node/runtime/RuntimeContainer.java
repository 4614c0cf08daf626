package io.streamplane.node.runtime;

import java.time.Instant;

/**
 * One container of a {@link PodSandbox}: the runtime's container id ({@code runtime://id}, as
 * Kubernetes prints {@code containerID}), the resolved image id, and its state.
 */
public record RuntimeContainer(
    String name,
    String image,
    String imageID,
    String containerID,
    State state,
    Instant startedAt,
    Instant finishedAt,
    Integer exitCode) {

  /** The CRI container states a node reports. */
  public enum State {
    CREATED,
    RUNNING,
    EXITED
  }
}
