package io.streamplane.scheduler.whatif;

import io.streamplane.api.Node;
import io.streamplane.api.Pod;

/**
 * One change of the cluster in a what-if window, as the {@code events} log recorded it, reduced to
 * what scheduling depends on: nodes appearing, changing and going, pods taking a place on a node
 * and giving it back.
 */
public sealed interface LogChange {

  /** A node was added or changed (labels, taints, allocatable, unschedulable). */
  record NodeSet(Node node) implements LogChange {}

  /** A node was deleted. */
  record NodeRemoved(String name) implements LogChange {}

  /**
   * A pod was bound to {@code node}. {@code scheduled}: it was pending before (a scheduler chose
   * the node), and {@code pod} is its last pending version, as the scheduler saw it; otherwise it
   * arrived bound ({@code spec.nodeName} set by hand) and {@code pod} is that version.
   */
  record PodBound(String podKey, Pod pod, String node, boolean scheduled) implements LogChange {}

  /** A bound pod was deleted or finished (Succeeded, Failed): its place is free again. */
  record PodReleased(String podKey) implements LogChange {}
}
