package io.streamplane.scheduler.framework;

import io.streamplane.api.Node;
import java.util.Map;

/**
 * One node as the scheduler sees it: the Node object, what it offers ({@link
 * Resources#allocatableOf}) and the sum of the requests of the pods already placed on it ({@code
 * requested.pods()} is their number).
 *
 * <p>{@code nonZeroRequested} is the same sum with kube-scheduler's non-zero defaults (see {@link
 * PodRequests#nonZeroRequests}); LeastAllocated scores with it. {@link #of(Node, PodRequests)}
 * builds a node from both sums (as the binder's {@code NodeUsage} carries them). The three-argument
 * constructor uses {@code requested} for both, which is exact only when every placed pod requests
 * CPU and memory: a node of best-effort pods would look empty to LeastAllocated.
 *
 * <p>{@code volumes} are the CSI volumes the placed pods use ({@link PodRequests#volumes}: each
 * volume's key and how many of the pods use it), which {@link NodeVolumeLimits} counts.
 *
 * <p>Immutable: {@link #withPod} and {@link #withoutPod} return new values.
 */
public record NodeInfo(
    Node node,
    Resources allocatable,
    Resources requested,
    Resources nonZeroRequested,
    Map<String, Long> volumes) {

  public NodeInfo(Node node, Resources allocatable, Resources requested) {
    this(node, allocatable, requested, requested);
  }

  public NodeInfo(
      Node node, Resources allocatable, Resources requested, Resources nonZeroRequested) {
    this(node, allocatable, requested, nonZeroRequested, Map.of());
  }

  /** A node with nothing placed on it yet. */
  public static NodeInfo of(Node node) {
    return new NodeInfo(node, Resources.allocatableOf(node), Resources.ZERO, Resources.ZERO);
  }

  /** A node with {@code placed} (the sums over the pods placed on it) already requested. */
  public static NodeInfo of(Node node, PodRequests placed) {
    return new NodeInfo(
        node,
        Resources.allocatableOf(node),
        placed.requests(),
        placed.nonZeroRequests(),
        placed.volumes());
  }

  public String name() {
    return node.getMetadata() == null ? null : node.getMetadata().getName();
  }

  public NodeInfo withPod(PodRequests pod) {
    return new NodeInfo(
        node,
        allocatable,
        requested.plus(pod.requests()),
        nonZeroRequested.plus(pod.nonZeroRequests()),
        PodRequests.combine(volumes, pod.volumes(), 1));
  }

  public NodeInfo withoutPod(PodRequests pod) {
    return new NodeInfo(
        node,
        allocatable,
        requested.minus(pod.requests()),
        nonZeroRequested.minus(pod.nonZeroRequests()),
        PodRequests.combine(volumes, pod.volumes(), -1));
  }
}
