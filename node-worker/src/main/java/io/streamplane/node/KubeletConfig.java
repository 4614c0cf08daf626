package io.streamplane.node;

import java.time.Duration;

/**
 * How a node runs its pods over time: how often each pod with a sandbox is synced (its containers'
 * states read, probes run when due, status written when it changed), and the crash-loop back-off of
 * restarted containers — none before the first restart, then {@code backOffBase} doubling per
 * restart up to {@code backOffMax} (Kubernetes: 10 s and 5 min).
 */
public record KubeletConfig(Duration syncPeriod, Duration backOffBase, Duration backOffMax) {

  /** For process nodes: sync every second, Kubernetes' back-off. */
  public static KubeletConfig defaults() {
    return new KubeletConfig(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMinutes(5));
  }

  /** For simulated nodes, where nothing changes on its own: sync every 10 s. */
  public static KubeletConfig simulated() {
    return defaults().withSyncPeriod(Duration.ofSeconds(10));
  }

  public KubeletConfig withSyncPeriod(Duration period) {
    return new KubeletConfig(period, backOffBase, backOffMax);
  }

  public KubeletConfig withBackOffBase(Duration base) {
    return new KubeletConfig(syncPeriod, base, backOffMax);
  }

  /** The wait before restarting a container restarted {@code restarts} times already. */
  public Duration backOff(int restarts) {
    if (restarts <= 0) {
      return Duration.ZERO;
    }
    Duration delay = backOffBase.multipliedBy(1L << Math.min(restarts - 1, 20));
    return delay.compareTo(backOffMax) > 0 ? backOffMax : delay;
  }
}
