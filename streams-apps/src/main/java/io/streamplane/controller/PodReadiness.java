package io.streamplane.controller;

import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import java.time.Instant;

/** A pod's Ready condition, as the controllers read it ({@code podutil.IsPodReady}). */
public final class PodReadiness {

  private PodReadiness() {}

  /**
   * When the pod's Ready condition last became True ({@link Instant#EPOCH} when it has no
   * transition time), or null when the pod is not Ready.
   */
  public static Instant readySince(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    for (PodCondition condition : pod.getStatus().getConditions()) {
      if ("Ready".equals(condition.getType()) && "True".equals(condition.getStatus())) {
        return condition.getLastTransitionTime() == null
            ? Instant.EPOCH
            : condition.getLastTransitionTime();
      }
    }
    return null;
  }

  /** Whether the pod's Ready condition is True. */
  public static boolean isReady(Pod pod) {
    return readySince(pod) != null;
  }
}
