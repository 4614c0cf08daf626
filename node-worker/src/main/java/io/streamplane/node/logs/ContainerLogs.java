package io.streamplane.node.logs;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What a node knows about one container's logs, as a {@link LogLocator} reports it: whether the pod
 * has the container at all, the file of its current attempt and of the previous one, why there is
 * no current file yet ({@code waitingReason}, e.g. {@code ContainerCreating}), and whether the
 * current attempt still runs — asked again while a {@code follow} read waits for more.
 */
public record ContainerLogs(
    boolean exists,
    Optional<Path> current,
    Optional<Path> previous,
    String waitingReason,
    BooleanSupplier running) {

  private static final BooleanSupplier STOPPED = () -> false;

  /** The pod runs on this node but has no container of that name. */
  public static ContainerLogs notInPod() {
    return new ContainerLogs(false, Optional.empty(), Optional.empty(), null, STOPPED);
  }

  /** The container has not started yet, for {@code reason} (a waiting state's reason). */
  public static ContainerLogs waiting(String reason, Optional<Path> previous) {
    return new ContainerLogs(true, Optional.empty(), previous, reason, STOPPED);
  }

  /** The container has (or had) a log file; {@code running} says whether it still writes to it. */
  public static ContainerLogs files(
      Path current, Optional<Path> previous, BooleanSupplier running) {
    return new ContainerLogs(true, Optional.of(current), previous, null, running);
  }
}
