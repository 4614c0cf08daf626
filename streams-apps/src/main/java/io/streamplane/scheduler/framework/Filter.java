package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;
import java.util.Optional;

/**
 * A kube-scheduler filter plugin: decides whether a pod may run on one node.
 *
 * <p>Contract: pure and side-effect free; empty means the node passes, otherwise the rejection
 * carries Kubernetes' reason strings verbatim, because they end up counted in the pod's
 * FailedScheduling message.
 */
public interface Filter {

  /** The Kubernetes plugin name (e.g. {@code NodeResourcesFit}). */
  String name();

  Optional<Rejection> reject(Pod pod, PodRequests requests, NodeInfo node);

  /**
   * Whether the node passes: the same answer as {@code reject(...).isEmpty()}. A plugin overrides
   * it when building the rejection costs (reason strings): the scheduler asks this of every node it
   * examines and builds rejections only for a pod that fits nowhere.
   */
  default boolean passes(Pod pod, PodRequests requests, NodeInfo node) {
    return reject(pod, requests, node).isEmpty();
  }
}
