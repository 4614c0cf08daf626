package io.streamplane.scheduler.whatif;

import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import java.util.List;

/**
 * The input of a what-if run: the cluster at the window's start (its nodes and the pods holding a
 * place on them), the changes of the window in log order, and the pods still pending at its end.
 *
 * @param nodes the nodes at the start, by name
 * @param boundPods the pods bound and not finished at the start
 * @param changes what happened in the window, in log order
 * @param pendingAtEnd the pods unbound, not being deleted and not finished at the window's end, in
 *     the order they were created
 */
public record WhatIfWindow(
    List<Node> nodes,
    List<BoundPod> boundPods,
    List<LogChange> changes,
    List<PendingPod> pendingAtEnd) {

  /** A pod holding a place on {@code node}. */
  public record BoundPod(String podKey, Pod pod, String node) {}

  /** A pod no scheduler had placed. */
  public record PendingPod(String podKey, Pod pod) {}

  public WhatIfWindow {
    nodes = List.copyOf(nodes);
    boundPods = List.copyOf(boundPods);
    changes = List.copyOf(changes);
    pendingAtEnd = List.copyOf(pendingAtEnd);
  }
}
