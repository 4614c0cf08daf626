package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;
import io.streamplane.api.Taint;
import java.util.Optional;

/**
 * Kubernetes' NodeUnschedulable filter: a cordoned node ({@code spec.unschedulable}) takes only
 * pods that tolerate the {@code node.kubernetes.io/unschedulable:NoSchedule} taint, as DaemonSet
 * pods do.
 */
public final class NodeUnschedulablePlugin implements Filter {

  public static final String NAME = "NodeUnschedulable";
  public static final String REASON = "node(s) were unschedulable";
  public static final String TAINT_KEY = "node.kubernetes.io/unschedulable";

  private static final Taint UNSCHEDULABLE_TAINT =
      Taint.newBuilder().setKey(TAINT_KEY).setEffect("NoSchedule").build();

  /** Immutable, so one instance serves every rejection: this filter runs for every node. */
  private static final Optional<Rejection> REJECTED = Optional.of(Rejection.unresolvable(REASON));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Optional<Rejection> reject(Pod pod, PodRequests requests, NodeInfo node) {
    var spec = node.node().getSpec();
    if (spec == null || !Boolean.TRUE.equals(spec.getUnschedulable())) {
      return Optional.empty();
    }
    var tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    if (TaintTolerationPlugin.tolerated(tolerations, UNSCHEDULABLE_TAINT)) {
      return Optional.empty();
    }
    return REJECTED;
  }
}
