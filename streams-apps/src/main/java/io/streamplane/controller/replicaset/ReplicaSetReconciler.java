package io.streamplane.controller.replicaset;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodStatus;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetStatus;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.ControllerRefManager.OwnerKind;
import io.streamplane.controller.Intent;
import io.streamplane.controller.Owners;
import io.streamplane.controller.PodReadiness;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.schema.admission.ServiceAccountVolume;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KubeObjects;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * Kubernetes' ReplicaSet controller ({@code pkg/controller/replicaset}) as a pure function of one
 * ReplicaSet and the pods it controls: release pods that stopped matching its selector ({@link
 * ControllerRefManager#claim}), create or delete pods to reach {@code spec.replicas}, and write the
 * status. Adopting orphans that match is done where orphans are known, by the namespace's index
 * ({@code NamespaceControllers}).
 *
 * <p>Pod names are {@code <rs>-<5 chars>} where the suffix is derived from the ReplicaSet's uid and
 * a slot number: the first free slots are used, so deciding twice on the same view creates the same
 * names and a replay creates the same pods. Deletion order follows Kubernetes' ranking
 * (unscheduled, pending, not ready, newest first).
 *
 * <p>{@code manageReplicas} is false while creates or deletes sent earlier have not been observed
 * yet (the caller's expectations, as Kubernetes' {@code rsc.expectations.SatisfiedExpectations}):
 * then only releases and the status are decided, so a view that lags behind the controller's own
 * writes never makes it create or delete twice.
 *
 * <p>{@code status.replicas} counts the active pods and the pods created but not yet observed
 * ({@code podsBeingCreated}, and the creates of this decision), where Kubernetes counts only the
 * pods its cache holds. It is then, with {@code observedGeneration}, an upper bound of the pods
 * this ReplicaSet may have running, which the Deployment controller needs to keep a rollout within
 * maxSurge without seeing pods itself (docs/controllers.md).
 *
 * <p>Limits: creation is bounded by the burst of 500 per decision but not slowed down in batches;
 * minReadySeconds counts from the Ready condition's transition time; a pod name already taken by a
 * pod the ReplicaSet does not control is tried again each time its create expires.
 */
public final class ReplicaSetReconciler {

  static final int BURST = 500;
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private static final KubeJson KUBE_JSON = new KubeJson();

  /**
   * The kind of owner whose controller reference a ReplicaSet's pods get; a ReplicationController
   * run through this same reconciler names its own.
   */
  public static final OwnerKind REPLICA_SET = new OwnerKind("apps/v1", "ReplicaSet");

  private ReplicaSetReconciler() {}

  public static List<Intent> reconcile(
      ReplicaSet rs,
      List<Pod> controlledPods,
      boolean manageReplicas,
      int podsBeingCreated,
      Instant now) {
    return reconcile(rs, REPLICA_SET, controlledPods, manageReplicas, podsBeingCreated, now);
  }

  /** The decision for {@code rs}, whose pods are controlled by an owner of {@code kind}. */
  public static List<Intent> reconcile(
      ReplicaSet rs,
      OwnerKind kind,
      List<Pod> controlledPods,
      boolean manageReplicas,
      int podsBeingCreated,
      Instant now) {
    List<Intent> intents = new ArrayList<>();
    ObjectMeta meta = rs.getMetadata();
    if (meta == null || meta.getUid() == null || rs.getSpec() == null) {
      return intents;
    }
    boolean deleting = meta.getDeletionTimestamp() != null;
    ControllerRefManager.Claimed<Pod> claimed =
        ControllerRefManager.claim(meta, controlledPods, pod -> matches(rs, pod));
    List<Pod> owned = claimed.kept();
    intents.addAll(claimed.releases());
    List<Pod> active = owned.stream().filter(ReplicaSetReconciler::isActive).toList();
    int wanted = rs.getSpec().getReplicas() == null ? 1 : rs.getSpec().getReplicas();
    int creating = podsBeingCreated;
    if (!deleting && manageReplicas) {
      int diff = active.size() - wanted;
      if (diff < 0) {
        Set<String> taken = new HashSet<>();
        controlledPods.forEach(p -> taken.add(p.getMetadata().getName()));
        int toCreate = Math.min(-diff, BURST);
        for (int slot = 0; toCreate > 0; slot++) {
          String name = podName(meta.getName(), meta.getUid(), slot);
          if (taken.add(name)) {
            intents.add(Intent.create("pods", "", newPod(rs, kind, name)));
            creating++;
            toCreate--;
          }
        }
      } else if (diff > 0) {
        List<Pod> ranked = new ArrayList<>(active);
        ranked.sort(DELETION_ORDER);
        for (Pod pod : ranked.subList(0, Math.min(diff, BURST))) {
          intents.add(Intent.delete("pods", "", pod, null));
        }
      }
    }
    ReplicaSetStatus status = status(rs, owned, active, creating, now);
    if (!KubeObjects.same(status, rs.getStatus())) {
      ReplicaSet updated = KubeObjects.copy(rs);
      updated.setStatus(status);
      intents.add(Intent.updateStatus("replicasets", "apps", updated));
    }
    return intents;
  }

  /**
   * The next moment a pod of {@code rs} becomes available by the passing of time alone
   * (minReadySeconds after it became Ready), or null when no pod is waiting for that.
   */
  public static Instant nextAvailable(ReplicaSet rs, List<Pod> controlledPods, Instant now) {
    int minReady =
        rs.getSpec() == null || rs.getSpec().getMinReadySeconds() == null
            ? 0
            : rs.getSpec().getMinReadySeconds();
    if (minReady <= 0) {
      return null;
    }
    Instant next = null;
    for (Pod pod : controlledPods) {
      Instant since = PodReadiness.readySince(pod);
      if (since != null && isActive(pod)) {
        Instant at = since.plusSeconds(minReady);
        if (at.isAfter(now) && (next == null || at.isBefore(next))) {
          next = at;
        }
      }
    }
    return next;
  }

  public static boolean matches(ReplicaSet rs, Pod pod) {
    Map<String, String> labels =
        pod.getMetadata() == null || pod.getMetadata().getLabels() == null
            ? Map.of()
            : pod.getMetadata().getLabels();
    return rs.getSpec().getSelector() != null
        && LabelSelectors.matches(rs.getSpec().getSelector(), labels);
  }

  /** Pods that count towards replicas: not being deleted, not finished. */
  static boolean isActive(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return pod.getMetadata().getDeletionTimestamp() == null
        && !"Succeeded".equals(phase)
        && !"Failed".equals(phase);
  }

  private static ReplicaSetStatus status(
      ReplicaSet rs, List<Pod> owned, List<Pod> active, int creating, Instant now) {
    Map<String, String> templateLabels =
        rs.getSpec().getTemplate() == null
                || rs.getSpec().getTemplate().getMetadata() == null
                || rs.getSpec().getTemplate().getMetadata().getLabels() == null
            ? Map.of()
            : rs.getSpec().getTemplate().getMetadata().getLabels();
    int minReady =
        rs.getSpec().getMinReadySeconds() == null ? 0 : rs.getSpec().getMinReadySeconds();
    int fullyLabeled = 0;
    int ready = 0;
    int available = 0;
    for (Pod pod : active) {
      Map<String, String> labels =
          pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
      if (labels.entrySet().containsAll(templateLabels.entrySet())) {
        fullyLabeled++;
      }
      Instant since = PodReadiness.readySince(pod);
      if (since != null) {
        ready++;
        if (minReady == 0 || !since.plusSeconds(minReady).isAfter(now)) {
          available++;
        }
      }
    }
    ReplicaSetStatus.Builder status =
        rs.getStatus() == null
            ? ReplicaSetStatus.newBuilder()
            : ReplicaSetStatus.newBuilder(rs.getStatus());
    return status
        .setReplicas(active.size() + creating)
        .setFullyLabeledReplicas(fullyLabeled)
        .setReadyReplicas(ready)
        .setAvailableReplicas(available)
        .setTerminatingReplicas(terminating(owned))
        .setObservedGeneration(rs.getMetadata().getGeneration())
        .build();
  }

  /** Pods being deleted that have not finished; null when none, as Kubernetes omits it. */
  private static Integer terminating(List<Pod> owned) {
    int count = 0;
    for (Pod pod : owned) {
      String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
      if (pod.getMetadata().getDeletionTimestamp() != null
          && !"Succeeded".equals(phase)
          && !"Failed".equals(phase)) {
        count++;
      }
    }
    return count == 0 ? null : count;
  }

  private static Pod newPod(ReplicaSet rs, OwnerKind kind, String name) {
    ObjectMeta rsMeta = rs.getMetadata();
    var template = rs.getSpec().getTemplate();
    ObjectMeta templateMeta =
        template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    ObjectMeta meta =
        ObjectMeta.newBuilder()
            .setName(name)
            .setGenerateName(rsMeta.getName() + "-")
            .setNamespace(rsMeta.getNamespace())
            .setLabels(
                templateMeta.getLabels() == null ? null : new HashMap<>(templateMeta.getLabels()))
            .setAnnotations(
                templateMeta.getAnnotations() == null
                    ? null
                    : new HashMap<>(templateMeta.getAnnotations()))
            .setOwnerReferences(
                List.of(Owners.controllerRef(kind.apiVersion(), kind.kind(), rsMeta)))
            .build();
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(meta)
            .setSpec(KubeObjects.MODEL.deepCopy(template.getSpec().getSchema(), template.getSpec()))
            .setStatus(PodStatus.newBuilder().setPhase("Pending").build())
            .build();
    return withServiceAccount(pod);
  }

  /**
   * What the gateway's ServiceAccount admission plugin gives every pod, which a pod written here
   * does not pass (see docs/admission.md): the {@code default} ServiceAccount unless the template
   * names one, and the token volume and its mounts unless the template opts out. The new volume's
   * suffix is the pod name's own random one, so the function stays pure.
   */
  public static Pod withServiceAccount(Pod pod) {
    ObjectNode json = KUBE_JSON.toJson(pod);
    ObjectNode spec = json.with("spec");
    ServiceAccountVolume.defaultServiceAccount(spec);
    if (ServiceAccountVolume.shouldAutomount(spec, null)) {
      String name = pod.getMetadata().getName();
      ServiceAccountVolume.mount(spec, name.substring(Math.max(0, name.length() - 5)));
    }
    return KUBE_JSON.toAvro(json, Pod.class).record();
  }

  /** {@code <rs>-<5 chars>}, the suffix a function of the ReplicaSet's uid and the slot. */
  public static String podName(String rsName, String rsUid, int slot) {
    CRC32 crc = new CRC32();
    crc.update((rsUid + "#" + slot).getBytes(StandardCharsets.UTF_8));
    long hash = crc.getValue();
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      suffix.append(ALPHABET.charAt((int) (hash % ALPHABET.length())));
      hash /= ALPHABET.length();
    }
    return rsName + "-" + suffix;
  }

  /** Kubernetes' ActivePods ranking: the pods it deletes first come first. */
  static final Comparator<Pod> DELETION_ORDER =
      Comparator.<Pod>comparingInt(p -> assigned(p) ? 1 : 0)
          .thenComparingInt(ReplicaSetReconciler::phaseRank)
          .thenComparingInt(p -> PodReadiness.isReady(p) ? 1 : 0)
          .thenComparing(
              (Pod p) ->
                  p.getMetadata().getCreationTimestamp() == null
                      ? Instant.MAX
                      : p.getMetadata().getCreationTimestamp(),
              Comparator.reverseOrder())
          .thenComparing(p -> p.getMetadata().getName());

  private static boolean assigned(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getNodeName() != null;
  }

  private static int phaseRank(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Pending".equals(phase)) {
      return 0;
    }
    if ("Running".equals(phase)) {
      return 2;
    }
    return 1;
  }
}
