package io.streamplane.cli.roles;

import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The node lifecycle controller's options, shared by {@code controllers} and {@code up}. */
public final class NodeLifecycleOptions {

  @Option(
      names = "--node-monitor-grace-period",
      defaultValue = "40",
      paramLabel = "SECONDS",
      description =
          "Seconds a node may go without renewing its Lease before it is marked Unknown and"
              + " tainted unreachable (default: ${DEFAULT-VALUE}).")
  public long nodeMonitorGracePeriodSeconds;

  @Option(
      names = "--default-toleration-seconds",
      defaultValue = "300",
      paramLabel = "SECONDS",
      description =
          "How long a pod without its own toleration of the unreachable/not-ready NoExecute taints"
              + " stays on such a node before it is evicted (default: ${DEFAULT-VALUE}).")
  public long defaultTolerationSeconds;

  public NodeLifecycleConfig config() {
    return new NodeLifecycleConfig(
        Duration.ofSeconds(nodeMonitorGracePeriodSeconds), defaultTolerationSeconds);
  }
}
