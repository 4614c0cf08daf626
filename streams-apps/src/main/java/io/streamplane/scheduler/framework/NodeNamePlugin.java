package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;
import java.util.Optional;

/** Kubernetes' NodeName filter: a pod that names a node ({@code spec.nodeName}) fits only there. */
public final class NodeNamePlugin implements Filter {

  public static final String NAME = "NodeName";
  public static final String REASON = "node(s) didn't match the requested node name";

  /** Immutable, so one instance serves every rejection: this filter runs for every node. */
  private static final Optional<Rejection> REJECTED = Optional.of(Rejection.unresolvable(REASON));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Optional<Rejection> reject(Pod pod, PodRequests requests, NodeInfo node) {
    String wanted = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (wanted == null || wanted.isEmpty() || wanted.equals(node.name())) {
      return Optional.empty();
    }
    return REJECTED;
  }
}
