package io.streamplane.node.runtime;

import java.time.Instant;

/**
 * One container of a {@link PodSandbox}: the runtime's container id ({@code runtime://id}, as
 * Kubernetes prints {@code containerID}), the resolved image id, and its state.
 *
 * <p>{@code reason} and {@code message} say why a container is in its state, as Kubernetes shows
 * them: {@code Completed} or {@code Error} for an EXITED container, {@code ErrImagePull} and the
 * like for one that stays CREATED (Waiting) and never runs; both are null when there is nothing to
 * say.
 */
public record RuntimeContainer(
    String name,
    String image,
    String imageID,
    String containerID,
    State state,
    Instant startedAt,
    Instant finishedAt,
    Integer exitCode,
    String reason,
    String message) {

  /** A container with no reason or message to report. */
  public RuntimeContainer(
      String name,
      String image,
      String imageID,
      String containerID,
      State state,
      Instant startedAt,
      Instant finishedAt,
      Integer exitCode) {
    this(name, image, imageID, containerID, state, startedAt, finishedAt, exitCode, null, null);
  }

  /** The CRI container states a node reports. */
  public enum State {
    CREATED,
    RUNNING,
    EXITED
  }
}
