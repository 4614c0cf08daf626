package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;

/**
 * A kube-scheduler score plugin: ranks one feasible node for a pod.
 *
 * <p>Contract: {@link #score} is pure; after all feasible nodes are scored, {@link #normalize}
 * rewrites the raw scores in place (Kubernetes' NormalizeScore) so that every final score is in
 * {@code 0..}{@value #MAX_NODE_SCORE}; the scheduler then multiplies it by the plugin's weight.
 */
public interface Score {

  long MAX_NODE_SCORE = 100;

  /** The Kubernetes plugin name, the key of its weight in {@link SchedulerConfig#scoreWeights}. */
  String name();

  long score(Pod pod, PodRequests requests, NodeInfo node);

  /** Kubernetes' NormalizeScore; the default leaves scores that are already 0..100 unchanged. */
  default void normalize(long[] scores) {}

  /**
   * kube-scheduler's {@code helper.DefaultNormalizeScore}: scale so the best node gets 100, or,
   * reversed, so the node with the largest raw count gets 0 (all 100 when every count is 0).
   */
  static void defaultNormalize(long[] scores, boolean reverse) {
    long max = 0;
    for (long s : scores) {
      max = Math.max(max, s);
    }
    for (int i = 0; i < scores.length; i++) {
      if (max == 0) {
        scores[i] = reverse ? MAX_NODE_SCORE : scores[i];
      } else {
        long s = MAX_NODE_SCORE * scores[i] / max;
        scores[i] = reverse ? MAX_NODE_SCORE - s : s;
      }
    }
  }
}
