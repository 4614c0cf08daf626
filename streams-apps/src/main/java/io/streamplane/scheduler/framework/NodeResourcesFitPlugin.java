package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kubernetes' NodeResourcesFit plugin with its default {@code LeastAllocated} scoring strategy.
 *
 * <p>Filter: the pod's requests must fit in allocatable minus what is already requested on the
 * node; every failing resource is reported, in Kubernetes' order and words: {@code Too many pods},
 * {@code Insufficient cpu}, {@code Insufficient memory}, {@code Insufficient ephemeral-storage}. A
 * shortage is unresolvable (preemption cannot help) when the request exceeds the node's whole
 * allocatable; the pod count never is, as in Kubernetes.
 *
 * <p>Score: for cpu and memory (weight 1 each), {@code (allocatable - requested) * 100 /
 * allocatable} with the non-zero requests of the node plus the pod, averaged by weight; a resource
 * the node does not report is left out.
 *
 * <p>Limits: the MostAllocated and RequestedToCapacityRatio strategies and extended resources are
 * not implemented.
 */
public final class NodeResourcesFitPlugin implements Filter, Score {

  public static final String NAME = "NodeResourcesFit";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Optional<Rejection> reject(Pod pod, PodRequests requests, NodeInfo node) {
    Resources wanted = requests.requests();
    List<String> short_ = wanted.insufficientIn(node.allocatable().minus(node.requested()));
    if (short_.isEmpty()) {
      return Optional.empty();
    }
    List<String> reasons = new ArrayList<>(short_.size());
    boolean unresolvable = false;
    Resources total = node.allocatable();
    for (String resource : short_) {
      switch (resource) {
        case Resources.PODS -> reasons.add("Too many pods");
        case Resources.CPU -> {
          reasons.add("Insufficient cpu");
          unresolvable |= wanted.milliCpu() > total.milliCpu();
        }
        case Resources.MEMORY -> {
          reasons.add("Insufficient memory");
          unresolvable |= wanted.memory() > total.memory();
        }
        default -> {
          reasons.add("Insufficient ephemeral-storage");
          unresolvable |= wanted.ephemeralStorage() > total.ephemeralStorage();
        }
      }
    }
    return Optional.of(new Rejection(reasons, unresolvable));
  }

  @Override
  public long score(Pod pod, PodRequests requests, NodeInfo node) {
    Resources requested = node.nonZeroRequested().plus(requests.nonZeroRequests());
    Resources allocatable = node.allocatable();
    long sum = 0;
    long weights = 0;
    if (allocatable.milliCpu() != 0) {
      sum += leastRequested(requested.milliCpu(), allocatable.milliCpu());
      weights++;
    }
    if (allocatable.memory() != 0) {
      sum += leastRequested(requested.memory(), allocatable.memory());
      weights++;
    }
    return weights == 0 ? 0 : sum / weights;
  }

  private static long leastRequested(long requested, long capacity) {
    if (capacity <= 0 || requested > capacity) {
      return 0;
    }
    // Multiply last in floating point only if the exact product could overflow (exabyte nodes).
    long free = capacity - requested;
    return free <= Long.MAX_VALUE / MAX_NODE_SCORE
        ? free * MAX_NODE_SCORE / capacity
        : (long) ((double) free * MAX_NODE_SCORE / capacity);
  }
}
