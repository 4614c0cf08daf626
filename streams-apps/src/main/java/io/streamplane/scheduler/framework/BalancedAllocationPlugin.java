package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;

/**
 * Kubernetes' NodeResourcesBalancedAllocation score (1.32): favours nodes whose cpu and memory
 * would be requested in equal fractions once the pod is placed. With the fractions {@code f_cpu}
 * and {@code f_mem} (requested / allocatable, capped at 1) the score is {@code (1 - std) * 100},
 * where the standard deviation of two values is {@code |f_cpu - f_mem| / 2}.
 *
 * <p>Uses the real requests (not the non-zero defaults), as Kubernetes does for this plugin. A
 * resource the node does not report is left out; with a single resource left the score is 100.
 */
public final class BalancedAllocationPlugin implements Score {

  public static final String NAME = "NodeResourcesBalancedAllocation";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public long score(Pod pod, PodRequests requests, NodeInfo node) {
    Resources requested = node.requested().plus(requests.requests());
    Resources allocatable = node.allocatable();
    double[] fractions = new double[2];
    int n = 0;
    if (allocatable.milliCpu() != 0) {
      fractions[n++] = fraction(requested.milliCpu(), allocatable.milliCpu());
    }
    if (allocatable.memory() != 0) {
      fractions[n++] = fraction(requested.memory(), allocatable.memory());
    }
    double std = n == 2 ? Math.abs((fractions[0] - fractions[1]) / 2) : 0;
    return (long) ((1 - std) * MAX_NODE_SCORE);
  }

  private static double fraction(long requested, long allocatable) {
    return Math.min(1.0, (double) requested / (double) allocatable);
  }
}
