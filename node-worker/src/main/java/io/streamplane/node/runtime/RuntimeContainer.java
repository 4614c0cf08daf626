package io.streamplane.node.runtime;

import java.time.Instant;

/**
 * One container of a {@link PodSandbox}, as its latest run stands: the runtime's container id
 * ({@code runtime://id}, as Kubernetes prints {@code containerID}), the resolved image id, its
 * state, how often it was restarted, and how its previous run ended.
 *
 * <p>{@code reason} and {@code message} say why a container is in its state, as Kubernetes shows
 * them: {@code Completed} or {@code Error} for an EXITED container, {@code ErrImagePull} and the
 * like for one that stays CREATED (Waiting) and never runs; both are null when there is nothing to
 * say. {@code lastTermination} is the previous run (EXITED) once the container was restarted, else
 * null.
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
    String message,
    int restartCount,
    RuntimeContainer lastTermination) {

  /** A first run with no reason or message to report. */
  public RuntimeContainer(
      String name,
      String image,
      String imageID,
      String containerID,
      State state,
      Instant startedAt,
      Instant finishedAt,
      Integer exitCode) {
    this(
        name,
        image,
        imageID,
        containerID,
        state,
        startedAt,
        finishedAt,
        exitCode,
        null,
        null,
        0,
        null);
  }

  /** A first run. */
  public RuntimeContainer(
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
    this(
        name,
        image,
        imageID,
        containerID,
        state,
        startedAt,
        finishedAt,
        exitCode,
        reason,
        message,
        0,
        null);
  }

  /** This run, as the {@code restartCount}-th restart that followed {@code lastTermination}. */
  public RuntimeContainer restarted(int restartCount, RuntimeContainer lastTermination) {
    return new RuntimeContainer(
        name,
        image,
        imageID,
        containerID,
        state,
        startedAt,
        finishedAt,
        exitCode,
        reason,
        message,
        restartCount,
        lastTermination == null ? null : lastTermination.restarted(0, null));
  }

  /** The CRI container states a node reports. */
  public enum State {
    CREATED,
    RUNNING,
    EXITED
  }
}
