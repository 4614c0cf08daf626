package io.streamplane.controller.nodelifecycle;

import java.time.Duration;

/**
 * The node lifecycle controller's settings, named after kube-controller-manager's flags.
 *
 * @param nodeMonitorGracePeriod how long a node may go without renewing its Lease (or posting a
 *     heartbeat) before its conditions become Unknown and it is tainted unreachable ({@code
 *     --node-monitor-grace-period}, 40 s)
 * @param defaultTolerationSeconds how long a pod that does not tolerate the {@code unreachable} and
 *     {@code not-ready} NoExecute taints stays on such a node: the toleration Kubernetes'
 *     DefaultTolerationSeconds admission plugin would have given it ({@code
 *     --default-unreachable-toleration-seconds}, 300 s)
 */
public record NodeLifecycleConfig(Duration nodeMonitorGracePeriod, long defaultTolerationSeconds) {

  public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofSeconds(40);
  public static final long DEFAULT_TOLERATION_SECONDS = 300;

  public NodeLifecycleConfig {
    if (nodeMonitorGracePeriod == null
        || nodeMonitorGracePeriod.isNegative()
        || nodeMonitorGracePeriod.isZero()) {
      throw new IllegalArgumentException(
          "the node monitor grace period must be positive, not " + nodeMonitorGracePeriod);
    }
    if (defaultTolerationSeconds < 0) {
      throw new IllegalArgumentException(
          "default toleration seconds must not be negative, not " + defaultTolerationSeconds);
    }
  }

  public static NodeLifecycleConfig defaults() {
    return new NodeLifecycleConfig(DEFAULT_GRACE_PERIOD, DEFAULT_TOLERATION_SECONDS);
  }
}
