package io.streamplane.controller.statefulset;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.Pod;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.StatefulSet;
import io.streamplane.api.StatefulSetSpec;
import io.streamplane.api.StatefulSetStatus;
import io.streamplane.controller.ControllerEvents;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.Intent;
import io.streamplane.controller.history.ControllerHistory;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;

/**
 * Kubernetes' StatefulSet controller ({@code pkg/controller/statefulset}, {@code
 * stateful_set_control.go}'s {@code updateStatefulSet}) as a pure function of one StatefulSet, the
 * pods and ControllerRevisions it controls, and the time:
 *
 * <ul>
 *   <li>the revision of the current template exists with the highest number; the current revision
 *       is {@code status.currentRevision} while its ControllerRevision exists, the update revision
 *       the current template's;
 *   <li>each ordinal in {@code [start, start + replicas)} has a pod {@code <set>-<ordinal>} ({@link
 *       StatefulPods}), its claims {@code <template>-<set>-<ordinal>} created with it, made from
 *       the current revision below the partition of a RollingUpdate and from the update revision
 *       otherwise; a failed or succeeded pod is deleted and made again under the same name once it
 *       is gone;
 *   <li>pods of ordinals beyond the range are deleted, highest first, and with them their claims
 *       when {@code whenScaled} is Delete;
 *   <li>OrderedReady: ordinal i is created only once every lower ordinal is Running and Ready (and
 *       available for minReadySeconds), one pod at a time, and a pod is deleted only while every
 *       other pod is healthy and none is terminating; Parallel: all at once;
 *   <li>RollingUpdate: from the highest ordinal down to the partition, pods of another revision are
 *       deleted (and remade at the update revision) while fewer than {@code maxUnavailable} (1
 *       unless set) pods are unhealthy; OnDelete: nothing is replaced until a pod is deleted;
 *   <li>revisions beyond revisionHistoryLimit that are neither current nor update and that no pod
 *       runs are deleted;
 *   <li>the status ({@code computeReplicaStatus}, {@code completeRollingUpdate}), written only when
 *       it changes.
 * </ul>
 *
 * <p>{@code manage} is false while creates or deletes sent earlier are not yet observed
 * (expectations): then only the revision and the status are decided, so a view that lags behind the
 * controller's writes never creates or deletes twice, nor two ordinals at once.
 *
 * <p>Limits: a claim is created with its pod, not when only the claim is missing; a claim of a
 * scaled-down pod is deleted with the pod (its pvc-protection finalizer keeps it until the pod is
 * gone) where Kubernetes gives it the pod as owner; changing the retention policy does not change
 * the owners of existing claims; a pod whose hostname was changed by hand is not repaired.
 *
 * <p>Pods the set controls that its selector no longer selects, or whose names are not the set's,
 * are released first ({@link ControllerRefManager#claim}); orphans are adopted by the namespace's
 * index ({@code NamespaceControllers}).
 */
public final class StatefulSetReconciler {

  /** What a reconcile decided, and when only time can change it (minReadySeconds), or null. */
  public record Decision(List<Intent> intents, Instant requeueAt) {}

  private StatefulSetReconciler() {}

  public static Decision reconcile(
      StatefulSet set,
      List<Pod> controlledPods,
      List<ControllerRevision> revisions,
      boolean manage,
      Instant now) {
    List<Intent> intents = new ArrayList<>();
    StatefulSetSpec spec = set.getSpec();
    if (set.getMetadata().getDeletionTimestamp() != null
        || spec == null
        || spec.getTemplate() == null
        || spec.getTemplate().getSpec() == null) {
      return new Decision(intents, null);
    }
    ControllerRefManager.Claimed<Pod> claimed =
        ControllerRefManager.claim(set.getMetadata(), controlledPods, pod -> claims(set, pod));
    List<Pod> pods = claimed.kept();
    intents.addAll(claimed.releases());
    String updateHash = ControllerHistory.hash(spec.getTemplate());
    String updateRevision = ControllerHistory.revisionName(set.getMetadata().getName(), updateHash);
    intents.addAll(ControllerHistory.construct(StatefulPods.owner(set), updateHash, revisions));
    Revisions revs = Revisions.of(set, updateRevision, revisions);

    int start = StatefulPods.startOrdinal(set);
    int replicas = spec.getReplicas() == null ? 1 : spec.getReplicas();
    TreeMap<Integer, Pod> members = new TreeMap<>();
    List<Pod> condemned = new ArrayList<>();
    for (Pod pod : pods) {
      int ordinal = StatefulPods.ordinal(set, pod);
      if (ordinal < 0) {
        continue;
      }
      if (ordinal >= start && ordinal < start + replicas) {
        members.put(ordinal, pod);
      } else {
        condemned.add(pod);
      }
    }
    condemned.sort(Comparator.comparingInt((Pod p) -> StatefulPods.ordinal(set, p)).reversed());

    List<Pod> created = new ArrayList<>();
    if (manage) {
      new Plan(set, revs, start, replicas, members, condemned, now).run(intents, created);
      intents.addAll(cleanupHistory(set, revs, revisions, pods));
    }
    StatefulSetStatus status = status(set, revs, pods, created, now);
    if (!KubeObjects.same(status, set.getStatus())) {
      StatefulSet updated = KubeObjects.copy(set);
      updated.setStatus(status);
      intents.add(Intent.updateStatus("statefulsets", "apps", updated));
    }
    intents.addAll(events(set, intents, now));
    return new Decision(intents, StatefulPods.nextAvailable(set, pods, now));
  }

  /**
   * The Events the StatefulSet controller records ({@code stateful_pod_control.go}): {@code
   * SuccessfulCreate} and {@code SuccessfulDelete} of its pods and {@code SuccessfulCreate} of
   * their claims, in its words.
   */
  private static List<Intent> events(StatefulSet set, List<Intent> writes, Instant now) {
    String name = set.getMetadata().getName();
    ControllerEvents events =
        ControllerEvents.about(
            "StatefulSet", "apps/v1", set.getMetadata(), "statefulset-controller", now);
    List<Intent> recorded = new ArrayList<>();
    recorded.addAll(
        events.forWrites(
            writes,
            "persistentvolumeclaims",
            claim ->
                "create Claim "
                    + claim
                    + " Pod "
                    + claim.substring(claim.lastIndexOf(name + "-"))
                    + " in StatefulSet "
                    + name
                    + " success",
            claim -> null));
    recorded.addAll(
        events.forWrites(
            writes,
            "pods",
            pod -> "create Pod " + pod + " in StatefulSet " + name + " successful",
            pod -> "delete Pod " + pod + " in StatefulSet " + name + " successful"));
    return recorded;
  }

  /** The current and update revisions: their names and the templates they hold. */
  record Revisions(String current, PodTemplateSpec currentTemplate, String update) {

    static Revisions of(StatefulSet set, String update, List<ControllerRevision> revisions) {
      String named = set.getStatus() == null ? null : set.getStatus().getCurrentRevision();
      if (named != null && !named.equals(update)) {
        for (ControllerRevision revision : revisions) {
          if (revision.getMetadata().getName().equals(named)) {
            var template = StatefulPods.templateOf(revision);
            if (template != null) {
              return new Revisions(named, template, update);
            }
          }
        }
      }
      return new Revisions(update, set.getSpec().getTemplate(), update);
    }
  }

  /** The pod management and update steps of one reconcile, in Kubernetes' order. */
  private static final class Plan {
    private final StatefulSet set;
    private final Revisions revs;
    private final int start;
    private final int replicas;
    private final TreeMap<Integer, Pod> members;
    private final List<Pod> condemned;
    private final Instant now;
    private final boolean monotonic;

    Plan(
        StatefulSet set,
        Revisions revs,
        int start,
        int replicas,
        TreeMap<Integer, Pod> members,
        List<Pod> condemned,
        Instant now) {
      this.set = set;
      this.revs = revs;
      this.start = start;
      this.replicas = replicas;
      this.members = members;
      this.condemned = condemned;
      this.now = now;
      this.monotonic = !"Parallel".equals(set.getSpec().getPodManagementPolicy());
    }

    void run(List<Intent> intents, List<Pod> created) {
      for (int ordinal = start; ordinal < start + replicas; ordinal++) {
        Pod pod = members.get(ordinal);
        if (pod == null) {
          Pod made = newVersionedPod(ordinal);
          StatefulPods.claims(set, ordinal)
              .forEach(c -> intents.add(Intent.create("persistentvolumeclaims", "", c)));
          intents.add(Intent.create("pods", "", made));
          created.add(made);
          if (monotonic) {
            return;
          }
          continue;
        }
        if (StatefulPods.finished(pod)) {
          if (!StatefulPods.terminating(pod)) {
            intents.add(Intent.delete("pods", "", pod, null));
          }
          if (monotonic) {
            return;
          }
          continue;
        }
        if (monotonic && (StatefulPods.terminating(pod) || !healthy(pod))) {
          return;
        }
      }
      for (Pod pod : condemned) {
        if (StatefulPods.terminating(pod)) {
          if (monotonic) {
            return;
          }
          continue;
        }
        if (monotonic && firstUnhealthyOtherThan(pod)) {
          return;
        }
        intents.add(Intent.delete("pods", "", pod, null));
        if ("Delete".equals(StatefulPods.retention(set, false))) {
          StatefulPods.claimRefs(set, StatefulPods.ordinal(set, pod))
              .forEach(c -> intents.add(Intent.delete("persistentvolumeclaims", "", c, null)));
        }
        if (monotonic) {
          return;
        }
      }
      if (!"RollingUpdate".equals(StatefulPods.strategy(set)) || !created.isEmpty()) {
        return;
      }
      rollingUpdate(intents);
    }

    /**
     * {@code updateWithMaxUnavailable}: from the highest ordinal down to the partition, delete pods
     * of another revision while fewer than maxUnavailable pods are unhealthy.
     */
    private void rollingUpdate(List<Intent> intents) {
      int maxUnavailable = StatefulPods.maxUnavailable(set, replicas);
      int unavailable = 0;
      for (int ordinal = start; ordinal < start + replicas; ordinal++) {
        Pod pod = members.get(ordinal);
        if (pod == null || StatefulPods.terminating(pod) || !healthy(pod)) {
          unavailable++;
        }
      }
      int budget = maxUnavailable - unavailable;
      int updateMin = start + StatefulPods.partition(set);
      for (int ordinal = start + replicas - 1; ordinal >= updateMin && budget > 0; ordinal--) {
        Pod pod = members.get(ordinal);
        if (pod != null
            && !StatefulPods.terminating(pod)
            && !revs.update().equals(StatefulPods.revision(pod))) {
          intents.add(Intent.delete("pods", "", pod, null));
          if (healthy(pod)) {
            budget--;
          }
        }
      }
    }

    private boolean healthy(Pod pod) {
      return StatefulPods.available(set, pod, now);
    }

    private boolean firstUnhealthyOtherThan(Pod candidate) {
      List<Pod> all = new ArrayList<>(members.values());
      all.addAll(condemned);
      for (Pod pod : all) {
        if (pod != candidate && (StatefulPods.terminating(pod) || !healthy(pod))) {
          return true;
        }
      }
      return false;
    }

    /**
     * {@code newVersionedStatefulSetPod}: below the partition of a RollingUpdate the pod is made
     * from the current revision, otherwise from the update revision.
     */
    private Pod newVersionedPod(int ordinal) {
      boolean current =
          "RollingUpdate".equals(StatefulPods.strategy(set))
              && ordinal < start + StatefulPods.partition(set);
      return current
          ? StatefulPods.newPod(set, revs.currentTemplate(), ordinal, revs.current())
          : StatefulPods.newPod(set, set.getSpec().getTemplate(), ordinal, revs.update());
    }
  }

  /**
   * {@code truncateHistory}: the revisions beyond revisionHistoryLimit that are neither the current
   * nor the update revision and that no pod runs.
   */
  private static List<Intent> cleanupHistory(
      StatefulSet set, Revisions revs, List<ControllerRevision> revisions, List<Pod> pods) {
    Set<String> live = new HashSet<>();
    for (Pod pod : pods) {
      String revision = StatefulPods.revision(pod);
      if (revision != null) {
        live.add(revision);
      }
    }
    return ControllerHistory.cleanup(
        StatefulPods.owner(set),
        new HashSet<>(List.of(revs.current(), revs.update())),
        revisions,
        live);
  }

  /**
   * {@code computeReplicaStatus} over the pods and the pods created now, then {@code
   * completeRollingUpdate}.
   */
  private static StatefulSetStatus status(
      StatefulSet set, Revisions revs, List<Pod> pods, List<Pod> created, Instant now) {
    int replicas = 0;
    int ready = 0;
    int available = 0;
    int current = 0;
    int updated = 0;
    List<Pod> all = new ArrayList<>(pods);
    all.addAll(created);
    for (Pod pod : all) {
      replicas++;
      if (StatefulPods.runningAndReady(pod)) {
        ready++;
        if (StatefulPods.available(set, pod, now)) {
          available++;
        }
      }
      if (!StatefulPods.terminating(pod)) {
        String revision = StatefulPods.revision(pod);
        if (revs.current().equals(revision)) {
          current++;
        }
        if (revs.update().equals(revision)) {
          updated++;
        }
      }
    }
    String currentRevision = revs.current();
    if ("RollingUpdate".equals(StatefulPods.strategy(set))
        && updated == replicas
        && ready == replicas) {
      current = updated;
      currentRevision = revs.update();
    }
    StatefulSetStatus old = set.getStatus();
    StatefulSetStatus.Builder status =
        old == null ? StatefulSetStatus.newBuilder() : StatefulSetStatus.newBuilder(old);
    return status
        .setObservedGeneration(set.getMetadata().getGeneration())
        .setReplicas(replicas)
        .setReadyReplicas(ready)
        .setAvailableReplicas(available)
        .setCurrentReplicas(current)
        .setUpdatedReplicas(updated)
        .setCurrentRevision(currentRevision)
        .setUpdateRevision(revs.update())
        .setCollisionCount(
            old == null || old.getCollisionCount() == null ? 0 : old.getCollisionCount())
        .build();
  }

  /**
   * Whether the set claims a pod: its selector selects it and its name is one of the set's ({@code
   * isMemberOf}). What it adopts, and what it releases once it no longer does.
   */
  public static boolean claims(StatefulSet set, Pod pod) {
    return selects(set, pod) && StatefulPods.ordinal(set, pod) >= 0;
  }

  /** Whether the set's selector selects a pod or a ControllerRevision. */
  public static boolean selects(StatefulSet set, SpecificRecord object) {
    Map<String, String> labels = KubeObjects.meta(object).getLabels();
    return set.getSpec() != null
        && set.getSpec().getSelector() != null
        && LabelSelectors.matches(set.getSpec().getSelector(), labels == null ? Map.of() : labels);
  }
}
