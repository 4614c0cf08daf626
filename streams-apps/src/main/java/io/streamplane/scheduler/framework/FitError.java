package io.streamplane.scheduler.framework;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The text of kube-scheduler's {@code FitError.Error()}, the message of a pod's FailedScheduling
 * event and PodScheduled condition, e.g. {@code 0/3 nodes are available: 1 node(s) had untolerated
 * taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are
 * available: 3 Preemption is not helpful for scheduling.}
 *
 * <p>Format reproduced from Kubernetes: every reason of every rejected node is counted; the entries
 * are formatted as {@code "<count> <reason>"} and sorted as strings (so by count first, then by
 * reason: {@code "10 X"} sorts before {@code "2 Y"}); the preemption attempt follows as a second
 * FitError over all nodes.
 *
 * <p>Limits: Streamplane does not preempt. The preemption sentence is the one kube-scheduler writes
 * when no lower-priority pod could be evicted: nodes whose rejection is unresolvable get {@code
 * Preemption is not helpful for scheduling}, the others {@code No preemption victims found for
 * incoming pod}; a pod with {@code preemptionPolicy: Never} gets {@code not eligible due to
 * preemptionPolicy=Never.}
 */
public final class FitError {

  static final String NOT_HELPFUL = "Preemption is not helpful for scheduling";
  static final String NO_VICTIMS = "No preemption victims found for incoming pod";
  static final String NOT_ELIGIBLE = "not eligible due to preemptionPolicy=Never.";

  private FitError() {}

  /**
   * The message for a pod that fits none of {@code numAllNodes} nodes.
   *
   * @param rejections the rejection of every node that was evaluated
   * @param preemptionNever whether the pod has {@code preemptionPolicy: Never}
   */
  public static String message(
      int numAllNodes, Collection<Rejection> rejections, boolean preemptionNever) {
    Map<String, Integer> reasons = new HashMap<>();
    int resolvable = 0;
    for (Rejection r : rejections) {
      for (String reason : r.reasons()) {
        reasons.merge(reason, 1, Integer::sum);
      }
      if (!r.unresolvable()) {
        resolvable++;
      }
    }
    String preemption;
    if (preemptionNever) {
      preemption = NOT_ELIGIBLE;
    } else {
      Map<String, Integer> outcomes = new HashMap<>();
      if (resolvable > 0) {
        outcomes.put(NO_VICTIMS, resolvable);
      }
      // Nodes not examined by preemption (unresolvable ones, or unevaluated) are "not helpful".
      if (numAllNodes - resolvable > 0) {
        outcomes.put(NOT_HELPFUL, numAllNodes - resolvable);
      }
      preemption = histogram(numAllNodes, outcomes);
    }
    return histogram(numAllNodes, reasons) + " preemption: " + preemption;
  }

  /**
   * The message for a pod a PreFilter plugin refused ({@code VolumeBinding}'s {@code pod has
   * unbound immediate PersistentVolumeClaims}): that message in place of the nodes' reasons, every
   * node then unresolvable for preemption.
   */
  public static String preFilterMessage(
      int numAllNodes, String preFilterMessage, boolean preemptionNever) {
    String preemption =
        preemptionNever ? NOT_ELIGIBLE : histogram(numAllNodes, Map.of(NOT_HELPFUL, numAllNodes));
    return "0/"
        + numAllNodes
        + " nodes are available: "
        + preFilterMessage
        + ". preemption: "
        + preemption;
  }

  private static String histogram(int numAllNodes, Map<String, Integer> counts) {
    List<String> entries = new ArrayList<>(counts.size());
    counts.forEach((reason, count) -> entries.add(count + " " + reason));
    entries.sort(null);
    String text = "0/" + numAllNodes + " nodes are available:";
    return entries.isEmpty() ? text : text + " " + String.join(", ", entries) + ".";
  }
}
