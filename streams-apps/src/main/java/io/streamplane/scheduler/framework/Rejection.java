package io.streamplane.scheduler.framework;

import java.util.List;

/**
 * Why a filter plugin turned a node down: Kubernetes' reason strings (one or more) and whether
 * evicting pods could ever change the answer ({@code UnschedulableAndUnresolvable} in
 * kube-scheduler), which decides the preemption sentence of the failure message.
 */
public record Rejection(List<String> reasons, boolean unresolvable) {

  public Rejection {
    if (reasons.isEmpty()) {
      throw new IllegalArgumentException("a rejection needs at least one reason");
    }
    reasons = List.copyOf(reasons);
  }

  public static Rejection unresolvable(String reason) {
    return new Rejection(List.of(reason), true);
  }
}
