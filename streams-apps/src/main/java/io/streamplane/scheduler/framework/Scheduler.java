package io.streamplane.scheduler.framework;

import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.log.PlacedPod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One kube-scheduler scheduling cycle as a pure function: {@code (pod, nodes, config, seed) -> node
 * or FailedScheduling message}.
 *
 * <p>As Kubernetes' {@code schedulePod}: nodes are filtered (NodeUnschedulable, NodeName,
 * TaintToleration, NodeAffinity, NodeResourcesFit, in the default profile's order; the first
 * rejecting plugin decides a node) starting at an offset and wrapping around, and filtering stops
 * once {@link SchedulerConfig#numFeasibleNodesToFind} feasible nodes are found. A single feasible
 * node is taken without scoring; otherwise each configured score plugin scores and normalizes
 * (NodeResourcesFit with the profile's {@link ScoringStrategy}), the weighted sum ranks the nodes,
 * and ties are broken at random (reservoir sampling, as {@code selectHost}).
 *
 * <p>Determinism: kube-scheduler rotates its start offset from cycle to cycle and breaks ties with
 * a process-global random source. Here both come from {@code seed}, so the same inputs give the
 * same decision (replay) and a caller varies the seed to spread start offsets.
 *
 * <p>Limits: no nominated pods beyond a queue task's own, no port, topology-spread or inter-pod
 * affinity plugins (VolumeBinding: {@link VolumeBinding}; NodeVolumeLimits: {@link
 * NodeVolumeLimits}; preemption: {@link Preemption}, which frees no volumes); filtering is
 * sequential where Kubernetes uses 16 goroutines (so, unlike Kubernetes, the feasible set found is
 * exactly the first ones in offset order).
 */
public final class Scheduler {

  /** kube-scheduler's {@code ErrNoNodesAvailable}. */
  public static final String NO_NODES = "no nodes available to schedule pods";

  private static final NodeUnschedulablePlugin NODE_UNSCHEDULABLE = new NodeUnschedulablePlugin();
  private static final NodeNamePlugin NODE_NAME = new NodeNamePlugin();
  private static final TaintTolerationPlugin TAINT_TOLERATION = new TaintTolerationPlugin();
  private static final NodeAffinityPlugin NODE_AFFINITY = new NodeAffinityPlugin();
  private static final NodeResourcesFitPlugin NODE_RESOURCES_FIT = new NodeResourcesFitPlugin();

  private static final List<Filter> FILTERS =
      List.of(NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY, NODE_RESOURCES_FIT);

  private static final Map<String, Score> SCORES =
      Map.of(
          BalancedAllocationPlugin.NAME, new BalancedAllocationPlugin(),
          NodeAffinityPlugin.NAME, NODE_AFFINITY,
          TaintTolerationPlugin.NAME, TAINT_TOLERATION);

  private Scheduler() {}

  /**
   * Chooses a node for {@code pod}.
   *
   * @throws IllegalArgumentException if the pod names another scheduler or has a malformed quantity
   */
  public static ScheduleResult schedule(
      Pod pod, List<NodeInfo> nodes, SchedulerConfig config, long seed) {
    return schedule(
        pod, nodes, null, List.of(), config, seed, VolumeBinding.none(), NodeVolumeLimits.none());
  }

  /**
   * Chooses a node for {@code pod} whose claims are {@code volumes} ({@link VolumeBinding}'s
   * PreFilter already run): a PreFilter failure makes the pod unschedulable everywhere with its
   * message, as kube-scheduler's {@code FitError} words it; otherwise NodeVolumeLimits ({@code
   * limits}) and VolumeBinding filter after NodeResourcesFit, as in the default profile, and the
   * result's requests carry the pod's CSI volumes ({@link NodeVolumeLimits#volumes}). When no node
   * fits, runs {@link Preemption} (the PostFilter) over {@code placed}, the pods each node holds,
   * and {@code budgets}; nodes a volume rules out are unresolvable, so preemption leaves them
   * alone.
   *
   * @param placed the pods of each node, by node name; null: no preemption is attempted (the
   *     message then says what kube-scheduler says when no victim is found)
   */
  public static ScheduleResult schedule(
      Pod pod,
      List<NodeInfo> nodes,
      Map<String, List<PlacedPod>> placed,
      List<PodDisruptionBudget> budgets,
      SchedulerConfig config,
      long seed,
      VolumeBinding volumes) {
    return schedule(pod, nodes, placed, budgets, config, seed, volumes, NodeVolumeLimits.none());
  }

  /** As above, with NodeVolumeLimits' view of the pod's CSI volumes. */
  public static ScheduleResult schedule(
      Pod pod,
      List<NodeInfo> nodes,
      Map<String, List<PlacedPod>> placed,
      List<PodDisruptionBudget> budgets,
      SchedulerConfig config,
      long seed,
      VolumeBinding volumes,
      NodeVolumeLimits limits) {
    if (!config.responsibleFor(pod)) {
      throw new IllegalArgumentException(
          "pod asks for scheduler '"
              + (pod.getSpec() == null ? null : pod.getSpec().getSchedulerName())
              + "', this is '"
              + config.schedulerName()
              + "'");
    }
    PodRequests requests = PodRequests.of(pod);
    if (limits != NodeVolumeLimits.none()) {
      requests = requests.withVolumes(limits.volumes());
    }
    int all = nodes.size();
    if (all == 0) {
      return ScheduleResult.failed(requests, NO_NODES);
    }
    if (volumes.preFilterFailure() != null) {
      boolean never = pod.getSpec() != null && "Never".equals(pod.getSpec().getPreemptionPolicy());
      return ScheduleResult.failed(
          requests, FitError.preFilterMessage(all, volumes.preFilterFailure(), never));
    }
    SplittableRandom random = new SplittableRandom(seed);
    int toFind = config.numFeasibleNodesToFind(all);
    int start = random.nextInt(all);

    List<NodeInfo> feasible = new ArrayList<>(Math.min(toFind, all));
    for (int i = 0; i < all && feasible.size() < toFind; i++) {
      NodeInfo node = nodes.get((start + i) % all);
      if (passes(pod, requests, node)
          && limits.reject(node).isEmpty()
          && volumes.reject(node).isEmpty()) {
        feasible.add(node);
      }
    }

    if (feasible.isEmpty()) {
      // Every node was examined and rejected; only now are the reasons worth building.
      Map<String, Rejection> rejections = new LinkedHashMap<>(all * 2);
      for (NodeInfo node : nodes) {
        Rejection rejection = firstRejection(pod, requests, node);
        if (rejection == null) {
          rejection = limits.reject(node).orElse(null);
        }
        rejections.put(
            node.name(), rejection != null ? rejection : volumes.reject(node).orElseThrow());
      }
      if (placed == null) {
        boolean never =
            pod.getSpec() != null && "Never".equals(pod.getSpec().getPreemptionPolicy());
        return ScheduleResult.failed(requests, FitError.message(all, rejections.values(), never));
      }
      String filters = FitError.filters(all, rejections.values());
      Preemption.Outcome preemption =
          Preemption.preempt(pod, nodes, rejections, placed, budgets, random.nextLong());
      return preemption.preempts()
          ? ScheduleResult.preempting(requests, filters, preemption.candidate())
          : ScheduleResult.failed(requests, filters + " preemption: " + preemption.message());
    }
    if (feasible.size() == 1) {
      return ScheduleResult.placed(feasible.get(0).name(), requests);
    }
    long[] totals = totalScores(pod, requests, feasible, config);
    return ScheduleResult.placed(feasible.get(selectHost(totals, random)).name(), requests);
  }

  static boolean passes(Pod pod, PodRequests requests, NodeInfo node) {
    // FILTERS in order, called on their own classes: this runs for every node examined, and calls
    // through one interface call site for five classes would not be inlined.
    return NODE_UNSCHEDULABLE.passes(pod, requests, node)
        && NODE_NAME.passes(pod, requests, node)
        && TAINT_TOLERATION.passes(pod, requests, node)
        && NODE_AFFINITY.passes(pod, requests, node)
        && NODE_RESOURCES_FIT.passes(pod, requests, node);
  }

  static Rejection firstRejection(Pod pod, PodRequests requests, NodeInfo node) {
    for (Filter filter : FILTERS) {
      var rejection = filter.reject(pod, requests, node);
      if (rejection.isPresent()) {
        return rejection.get();
      }
    }
    return null;
  }

  static long[] totalScores(
      Pod pod, PodRequests requests, List<NodeInfo> feasible, SchedulerConfig config) {
    long[] totals = new long[feasible.size()];
    long[] scores = new long[feasible.size()];
    for (Map.Entry<String, Integer> plugin : config.scoreWeights().entrySet()) {
      Score score =
          plugin.getKey().equals(NodeResourcesFitPlugin.NAME)
              ? new NodeResourcesFitPlugin(config.scoringStrategy())
              : SCORES.get(plugin.getKey());
      for (int i = 0; i < scores.length; i++) {
        scores[i] = score.score(pod, requests, feasible.get(i));
      }
      score.normalize(scores);
      for (int i = 0; i < scores.length; i++) {
        totals[i] += scores[i] * plugin.getValue();
      }
    }
    return totals;
  }

  /** The index of a highest total, each of several equal ones equally likely. */
  private static int selectHost(long[] totals, SplittableRandom random) {
    int chosen = 0;
    int ties = 1;
    for (int i = 1; i < totals.length; i++) {
      if (totals[i] > totals[chosen]) {
        chosen = i;
        ties = 1;
      } else if (totals[i] == totals[chosen] && random.nextInt(++ties) == 0) {
        chosen = i;
      }
    }
    return chosen;
  }
}
