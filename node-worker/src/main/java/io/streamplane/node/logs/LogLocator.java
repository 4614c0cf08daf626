package io.streamplane.node.logs;

import java.util.Optional;

/**
 * Finds a container's log files for the {@link NodeLogServer}: the node's answer to "which pod,
 * which container, which attempt". A node worker implements it over its runtime's sandboxes (it
 * knows the pod specs and which containers run); {@link DirectoryLogLocator} does it from the
 * on-disk layout alone.
 */
@FunctionalInterface
public interface LogLocator {

  /**
   * The logs of {@code container} in {@code namespace/pod}, or empty when the node has no such pod.
   */
  Optional<ContainerLogs> locate(String namespace, String pod, String container);
}
