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
}
