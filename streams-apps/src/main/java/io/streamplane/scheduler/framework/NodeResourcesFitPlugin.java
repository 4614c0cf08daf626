package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kubernetes' NodeResourcesFit plugin, scoring with a {@link ScoringStrategy} ({@code
 * LeastAllocated} by default).
 *
 * <p>Filter: the pod's requests must fit in allocatable minus what is already requested on the
 * node; every failing resource is reported, in Kubernetes' order and words: {@code Too many pods},
 * {@code Insufficient cpu}, {@code Insufficient memory}, {@code Insufficient ephemeral-storage}. A
 * shortage is unresolvable (preemption cannot help) when the request exceeds the node's whole
 * allocatable; the pod count never is, as in Kubernetes.
 *
 * <p>Score: the configured {@link ScoringStrategy} (kube-scheduler's {@code
 * NodeResourcesFitArgs.scoringStrategy}); by default LeastAllocated over cpu and memory, weight 1
 * each: {@code (allocatable - requested) * 100 / allocatable} with the non-zero requests of the
 * node plus the pod, averaged by weight; a resource the node does not report is left out.
 *
 * <p>Limits: extended resources are not implemented.
 */
public final class NodeResourcesFitPlugin implements Filter, Score {

  public static final String NAME = "NodeResourcesFit";

  private final ScoringStrategy strategy;

  /** The plugin with kube-scheduler's default strategy, LeastAllocated over cpu and memory. */
  public NodeResourcesFitPlugin() {
    this(ScoringStrategy.LEAST_ALLOCATED);
  }

  public NodeResourcesFitPlugin(ScoringStrategy strategy) {
    this.strategy = strategy;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Optional<Rejection> reject(Pod pod, PodRequests requests, NodeInfo node) {
    Resources wanted = requests.requests();
    // The common case, a node with room, allocates nothing: this runs for every node of a cycle.
    if (wanted.fitsBeside(node.requested(), node.allocatable())) {
      return Optional.empty();
    }
    List<String> short_ = wanted.insufficientIn(node.allocatable().minus(node.requested()));
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
  public boolean passes(Pod pod, PodRequests requests, NodeInfo node) {
    return requests.requests().fitsBeside(node.requested(), node.allocatable());
  }

  @Override
  public long score(Pod pod, PodRequests requests, NodeInfo node) {
    return strategy.score(requests, node);
  }
}
