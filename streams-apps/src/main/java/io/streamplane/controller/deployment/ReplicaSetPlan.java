package io.streamplane.controller.deployment;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetCondition;
import io.streamplane.api.ReplicaSetSpec;
import io.streamplane.api.ReplicaSetStatus;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One ReplicaSet of a Deployment while a reconcile runs: what was observed, and the spec.replicas,
 * annotations and minReadySeconds the reconcile has decided on so far. Kubernetes' controller sends
 * an update per step and continues with the object the API returns; a pure function can send only
 * one update per object (the second would carry a stale resourceVersion), so the steps change this
 * plan and the reconciler turns each changed plan into one update at the end.
 *
 * <p>The observed object is never changed; {@link #toReplicaSet()} builds a new one.
 */
final class ReplicaSetPlan {

  /** Oldest first, then by name: Kubernetes' {@code ReplicaSetsByCreationTimestamp}. */
  static final Comparator<ReplicaSetPlan> BY_CREATION =
      Comparator.comparing(ReplicaSetPlan::creationTimestamp).thenComparing(ReplicaSetPlan::name);

  private final ReplicaSet observed;
  private final boolean created;
  private int replicas;
  private final Map<String, String> annotations;
  private Integer minReadySeconds;

  private ReplicaSetPlan(ReplicaSet observed, boolean created) {
    this.observed = observed;
    this.created = created;
    ReplicaSetSpec spec = observed.getSpec();
    this.replicas = spec == null || spec.getReplicas() == null ? 0 : spec.getReplicas();
    this.minReadySeconds = spec == null ? null : spec.getMinReadySeconds();
    Map<String, String> current = KubeObjects.meta(observed).getAnnotations();
    this.annotations = current == null ? new TreeMap<>() : new TreeMap<>(current);
  }

  static ReplicaSetPlan observed(ReplicaSet replicaSet) {
    return new ReplicaSetPlan(replicaSet, false);
  }

  /** A ReplicaSet this reconcile creates; {@code replicaSet} is its full initial form. */
  static ReplicaSetPlan toCreate(ReplicaSet replicaSet) {
    return new ReplicaSetPlan(replicaSet, true);
  }

  ReplicaSet observed() {
    return observed;
  }

  boolean isCreated() {
    return created;
  }

  String name() {
    return KubeObjects.meta(observed).getName();
  }

  String uid() {
    return KubeObjects.meta(observed).getUid();
  }

  /** The creation time; a ReplicaSet still to be created counts as the newest. */
  Instant creationTimestamp() {
    if (created) {
      return Instant.MAX;
    }
    Instant timestamp = KubeObjects.meta(observed).getCreationTimestamp();
    return timestamp == null ? Instant.EPOCH : timestamp;
  }

  boolean isBeingDeleted() {
    return KubeObjects.meta(observed).getDeletionTimestamp() != null;
  }

  int replicas() {
    return replicas;
  }

  void setReplicas(int replicas) {
    this.replicas = replicas;
  }

  Map<String, String> annotations() {
    return annotations;
  }

  Integer minReadySeconds() {
    return minReadySeconds;
  }

  void setMinReadySeconds(Integer minReadySeconds) {
    this.minReadySeconds = minReadySeconds;
  }

  /** The revision annotation as a number; 0 when absent or unreadable, as Kubernetes. */
  long revision() {
    String value = annotations.get(DeploymentReconciler.REVISION);
    try {
      return value == null ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * The pods this ReplicaSet holds or is about to: its replicas as decided, or the pods its status
   * last reported, running or being created, when there are more (a scale-down not yet carried
   * out).
   */
  int podsCounted() {
    return Math.max(replicas, statusReplicas());
  }

  int statusReplicas() {
    ReplicaSetStatus status = observed.getStatus();
    return status == null || status.getReplicas() == null ? 0 : status.getReplicas();
  }

  int terminatingReplicas() {
    ReplicaSetStatus status = observed.getStatus();
    return status == null || status.getTerminatingReplicas() == null
        ? 0
        : status.getTerminatingReplicas();
  }

  int readyReplicas() {
    ReplicaSetStatus status = observed.getStatus();
    return status == null || status.getReadyReplicas() == null ? 0 : status.getReadyReplicas();
  }

  int availableReplicas() {
    ReplicaSetStatus status = observed.getStatus();
    return status == null || status.getAvailableReplicas() == null
        ? 0
        : status.getAvailableReplicas();
  }

  /**
   * The available replicas a rollout can count on: at most the spec's. Right after a scale-down the
   * status, written before it, still counts the pods being deleted; counting them would let the old
   * ReplicaSets be scaled down twice for the same pods and break maxUnavailable.
   */
  int countableAvailableReplicas() {
    return Math.min(replicas(), availableReplicas());
  }

  /** Whether the ReplicaSet controller has seen the current spec (generation unknown: yes). */
  boolean statusIsCurrent() {
    Long generation = KubeObjects.meta(observed).getGeneration();
    ReplicaSetStatus status = observed.getStatus();
    Long seen = status == null ? null : status.getObservedGeneration();
    return generation == null || (seen != null && seen >= generation);
  }

  List<ReplicaSetCondition> conditions() {
    ReplicaSetStatus status = observed.getStatus();
    return status == null || status.getConditions() == null ? List.of() : status.getConditions();
  }

  /** Whether the plan differs from what was observed (always true for a creation). */
  boolean isChanged() {
    if (created) {
      return true;
    }
    ReplicaSetSpec spec = observed.getSpec();
    int observedReplicas = spec == null || spec.getReplicas() == null ? 0 : spec.getReplicas();
    Integer observedMinReady = spec == null ? null : spec.getMinReadySeconds();
    Map<String, String> observedAnnotations = KubeObjects.meta(observed).getAnnotations();
    return replicas != observedReplicas
        || !Objects.equals(minReadySeconds, observedMinReady)
        || !annotations.equals(observedAnnotations == null ? Map.of() : observedAnnotations);
  }

  /** A new ReplicaSet: the observed one (with its resourceVersion) with the planned changes. */
  ReplicaSet toReplicaSet() {
    ReplicaSet copy = KubeObjects.copy(observed);
    ReplicaSetSpec spec = copy.getSpec() == null ? new ReplicaSetSpec() : copy.getSpec();
    spec.setReplicas(replicas);
    spec.setMinReadySeconds(minReadySeconds);
    copy.setSpec(spec);
    ObjectMeta meta = copy.getMetadata() == null ? new ObjectMeta() : copy.getMetadata();
    meta.setAnnotations(annotations.isEmpty() ? null : new TreeMap<>(annotations));
    copy.setMetadata(meta);
    return copy;
  }
}
