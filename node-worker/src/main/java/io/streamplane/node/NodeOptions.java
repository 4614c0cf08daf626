package io.streamplane.node;

import java.util.Objects;

/**
 * What a node reports about itself: its name, its size (capacity, also its allocatable, as nothing
 * is reserved for the system), the pod CIDR its pod IPs come from, its host IP, and the port of its
 * kubelet endpoint ({@code kubeletPort}, where its container logs are served; 0 when it serves
 * none). Immutable; {@code with*} return copies.
 */
public record NodeOptions(
    String name,
    String cpu,
    String memory,
    int pods,
    String ephemeralStorage,
    String podCIDR,
    String hostIP,
    int kubeletPort) {

  public NodeOptions {
    Objects.requireNonNull(name, "name");
    PodAddresses.parse(podCIDR);
    if (kubeletPort < 0 || kubeletPort > 65535) {
      throw new IllegalArgumentException("kubelet port out of range: " + kubeletPort);
    }
  }

  /** A node of the default size (4 CPUs, 8Gi, 110 pods, 20Gi) with a pod CIDR from its name. */
  public static NodeOptions defaults(String name) {
    return new NodeOptions(
        name, "4", "8Gi", 110, "20Gi", PodAddresses.cidrForName(name), "127.0.0.1", 0);
  }

  public NodeOptions withSize(String cpu, String memory, int pods) {
    return new NodeOptions(name, cpu, memory, pods, ephemeralStorage, podCIDR, hostIP, kubeletPort);
  }

  public NodeOptions withPodCIDR(String cidr) {
    return new NodeOptions(name, cpu, memory, pods, ephemeralStorage, cidr, hostIP, kubeletPort);
  }

  public NodeOptions withKubeletPort(int port) {
    return new NodeOptions(name, cpu, memory, pods, ephemeralStorage, podCIDR, hostIP, port);
  }

  public NodeOptions withName(String newName) {
    return new NodeOptions(
        newName, cpu, memory, pods, ephemeralStorage, podCIDR, hostIP, kubeletPort);
  }
}
