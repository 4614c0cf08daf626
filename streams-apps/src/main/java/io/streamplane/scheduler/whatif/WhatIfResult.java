package io.streamplane.scheduler.whatif;

import io.streamplane.scheduler.framework.Resources;
import java.util.List;
import java.util.Objects;

/**
 * What a what-if run found: where each pod scheduled in the window really went and where the
 * configured scheduler put it, what it made of the pods still pending at the end, and every node's
 * requests at the end, really and in the what-if.
 *
 * <p>A value: two runs over the same window with the same configuration give equal results.
 *
 * @param placements the pods a scheduler of the profile placed in the window, in log order
 * @param boundWithoutScheduler pods bound in the window by hand or for another scheduler name: kept
 *     where they really went, in both states
 * @param pendingAtEnd the pods still pending at the window's end and meant for this profile
 * @param nodes the nodes at the end, by name, before the pending pods are tried
 * @param decisions scheduling cycles run (window pods, retries after releases, pending pods)
 */
public record WhatIfResult(
    List<Placement> placements,
    int boundWithoutScheduler,
    List<Attempt> pendingAtEnd,
    List<NodeUsage> nodes,
    long decisions) {

  /**
   * One pod scheduled in the window: its real node, and the what-if's node or, when the what-if
   * never placed it, the FailedScheduling message of its first attempt.
   */
  public record Placement(String podKey, String realNode, String whatIfNode, String failure) {
    public boolean moved() {
      return !Objects.equals(realNode, whatIfNode);
    }
  }

  /** A pod still pending at the end, tried once more over the what-if's final state. */
  public record Attempt(String podKey, String whatIfNode, String failure) {}

  /** One node at the end: what it offers and what is requested on it, really and in the what-if. */
  public record NodeUsage(String name, Resources allocatable, Resources real, Resources whatIf) {}

  public WhatIfResult {
    placements = List.copyOf(placements);
    pendingAtEnd = List.copyOf(pendingAtEnd);
    nodes = List.copyOf(nodes);
  }

  public int podsInWindow() {
    return placements.size();
  }

  /** Window pods the what-if put elsewhere, or nowhere. */
  public long placedDifferently() {
    return placements.stream().filter(Placement::moved).count();
  }

  /** Pods really left pending at the end of the window. */
  public int unschedulableBefore() {
    return pendingAtEnd.size();
  }

  /**
   * Of the same pods as {@link #podsInWindow} plus {@link #unschedulableBefore}, those the what-if
   * left unplaced.
   */
  public long unschedulableAfter() {
    return placements.stream().filter(p -> p.whatIfNode() == null).count()
        + pendingAtEnd.stream().filter(a -> a.whatIfNode() == null).count();
  }

  /** Nodes with at least one pod at the end, really. */
  public long nodesUsedReal() {
    return nodes.stream().filter(n -> n.real().pods() > 0).count();
  }

  /** Nodes with at least one pod at the end, in the what-if. */
  public long nodesUsedWhatIf() {
    return nodes.stream().filter(n -> n.whatIf().pods() > 0).count();
  }
}
