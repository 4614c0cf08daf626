package io.streamplane.scheduler.framework;

import io.streamplane.api.LabelSelector;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.log.PlacedPod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * kube-scheduler's DefaultPreemption PostFilter as a pure function: for a pod that fits no node,
 * the node where evicting pods of lower priority makes it fit, and those pods (the victims).
 *
 * <p>As Kubernetes' {@code preemption.Evaluator}:
 *
 * <ul>
 *   <li>a pod with {@code preemptionPolicy: Never} does not preempt; nor does a pod nominated to a
 *       node where a pod of lower priority is still terminating (it waits for that place);
 *   <li>only nodes whose rejection removing pods could change (not a taint, an affinity, ...) are
 *       examined, from a seeded offset, until {@link #numCandidates} candidates are found (10 % of
 *       them, at least 100) of which one violates no budget;
 *   <li>on a node ({@code SelectVictimsOnNode}) every pod of lower priority is removed; if the pod
 *       still does not pass the filters the node is no candidate; otherwise the removed pods are
 *       given back one by one, most important first (higher priority, then started earlier), those
 *       whose eviction would break a PodDisruptionBudget before the others, and each one without
 *       which the pod no longer fits is a victim — so the victims are few and of low priority;
 *   <li>among the candidates ({@code pickOneNodeForPreemption}): the fewest budget violations, then
 *       the lowest highest victim priority, the lowest sum of victim priorities, the fewest
 *       victims, the latest start of the highest-priority victims, then the first examined.
 * </ul>
 *
 * <p>A budget is broken by a victim of its namespace that its (non-empty) selector selects, not
 * already in its {@code disruptedPods}, once the victims before it have spent its {@code
 * disruptionsAllowed}. Budgets are honoured as far as possible: a node whose victims break none is
 * preferred, but a pod may still be preempted against its budget, as in Kubernetes.
 *
 * <p>Only pods whose object the view carries ({@link PlacedPod}) can be victims; places the view
 * counts without one (just granted, or assumed by this scheduler) stay.
 */
public final class Preemption {

  public static final String NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never.";
  public static final String NOT_ELIGIBLE_TERMINATING =
      "not eligible due to a terminating pod on the nominated node.";
  static final String NO_VICTIMS = "No preemption victims found for incoming pod";
  static final String NOT_HELPFUL = "Preemption is not helpful for scheduling";

  /** The node chosen, its victims (most important first) and how many of them break a budget. */
  public record Candidate(String nodeName, List<PlacedPod> victims, int pdbViolations) {}

  /** A candidate, or the {@code preemption:} part of the FailedScheduling message. */
  public record Outcome(Candidate candidate, String message) {
    public boolean preempts() {
      return candidate != null;
    }
  }

  private Preemption() {}

  /**
   * @param rejections each node's rejection by the filters (by node name)
   * @param placed the pods each node's ledger holds, with their priorities (by node name)
   * @param budgets every PodDisruptionBudget known
   */
  public static Outcome preempt(
      Pod pod,
      List<NodeInfo> nodes,
      Map<String, Rejection> rejections,
      Map<String, List<PlacedPod>> placed,
      List<PodDisruptionBudget> budgets,
      long seed) {
    String policy = pod.getSpec() == null ? null : pod.getSpec().getPreemptionPolicy();
    if ("Never".equals(policy)) {
      return new Outcome(null, NOT_ELIGIBLE_NEVER);
    }
    int priority = priority(pod);
    String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    if (nominated != null && !nominated.isEmpty()) {
      Rejection there = rejections.get(nominated);
      boolean resolvable = there == null || !there.unresolvable();
      if (resolvable
          && placed.getOrDefault(nominated, List.of()).stream()
              .anyMatch(p -> p.getTerminating() && p.getPriority() < priority)) {
        return new Outcome(null, NOT_ELIGIBLE_TERMINATING);
      }
    }
    List<NodeInfo> potential = new ArrayList<>();
    for (NodeInfo node : nodes) {
      Rejection rejection = rejections.get(node.name());
      if (rejection != null && !rejection.unresolvable()) {
        potential.add(node);
      }
    }
    Map<String, Integer> outcomes = new HashMap<>();
    List<Candidate> candidates = new ArrayList<>();
    int examined = 0;
    if (!potential.isEmpty()) {
      PodRequests requests = PodRequests.of(pod);
      int toFind = numCandidates(potential.size());
      int offset = new SplittableRandom(seed).nextInt(potential.size());
      int nonViolating = 0;
      for (int i = 0; i < potential.size(); i++) {
        NodeInfo node = potential.get((offset + i) % potential.size());
        examined++;
        Selection selection =
            selectVictims(
                pod,
                priority,
                requests,
                node,
                placed.getOrDefault(node.name(), List.of()),
                budgets);
        if (selection.candidate() == null) {
          selection.reasons().forEach(reason -> outcomes.merge(reason, 1, Integer::sum));
          continue;
        }
        candidates.add(selection.candidate());
        if (selection.candidate().pdbViolations() == 0) {
          nonViolating++;
        }
        if (nonViolating > 0 && candidates.size() >= toFind) {
          break;
        }
      }
    }
    if (candidates.isEmpty()) {
      // The nodes preemption did not examine (their rejection was unresolvable) are "not helpful".
      if (nodes.size() > examined) {
        outcomes.merge(NOT_HELPFUL, nodes.size() - examined, Integer::sum);
      }
      return new Outcome(null, FitError.histogram(nodes.size(), outcomes));
    }
    return new Outcome(pick(candidates), null);
  }

  /** kube-scheduler's {@code calculateNumCandidates}: 10 % of the nodes, at least 100. */
  static int numCandidates(int numNodes) {
    int n = numNodes * 10 / 100;
    return Math.min(Math.max(n, 100), numNodes);
  }

  /** A node's candidate, or the reasons it is none. */
  record Selection(Candidate candidate, List<String> reasons) {
    static Selection none(List<String> reasons) {
      return new Selection(null, reasons);
    }
  }

  /**
   * {@code SelectVictimsOnNode}: the victims on {@code node} and the budgets they break; or, when
   * the node is no candidate, the reasons why.
   */
  static Selection selectVictims(
      Pod pod,
      int priority,
      PodRequests requests,
      NodeInfo node,
      List<PlacedPod> onNode,
      List<PodDisruptionBudget> budgets) {
    List<PlacedPod> potential = new ArrayList<>();
    NodeInfo without = node;
    for (PlacedPod placed : onNode) {
      if (placed.getPriority() < priority) {
        potential.add(placed);
        without = without.withoutPod(PodRequests.fromMap(placed.getRequests()));
      }
    }
    if (potential.isEmpty()) {
      return Selection.none(List.of(NO_VICTIMS));
    }
    if (!Scheduler.passes(pod, requests, without)) {
      return Selection.none(Scheduler.firstRejection(pod, requests, without).reasons());
    }
    potential.sort(MORE_IMPORTANT);
    List<PlacedPod> violating = new ArrayList<>();
    List<PlacedPod> nonViolating = new ArrayList<>();
    splitByBudget(potential, budgets, violating, nonViolating);
    List<PlacedPod> victims = new ArrayList<>();
    int violations = 0;
    for (List<PlacedPod> group : List.of(violating, nonViolating)) {
      for (PlacedPod placed : group) {
        NodeInfo with = without.withPod(PodRequests.fromMap(placed.getRequests()));
        if (Scheduler.passes(pod, requests, with)) {
          without = with;
        } else {
          victims.add(placed);
          if (group == violating) {
            violations++;
          }
        }
      }
    }
    if (victims.isEmpty()) {
      // The pod fits as the node is: nothing to preempt here (the view changed under it).
      return Selection.none(List.of(NO_VICTIMS));
    }
    victims.sort(MORE_IMPORTANT);
    return new Selection(new Candidate(node.name(), List.copyOf(victims), violations), List.of());
  }

  /** {@code filterPodsWithPDBViolation}, for pods sorted most important first. */
  static void splitByBudget(
      List<PlacedPod> pods,
      List<PodDisruptionBudget> budgets,
      List<PlacedPod> violating,
      List<PlacedPod> nonViolating) {
    int[] allowed = new int[budgets.size()];
    for (int i = 0; i < budgets.size(); i++) {
      PodDisruptionBudget pdb = budgets.get(i);
      Integer disruptionsAllowed =
          pdb.getStatus() == null ? null : pdb.getStatus().getDisruptionsAllowed();
      allowed[i] = disruptionsAllowed == null ? 0 : disruptionsAllowed;
    }
    for (PlacedPod pod : pods) {
      boolean violated = false;
      if (!pod.getLabels().isEmpty()) {
        for (int i = 0; i < budgets.size(); i++) {
          PodDisruptionBudget pdb = budgets.get(i);
          if (!pod.getNamespace().equals(pdb.getMetadata().getNamespace())) {
            continue;
          }
          LabelSelector selector = pdb.getSpec() == null ? null : pdb.getSpec().getSelector();
          if (empty(selector) || !LabelSelectors.matches(selector, pod.getLabels())) {
            continue;
          }
          if (pdb.getStatus() != null
              && pdb.getStatus().getDisruptedPods() != null
              && pdb.getStatus().getDisruptedPods().containsKey(pod.getName())) {
            continue;
          }
          allowed[i]--;
          if (allowed[i] < 0) {
            violated = true;
          }
        }
      }
      (violated ? violating : nonViolating).add(pod);
    }
  }

  private static boolean empty(LabelSelector selector) {
    return selector == null
        || ((selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty())
            && (selector.getMatchExpressions() == null
                || selector.getMatchExpressions().isEmpty()));
  }

  /** {@code pickOneNodeForPreemption} without score functions; ties go to the first examined. */
  static Candidate pick(List<Candidate> candidates) {
    Comparator<Candidate> order =
        Comparator.<Candidate>comparingInt(Candidate::pdbViolations)
            .thenComparingInt(c -> c.victims().get(0).getPriority())
            .thenComparingLong(
                c -> c.victims().stream().mapToLong(v -> (long) v.getPriority()).sum())
            .thenComparingInt(c -> c.victims().size())
            .thenComparing(Comparator.comparingLong(Preemption::earliestStartOfHighest).reversed());
    Candidate best = candidates.get(0);
    for (Candidate c : candidates.subList(1, candidates.size())) {
      if (order.compare(c, best) < 0) {
        best = c;
      }
    }
    return best;
  }

  /** The earliest start among the victims of the highest priority (victims sorted). */
  private static long earliestStartOfHighest(Candidate c) {
    int highest = c.victims().get(0).getPriority();
    return c.victims().stream()
        .filter(v -> v.getPriority() == highest)
        .mapToLong(PlacedPod::getStartTime)
        .min()
        .orElse(0);
  }

  static int priority(Pod pod) {
    Integer priority = pod.getSpec() == null ? null : pod.getSpec().getPriority();
    return priority == null ? 0 : priority;
  }

  /** {@code MoreImportantPod}: higher priority first, then the one started earlier. */
  static final Comparator<PlacedPod> MORE_IMPORTANT =
      Comparator.comparingInt(PlacedPod::getPriority)
          .reversed()
          .thenComparingLong(PlacedPod::getStartTime)
          .thenComparing(PlacedPod::getKey);
}
