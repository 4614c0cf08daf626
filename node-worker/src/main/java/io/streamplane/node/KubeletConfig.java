package io.streamplane.node;

import java.time.Duration;

/**
 * How a node runs its pods over time: how often each pod with a sandbox is synced (its containers'
 * states read, probes run when due, status written when it changed), and the crash-loop back-off of
 * restarted containers — none before the first restart, then {@code backOffBase} doubling per
 * restart up to {@code backOffMax} (Kubernetes: 10 s and 5 min) — and where its pods' names are
 * resolved: {@code clusterDns}, the address of the cluster DNS Service (empty: none), and {@code
 * clusterDomain}, as the kubelet's options of those names.
 */
public record KubeletConfig(
    Duration syncPeriod,
    Duration backOffBase,
    Duration backOffMax,
    String clusterDns,
    String clusterDomain) {

  /**
   * The cluster DNS of {@code up}: the kube-dns Service's address, the tenth of the default service
   * range 127.96.0.0/12 (the gateway's {@code ServiceAllocation.clusterDnsAddress}).
   */
  public static final String CLUSTER_DNS = "127.96.0.10";

  /** For process nodes: sync every second, Kubernetes' back-off, the cluster DNS of {@code up}. */
  public static KubeletConfig defaults() {
    return new KubeletConfig(
        Duration.ofSeconds(1),
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        CLUSTER_DNS,
        "cluster.local");
  }

  /** For simulated nodes, where nothing changes on its own: sync every 10 s. */
  public static KubeletConfig simulated() {
    return defaults().withSyncPeriod(Duration.ofSeconds(10));
  }

  public KubeletConfig withSyncPeriod(Duration period) {
    return new KubeletConfig(period, backOffBase, backOffMax, clusterDns, clusterDomain);
  }

  public KubeletConfig withBackOffBase(Duration base) {
    return new KubeletConfig(syncPeriod, base, backOffMax, clusterDns, clusterDomain);
  }

  public KubeletConfig withClusterDns(String address, String domain) {
    return new KubeletConfig(syncPeriod, backOffBase, backOffMax, address, domain);
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
