package io.streamplane.node;

import java.util.Objects;

/**
 * What a node reports about itself: its name, its size (capacity, also its allocatable, as nothing
 * is reserved for the system), the pod CIDR its pod IPs come from, and its host IP. Immutable;
 * {@code with*} return copies.
 */
public record NodeOptions(
    String name,
    String cpu,
    String memory,
    int pods,
    String ephemeralStorage,
    String podCIDR,
    String hostIP) {

  public NodeOptions {
    Objects.requireNonNull(name, "name");
    PodAddresses.parse(podCIDR);
  }

  /** A node of the default size (4 CPUs, 8Gi, 110 pods, 20Gi) with a pod CIDR from its name. */
  public static NodeOptions defaults(String name) {
    return new NodeOptions(
        name, "4", "8Gi", 110, "20Gi", PodAddresses.cidrForName(name), "127.0.0.1");
  }

  public NodeOptions withSize(String cpu, String memory, int pods) {
    return new NodeOptions(name, cpu, memory, pods, ephemeralStorage, podCIDR, hostIP);
  }

  public NodeOptions withPodCIDR(String cidr) {
    return new NodeOptions(name, cpu, memory, pods, ephemeralStorage, cidr, hostIP);
  }

  public NodeOptions withName(String newName) {
    return new NodeOptions(newName, cpu, memory, pods, ephemeralStorage, podCIDR, hostIP);
  }
}
