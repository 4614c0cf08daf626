package io.streamplane.controller.nodelifecycle;

import io.streamplane.api.Lease;
import io.streamplane.api.Node;
import io.streamplane.api.NodeCondition;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.Pod;
import io.streamplane.api.Taint;
import io.streamplane.controller.Intent;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Kubernetes' node lifecycle controller for one node, as a pure function of the node, its Lease,
 * the pods bound to it and the time:
 *
 * <ol>
 *   <li><b>Health</b>: a node heard from (Lease renewal or Ready heartbeat) longer than the grace
 *       period ago gets its Ready, MemoryPressure, DiskPressure and PIDPressure conditions set to
 *       Unknown ({@code NodeStatusUnknown}, "Kubelet stopped posting node status."), keeping their
 *       heartbeats;
 *   <li><b>Taints</b>: a node whose Ready condition is Unknown gets {@code
 *       node.kubernetes.io/unreachable} as NoExecute (timeAdded now) and NoSchedule; once Ready is
 *       True again, both are removed;
 *   <li><b>Eviction</b>: pods on a node with NoExecute taints are deleted when {@link
 *       TaintEviction} says so.
 * </ol>
 *
 * <p>Each decision writes the node at most once — the status and the taints carry the same
 * resourceVersion, so a second write would only conflict — and takes the next step when the events
 * show the first. Every node write is guarded by the resourceVersion it was computed from, every
 * eviction by the pod's uid: a decision taken twice, or from a stale view, changes nothing.
 *
 * <p>"Heard from" is never earlier than {@code watchingSince}, the moment the controller started
 * watching: as in Kubernetes, a controller that was down does not condemn every node at once on
 * restart, but gives each a full grace period.
 */
public final class NodeLifecycleReconciler {

  public static final List<String> KUBELET_CONDITIONS =
      List.of("Ready", "MemoryPressure", "DiskPressure", "PIDPressure");
  public static final String NO_SCHEDULE = "NoSchedule";

  private NodeLifecycleReconciler() {}

  /** What to write: the node (at most one intent) and the evictions (pod deletes and Events). */
  public record Decision(List<Intent> node, List<Intent> evictions) {}

  /**
   * @param lease the node's Lease in {@code kube-node-lease}, or null
   * @param pods the pods bound to the node (only consulted when it has NoExecute taints)
   * @param addedAt each NoExecute taint's start: its timeAdded, or when it was first seen
   */
  public static Decision reconcile(
      Node node,
      Lease lease,
      List<Pod> pods,
      Function<Taint, Instant> addedAt,
      Instant now,
      Instant watchingSince,
      NodeLifecycleConfig config) {
    List<Intent> nodeIntents = new ArrayList<>();
    Instant heardFrom = heardFrom(node, lease, watchingSince);
    if (now.isAfter(heardFrom.plus(config.nodeMonitorGracePeriod())) && !allUnknown(node)) {
      Node marked = Node.newBuilder(node).setStatus(unknownStatus(node, now)).build();
      nodeIntents.add(Intent.updateStatus("nodes", "", marked));
    } else {
      String ready = conditionStatus(node, "Ready");
      List<Taint> taints = taints(node);
      List<Taint> wanted = new ArrayList<>(taints);
      if ("Unknown".equals(ready)) {
        if (!hasTaint(taints, TaintEviction.UNREACHABLE, TaintEviction.NO_EXECUTE)) {
          wanted.add(
              Taint.newBuilder()
                  .setKey(TaintEviction.UNREACHABLE)
                  .setEffect(TaintEviction.NO_EXECUTE)
                  .setTimeAdded(now.truncatedTo(ChronoUnit.SECONDS))
                  .build());
        }
        if (!hasTaint(taints, TaintEviction.UNREACHABLE, NO_SCHEDULE)) {
          wanted.add(
              Taint.newBuilder().setKey(TaintEviction.UNREACHABLE).setEffect(NO_SCHEDULE).build());
        }
      } else if ("True".equals(ready)) {
        wanted.removeIf(t -> TaintEviction.UNREACHABLE.equals(t.getKey()));
      }
      if (wanted.size() != taints.size()) {
        NodeSpec spec =
            node.getSpec() == null
                ? NodeSpec.newBuilder().setTaints(wanted).build()
                : NodeSpec.newBuilder(node.getSpec()).setTaints(wanted).build();
        nodeIntents.add(Intent.update("nodes", "", Node.newBuilder(node).setSpec(spec).build()));
      }
    }
    return new Decision(nodeIntents, evictions(node, pods, addedAt, now, config));
  }

  /**
   * The next moment after {@code now} at which {@link #reconcile} can decide differently with no
   * other change than the time: when the node will have gone a grace period unheard from, or when
   * the next running pod's toleration of the node's NoExecute taints runs out; null if neither lies
   * ahead.
   */
  public static Instant recheckAt(
      Node node,
      Lease lease,
      List<Pod> pods,
      Function<Taint, Instant> addedAt,
      Instant now,
      Instant watchingSince,
      NodeLifecycleConfig config) {
    Instant next = null;
    // reconcile asks whether now is after heardFrom + grace: the first such millisecond.
    Instant unheard =
        heardFrom(node, lease, watchingSince).plus(config.nodeMonitorGracePeriod()).plusMillis(1);
    if (unheard.isAfter(now)) {
      next = unheard;
    }
    List<Taint> noExecute =
        taints(node).stream().filter(t -> TaintEviction.NO_EXECUTE.equals(t.getEffect())).toList();
    if (noExecute.isEmpty()) {
      return next;
    }
    for (Pod pod : pods) {
      if (!running(pod)) {
        continue;
      }
      Optional<Instant> at =
          TaintEviction.evictAt(pod, noExecute, addedAt, config.defaultTolerationSeconds());
      if (at.isPresent() && at.get().isAfter(now) && (next == null || at.get().isBefore(next))) {
        next = at.get();
      }
    }
    return next;
  }

  /** The latest sign of life: Lease renewal, Ready heartbeat, creation; never before watching. */
  static Instant heardFrom(Node node, Lease lease, Instant watchingSince) {
    Instant latest = watchingSince;
    if (lease != null && lease.getSpec() != null) {
      latest = later(latest, lease.getSpec().getRenewTime());
    }
    NodeCondition ready = condition(node, "Ready");
    if (ready != null) {
      latest = later(latest, ready.getLastHeartbeatTime());
    }
    if (node.getMetadata() != null) {
      latest = later(latest, node.getMetadata().getCreationTimestamp());
    }
    return latest;
  }

  /**
   * The node's status with the kubelet's conditions Unknown, as Kubernetes' tryUpdateNodeHealth
   * writes it; a condition the kubelet never posted is added as {@code NodeStatusNeverUpdated}.
   */
  static NodeStatus unknownStatus(Node node, Instant now) {
    Instant transition = now.truncatedTo(ChronoUnit.SECONDS);
    List<NodeCondition> current =
        node.getStatus() == null || node.getStatus().getConditions() == null
            ? List.of()
            : node.getStatus().getConditions();
    List<NodeCondition> conditions = new ArrayList<>();
    for (NodeCondition condition : current) {
      if (KUBELET_CONDITIONS.contains(condition.getType())
          && !"Unknown".equals(condition.getStatus())) {
        conditions.add(
            NodeCondition.newBuilder(condition)
                .setStatus("Unknown")
                .setReason("NodeStatusUnknown")
                .setMessage("Kubelet stopped posting node status.")
                .setLastTransitionTime(transition)
                .build());
      } else {
        conditions.add(NodeCondition.newBuilder(condition).build());
      }
    }
    for (String type : KUBELET_CONDITIONS) {
      if (condition(node, type) == null) {
        conditions.add(
            NodeCondition.newBuilder()
                .setType(type)
                .setStatus("Unknown")
                .setReason("NodeStatusNeverUpdated")
                .setMessage("Kubelet never posted node status.")
                .setLastHeartbeatTime(
                    node.getMetadata() == null ? null : node.getMetadata().getCreationTimestamp())
                .setLastTransitionTime(transition)
                .build());
      }
    }
    NodeStatus status =
        node.getStatus() == null
            ? NodeStatus.newBuilder().build()
            : NodeStatus.newBuilder(node.getStatus()).build();
    status.setConditions(conditions);
    return status;
  }

  private static List<Intent> evictions(
      Node node,
      List<Pod> pods,
      Function<Taint, Instant> addedAt,
      Instant now,
      NodeLifecycleConfig config) {
    List<Taint> noExecute =
        taints(node).stream().filter(t -> TaintEviction.NO_EXECUTE.equals(t.getEffect())).toList();
    List<Intent> intents = new ArrayList<>();
    if (noExecute.isEmpty()) {
      return intents;
    }
    for (Pod pod : pods) {
      if (!running(pod)) {
        continue;
      }
      Optional<Instant> at =
          TaintEviction.evictAt(pod, noExecute, addedAt, config.defaultTolerationSeconds());
      if (at.isPresent() && !at.get().isAfter(now)) {
        intents.add(Intent.delete("pods", "", pod, null));
        intents.add(Intent.create("events", "", TaintEviction.evictionEvent(pod, now)));
      }
    }
    return intents;
  }

  /** Not being deleted, not finished: a pod eviction still concerns. */
  static boolean running(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return pod.getMetadata() != null
        && pod.getMetadata().getDeletionTimestamp() == null
        && !"Succeeded".equals(phase)
        && !"Failed".equals(phase);
  }

  static List<Taint> taints(Node node) {
    return node.getSpec() == null || node.getSpec().getTaints() == null
        ? List.of()
        : node.getSpec().getTaints();
  }

  private static boolean hasTaint(List<Taint> taints, String key, String effect) {
    return taints.stream()
        .anyMatch(t -> key.equals(t.getKey()) && Objects.equals(effect, t.getEffect()));
  }

  private static boolean allUnknown(Node node) {
    for (String type : KUBELET_CONDITIONS) {
      if (!"Unknown".equals(conditionStatus(node, type))) {
        return false;
      }
    }
    return true;
  }

  static String conditionStatus(Node node, String type) {
    NodeCondition condition = condition(node, type);
    return condition == null ? null : condition.getStatus();
  }

  private static NodeCondition condition(Node node, String type) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return null;
    }
    for (NodeCondition condition : node.getStatus().getConditions()) {
      if (type.equals(condition.getType())) {
        return condition;
      }
    }
    return null;
  }

  private static Instant later(Instant a, Instant b) {
    return b != null && b.isAfter(a) ? b : a;
  }
}
