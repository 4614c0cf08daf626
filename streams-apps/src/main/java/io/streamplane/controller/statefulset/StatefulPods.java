package io.streamplane.controller.statefulset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ControllerRevision;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.PersistentVolumeClaimVolumeSource;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.StatefulSet;
import io.streamplane.api.Volume;
import io.streamplane.controller.Owners;
import io.streamplane.controller.PodReadiness;
import io.streamplane.controller.history.ControllerHistory;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the StatefulSet controller knows of its pods ({@code stateful_set_utils.go}): a pod's
 * ordinal (its name is {@code <set>-<ordinal>}), the pod of an ordinal ({@code newStatefulSetPod}:
 * the template, a controller reference, the identity — the labels {@code
 * statefulset.kubernetes.io/pod-name} and {@code apps.kubernetes.io/pod-index}, hostname the pod's
 * name, subdomain the set's serviceName — and the {@code controller-revision-hash} label), the
 * template a revision holds, the claims of an ordinal ({@code getPersistentVolumeClaims}), and the
 * health predicates. Pure functions.
 */
public final class StatefulPods {

  public static final String POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
  public static final String POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";

  private static final KubeJson KUBE_JSON = new KubeJson();

  private StatefulPods() {}

  static ControllerHistory.Owner owner(StatefulSet set) {
    return new ControllerHistory.Owner(
        "apps/v1",
        "StatefulSet",
        set.getMetadata(),
        set.getSpec().getTemplate(),
        set.getSpec().getRevisionHistoryLimit());
  }

  public static String podName(StatefulSet set, int ordinal) {
    return set.getMetadata().getName() + "-" + ordinal;
  }

  /** {@code getOrdinal}: the ordinal in the pod's name, or -1 when it is not one of the set's. */
  static int ordinal(StatefulSet set, Pod pod) {
    String prefix = set.getMetadata().getName() + "-";
    String name = pod.getMetadata().getName();
    if (name == null || !name.startsWith(prefix)) {
      return -1;
    }
    String digits = name.substring(prefix.length());
    if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    return Integer.parseInt(digits);
  }

  static int startOrdinal(StatefulSet set) {
    var ordinals = set.getSpec().getOrdinals();
    return ordinals == null || ordinals.getStart() == null ? 0 : ordinals.getStart();
  }

  static String strategy(StatefulSet set) {
    var strategy = set.getSpec().getUpdateStrategy();
    return strategy == null || strategy.getType() == null ? "RollingUpdate" : strategy.getType();
  }

  static int partition(StatefulSet set) {
    var strategy = set.getSpec().getUpdateStrategy();
    if (strategy == null
        || strategy.getRollingUpdate() == null
        || strategy.getRollingUpdate().getPartition() == null) {
      return 0;
    }
    return strategy.getRollingUpdate().getPartition();
  }

  /** {@code getStatefulSetMaxUnavailable}: 1 unless set, a percentage of replicas rounded down. */
  static int maxUnavailable(StatefulSet set, int replicas) {
    var strategy = set.getSpec().getUpdateStrategy();
    Object value =
        strategy == null || strategy.getRollingUpdate() == null
            ? null
            : strategy.getRollingUpdate().getMaxUnavailable();
    int max;
    if (value == null) {
      max = 1;
    } else if (value instanceof Integer i) {
      max = i;
    } else {
      String s = value.toString();
      int percent = Integer.parseInt(s.substring(0, s.length() - 1));
      max = (int) Math.floor(percent * replicas / 100.0);
    }
    return Math.max(1, max);
  }

  /**
   * {@code getPodRevision}: the revision a pod runs, which its {@code controller-revision-hash}
   * label names ({@code <set>-<hash>}, the revision's name, as Kubernetes labels a StatefulSet's
   * pods).
   */
  static String revision(Pod pod) {
    return ControllerHistory.hashOf(pod.getMetadata());
  }

  static boolean terminating(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() != null;
  }

  static boolean finished(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Failed".equals(phase) || "Succeeded".equals(phase);
  }

  /** {@code isRunningAndReady}. */
  static boolean runningAndReady(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Running".equals(phase) && PodReadiness.isReady(pod);
  }

  /** {@code isRunningAndAvailable}: Running, Ready for minReadySeconds, not terminating. */
  static boolean available(StatefulSet set, Pod pod, Instant now) {
    if (terminating(pod) || !runningAndReady(pod)) {
      return false;
    }
    Integer minReady = set.getSpec().getMinReadySeconds();
    return minReady == null
        || minReady <= 0
        || !PodReadiness.readySince(pod).plusSeconds(minReady).isAfter(now);
  }

  /** The next moment a Ready pod becomes available by the passing of time, or null. */
  static Instant nextAvailable(StatefulSet set, List<Pod> pods, Instant now) {
    Integer minReady = set.getSpec().getMinReadySeconds();
    if (minReady == null || minReady <= 0) {
      return null;
    }
    Instant next = null;
    for (Pod pod : pods) {
      if (!terminating(pod) && runningAndReady(pod)) {
        Instant at = PodReadiness.readySince(pod).plusSeconds(minReady);
        if (at.isAfter(now) && (next == null || at.isBefore(next))) {
          next = at;
        }
      }
    }
    return next;
  }

  /** The template a revision holds ({@code ApplyRevision}), or null when it holds none. */
  static PodTemplateSpec templateOf(ControllerRevision revision) {
    if (revision.getData() == null) {
      return null;
    }
    JsonNode data = KubeJson.parseJson(revision.getData());
    if (!(data.path("spec").path("template") instanceof ObjectNode template)) {
      return null;
    }
    ObjectNode copy = template.deepCopy();
    copy.remove("$patch");
    return KUBE_JSON.toAvro(copy, PodTemplateSpec.class).record();
  }

  /**
   * {@code newStatefulSetPod} of {@code template} at {@code revision}: the template's labels and
   * annotations, the identity, {@code controller-revision-hash}, a controller reference to the set,
   * and the ServiceAccount defaults a pod written by a controller gets.
   */
  static Pod newPod(StatefulSet set, PodTemplateSpec template, int ordinal, String revision) {
    ObjectMeta setMeta = set.getMetadata();
    ObjectMeta templateMeta =
        template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    String name = podName(set, ordinal);
    Map<String, String> labels =
        templateMeta.getLabels() == null
            ? new HashMap<>()
            : new HashMap<>(templateMeta.getLabels());
    labels.put(POD_NAME_LABEL, name);
    labels.put(POD_INDEX_LABEL, Integer.toString(ordinal));
    labels.put(ControllerHistory.REVISION_HASH, revision);
    PodSpec spec = KubeObjects.MODEL.deepCopy(template.getSpec().getSchema(), template.getSpec());
    spec.setVolumes(withClaims(set, spec.getVolumes(), ordinal));
    spec.setHostname(name);
    String service = set.getSpec().getServiceName();
    spec.setSubdomain(service == null || service.isEmpty() ? null : service);
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName(name)
                    .setNamespace(setMeta.getNamespace())
                    .setLabels(labels)
                    .setAnnotations(
                        templateMeta.getAnnotations() == null
                            ? null
                            : new HashMap<>(templateMeta.getAnnotations()))
                    .setOwnerReferences(
                        List.of(Owners.controllerRef("apps/v1", "StatefulSet", setMeta)))
                    .build())
            .setSpec(spec)
            .setStatus(PodStatus.newBuilder().setPhase("Pending").build())
            .build();
    return ReplicaSetReconciler.withServiceAccount(pod);
  }

  /** {@code getPersistentVolumeClaimName}: {@code <template>-<set>-<ordinal>}. */
  static String claimName(StatefulSet set, String template, int ordinal) {
    return template + "-" + set.getMetadata().getName() + "-" + ordinal;
  }

  private static List<PersistentVolumeClaim> templates(StatefulSet set) {
    var templates = set.getSpec().getVolumeClaimTemplates();
    return templates == null ? List.of() : templates;
  }

  /**
   * {@code updateStorage}: a volume of each claim template's name, on the ordinal's claim, before
   * the template's other volumes (one of the same name is replaced).
   */
  private static List<Volume> withClaims(StatefulSet set, List<Volume> volumes, int ordinal) {
    List<PersistentVolumeClaim> templates = templates(set);
    if (templates.isEmpty()) {
      return volumes;
    }
    List<Volume> updated = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (PersistentVolumeClaim template : templates) {
      String name = template.getMetadata().getName();
      names.add(name);
      updated.add(
          Volume.newBuilder()
              .setName(name)
              .setPersistentVolumeClaim(
                  PersistentVolumeClaimVolumeSource.newBuilder()
                      .setClaimName(claimName(set, name, ordinal))
                      .build())
              .build());
    }
    if (volumes != null) {
      volumes.stream().filter(v -> !names.contains(v.getName())).forEach(updated::add);
    }
    return updated;
  }

  /**
   * {@code getPersistentVolumeClaims} and, at creation, {@code updateClaimOwnerRefForSetAndPod}:
   * the claims of an ordinal, made from the claim templates, labelled with the set's selector's
   * matchLabels, and owned by the set when {@code whenDeleted} is Delete (so the garbage collector
   * deletes them with it).
   */
  static List<PersistentVolumeClaim> claims(StatefulSet set, int ordinal) {
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    for (PersistentVolumeClaim template : templates(set)) {
      PersistentVolumeClaim claim = KubeObjects.copy(template);
      ObjectMeta meta = claim.getMetadata();
      meta.setName(claimName(set, template.getMetadata().getName(), ordinal));
      meta.setNamespace(set.getMetadata().getNamespace());
      Map<String, String> labels =
          meta.getLabels() == null ? new HashMap<>() : new HashMap<>(meta.getLabels());
      var selector = set.getSpec().getSelector();
      if (selector != null && selector.getMatchLabels() != null) {
        labels.putAll(selector.getMatchLabels());
      }
      meta.setLabels(labels.isEmpty() ? null : labels);
      meta.setOwnerReferences(
          "Delete".equals(retention(set, true))
              ? List.of(
                  OwnerReference.newBuilder()
                      .setApiVersion("apps/v1")
                      .setKind("StatefulSet")
                      .setName(set.getMetadata().getName())
                      .setUid(set.getMetadata().getUid())
                      .build())
              : null);
      claim.setApiVersion("v1");
      claim.setKind("PersistentVolumeClaim");
      claim.setStatus(null);
      claims.add(claim);
    }
    return claims;
  }

  /** The claims of an ordinal as names only, for their deletes. */
  static List<PersistentVolumeClaim> claimRefs(StatefulSet set, int ordinal) {
    List<PersistentVolumeClaim> refs = new ArrayList<>();
    for (PersistentVolumeClaim template : templates(set)) {
      refs.add(
          PersistentVolumeClaim.newBuilder()
              .setApiVersion("v1")
              .setKind("PersistentVolumeClaim")
              .setMetadata(
                  ObjectMeta.newBuilder()
                      .setName(claimName(set, template.getMetadata().getName(), ordinal))
                      .setNamespace(set.getMetadata().getNamespace())
                      .build())
              .build());
    }
    return refs;
  }

  /** persistentVolumeClaimRetentionPolicy's whenDeleted (or whenScaled); Retain unless set. */
  static String retention(StatefulSet set, boolean whenDeleted) {
    var policy = set.getSpec().getPersistentVolumeClaimRetentionPolicy();
    String value =
        policy == null ? null : whenDeleted ? policy.getWhenDeleted() : policy.getWhenScaled();
    return value == null ? "Retain" : value;
  }
}
