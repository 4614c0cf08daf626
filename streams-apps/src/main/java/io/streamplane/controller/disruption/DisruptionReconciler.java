package io.streamplane.controller.disruption;

import io.streamplane.api.Condition;
import io.streamplane.api.Deployment;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodDisruptionBudgetSpec;
import io.streamplane.api.PodDisruptionBudgetStatus;
import io.streamplane.api.ReplicaSet;
import io.streamplane.controller.Owners;
import io.streamplane.controller.PodReadiness;
import io.streamplane.kinds.selection.LabelSelectors;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The disruption controller's decision for one PodDisruptionBudget (kube-controller-manager's
 * {@code pkg/controller/disruption} {@code trySync}), a pure function of the budget, its
 * namespace's pods and ReplicaSets, and the time:
 *
 * <ul>
 *   <li>the pods are those its selector selects (a null selector selects none, an empty one all);
 *   <li>{@code expectedPods} and {@code desiredHealthy}: with an integer {@code minAvailable}, the
 *       number of selected pods and that integer; with a percentage {@code minAvailable} or any
 *       {@code maxUnavailable}, the scale of the pods' controllers (below), and the percentage of
 *       it rounded up, or the scale less {@code maxUnavailable} (at least 0);
 *   <li>{@code currentHealthy}: the selected pods that are Ready, not being deleted and not in
 *       {@code disruptedPods} for less than two minutes;
 *   <li>{@code disruptedPods}: the entries the eviction API wrote, kept for pods that still exist,
 *       are not being deleted, and were evicted less than two minutes ago ({@code
 *       DeletionTimeout});
 *   <li>{@code disruptionsAllowed}: {@code currentHealthy - desiredHealthy}, 0 when negative or
 *       when no pod is expected; the {@code DisruptionAllowed} condition True ({@code
 *       SufficientPods}) when it is positive, else False ({@code InsufficientPods}), its transition
 *       time moved only when its status changes; {@code observedGeneration} the budget's
 *       generation.
 * </ul>
 *
 * <p>A budget whose status already says all that is not written. The scale of the pods' controllers
 * is the sum of {@code spec.replicas} of each distinct ReplicaSet controlling a selected pod; a
 * selected pod of any other controller, or of none, counts as one (Kubernetes reads the scale of
 * Deployments, StatefulSets and any scalable controller, and refuses a budget whose pods have no
 * controller: here such pods simply count themselves). A Deployment's pods are thus counted by
 * their ReplicaSets' replicas, which differ from the Deployment's only during a rollout.
 */
public final class DisruptionReconciler {

  /** {@code DeletionTimeout}: how long an eviction's entry in disruptedPods is believed. */
  static final Duration DELETION_TIMEOUT = Duration.ofMinutes(2);

  private DisruptionReconciler() {}

  /** The budget's status update, or null when its status is already right. */
  public record Decision(PodDisruptionBudget updated, Instant recheckAt) {}

  public static Decision reconcile(
      PodDisruptionBudget budget,
      List<Pod> namespacePods,
      List<ReplicaSet> replicaSets,
      List<Deployment> deployments,
      Instant now) {
    PodDisruptionBudgetSpec spec = budget.getSpec();
    List<Pod> pods = selected(spec, namespacePods);
    PodDisruptionBudgetStatus old =
        budget.getStatus() == null ? new PodDisruptionBudgetStatus() : budget.getStatus();

    int expected;
    int desired;
    Object minAvailable = spec == null ? null : spec.getMinAvailable();
    Object maxUnavailable = spec == null ? null : spec.getMaxUnavailable();
    if (maxUnavailable != null) {
      expected = expectedScale(pods, replicaSets, deployments);
      desired = Math.max(0, expected - scaled(maxUnavailable, expected));
    } else if (minAvailable instanceof Integer count) {
      expected = pods.size();
      desired = count;
    } else if (minAvailable != null) {
      expected = expectedScale(pods, replicaSets, deployments);
      desired = scaled(minAvailable, expected);
    } else {
      expected = 0;
      desired = 0;
    }

    Map<String, Instant> disrupted = new TreeMap<>();
    Instant recheckAt = null;
    Map<String, Instant> recorded =
        old.getDisruptedPods() == null ? Map.of() : old.getDisruptedPods();
    for (Pod pod : pods) {
      String name = pod.getMetadata().getName();
      Instant at = recorded.get(name);
      if (at == null || pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      Instant expires = at.plus(DELETION_TIMEOUT);
      if (expires.isAfter(now)) {
        disrupted.put(name, at);
        recheckAt = recheckAt == null || expires.isBefore(recheckAt) ? expires : recheckAt;
      }
    }
    int healthy = 0;
    for (Pod pod : pods) {
      if (pod.getMetadata().getDeletionTimestamp() == null
          && !disrupted.containsKey(pod.getMetadata().getName())
          && PodReadiness.isReady(pod)) {
        healthy++;
      }
    }
    int allowed = healthy - desired;
    if (expected <= 0 || allowed <= 0) {
      allowed = 0;
    }
    long generation = Objects.requireNonNullElse(budget.getMetadata().getGeneration(), 0L);
    List<Condition> conditions = condition(old.getConditions(), allowed > 0, generation, now);
    PodDisruptionBudgetStatus status =
        PodDisruptionBudgetStatus.newBuilder()
            .setObservedGeneration(generation)
            .setDisruptedPods(disrupted.isEmpty() ? null : disrupted)
            .setDisruptionsAllowed(allowed)
            .setCurrentHealthy(healthy)
            .setDesiredHealthy(desired)
            .setExpectedPods(expected)
            .setConditions(conditions)
            .build();
    if (same(old, status)) {
      return new Decision(null, recheckAt);
    }
    PodDisruptionBudget updated = PodDisruptionBudget.newBuilder(budget).setStatus(status).build();
    return new Decision(updated, recheckAt);
  }

  private static boolean same(PodDisruptionBudgetStatus old, PodDisruptionBudgetStatus now) {
    Map<String, Instant> oldDisrupted =
        old.getDisruptedPods() == null ? Map.of() : old.getDisruptedPods();
    Map<String, Instant> newDisrupted =
        now.getDisruptedPods() == null ? Map.of() : now.getDisruptedPods();
    return Objects.equals(old.getObservedGeneration(), now.getObservedGeneration())
        && Objects.equals(old.getDisruptionsAllowed(), now.getDisruptionsAllowed())
        && Objects.equals(old.getCurrentHealthy(), now.getCurrentHealthy())
        && Objects.equals(old.getDesiredHealthy(), now.getDesiredHealthy())
        && Objects.equals(old.getExpectedPods(), now.getExpectedPods())
        && oldDisrupted.equals(newDisrupted)
        && Objects.equals(old.getConditions(), now.getConditions());
  }

  /**
   * The conditions with {@code DisruptionAllowed} set as {@code UpdateDisruptionAllowedCondition}.
   */
  private static List<Condition> condition(
      List<Condition> old, boolean allowed, long generation, Instant now) {
    List<Condition> conditions = new ArrayList<>();
    Condition previous = null;
    if (old != null) {
      for (Condition c : old) {
        if ("DisruptionAllowed".equals(c.getType())) {
          previous = c;
        } else {
          conditions.add(c);
        }
      }
    }
    String status = allowed ? "True" : "False";
    Instant transition =
        previous != null
                && status.equals(previous.getStatus())
                && previous.getLastTransitionTime() != null
            ? previous.getLastTransitionTime()
            : now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    Condition condition =
        Condition.newBuilder()
            .setType("DisruptionAllowed")
            .setStatus(status)
            .setObservedGeneration(generation)
            .setLastTransitionTime(transition)
            .setReason(allowed ? "SufficientPods" : "InsufficientPods")
            .setMessage("")
            .build();
    // Kept where it was, so that an unchanged condition compares equal.
    int at = old == null ? -1 : old.indexOf(previous);
    conditions.add(at < 0 || at > conditions.size() ? conditions.size() : at, condition);
    return conditions;
  }

  /** {@code GetScaledValueFromIntOrPercent} rounding up. */
  static int scaled(Object intOrPercent, int total) {
    if (intOrPercent instanceof Integer i) {
      return i;
    }
    String s = intOrPercent.toString();
    int percent = Integer.parseInt(s.substring(0, s.length() - 1));
    return (int) Math.ceil(percent * (double) total / 100);
  }

  /** The sum of the pods' controllers' scale; see the class comment. */
  static int expectedScale(
      List<Pod> pods, List<ReplicaSet> replicaSets, List<Deployment> deployments) {
    Map<String, ReplicaSet> replicaSetsByUid = new TreeMap<>();
    replicaSets.forEach(rs -> replicaSetsByUid.put(rs.getMetadata().getUid(), rs));
    Map<String, Deployment> deploymentsByUid = new TreeMap<>();
    deployments.forEach(d -> deploymentsByUid.put(d.getMetadata().getUid(), d));
    Set<String> counted = new HashSet<>();
    int scale = 0;
    for (Pod pod : pods) {
      OwnerReference controller = Owners.controllerOf(pod.getMetadata());
      ReplicaSet rs =
          controller != null && "ReplicaSet".equals(controller.getKind())
              ? replicaSetsByUid.get(controller.getUid())
              : null;
      if (rs == null) {
        scale++;
        continue;
      }
      OwnerReference owner = Owners.controllerOf(rs.getMetadata());
      Deployment deployment =
          owner != null && "Deployment".equals(owner.getKind())
              ? deploymentsByUid.get(owner.getUid())
              : null;
      if (deployment != null) {
        if (counted.add(deployment.getMetadata().getUid())) {
          Integer replicas =
              deployment.getSpec() == null ? null : deployment.getSpec().getReplicas();
          scale += replicas == null ? 1 : replicas;
        }
      } else if (counted.add(rs.getMetadata().getUid())) {
        Integer replicas = rs.getSpec() == null ? null : rs.getSpec().getReplicas();
        scale += replicas == null ? 1 : replicas;
      }
    }
    return scale;
  }

  static List<Pod> selected(PodDisruptionBudgetSpec spec, List<Pod> pods) {
    if (spec == null || spec.getSelector() == null) {
      return List.of();
    }
    List<Pod> selected = new ArrayList<>();
    for (Pod pod : pods) {
      Map<String, String> labels =
          pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
      if (LabelSelectors.matches(spec.getSelector(), labels)) {
        selected.add(pod);
      }
    }
    return selected;
  }
}
