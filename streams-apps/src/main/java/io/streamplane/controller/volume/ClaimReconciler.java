package io.streamplane.controller.volume;

import io.streamplane.api.EphemeralVolumeSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.PersistentVolumeClaimTemplate;
import io.streamplane.api.Pod;
import io.streamplane.api.Volume;
import io.streamplane.controller.Intent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Two kube-controller-manager controllers over one namespace's claims and pods, as pure functions:
 *
 * <ul>
 *   <li>the <b>ephemeral volume</b> controller: each volume {@code ephemeral.volumeClaimTemplate}
 *       of a pod not being deleted has its claim {@code <pod>-<volume>}, created from the template
 *       (labels, annotations, spec) with the pod as its controlling owner, so the garbage collector
 *       deletes it with the pod. A claim of that name the pod does not control is left alone (the
 *       pod cannot start: Kubernetes says so in an Event);
 *   <li>the <b>pvc-protection</b> controller: a claim being deleted loses {@code
 *       kubernetes.io/pvc-protection} once no scheduled pod uses it (names it in a {@code
 *       persistentVolumeClaim} volume, or is its ephemeral volume's pod and not finished); a claim
 *       not being deleted that lacks the finalizer gets it back.
 * </ul>
 */
public final class ClaimReconciler {

  static final String PVC_PROTECTION = "kubernetes.io/pvc-protection";

  private ClaimReconciler() {}

  /** The writes for one namespace. */
  public static List<Intent> reconcile(List<PersistentVolumeClaim> claims, List<Pod> pods) {
    Map<String, PersistentVolumeClaim> byName = new HashMap<>();
    claims.forEach(c -> byName.put(c.getMetadata().getName(), c));
    List<Intent> intents = new ArrayList<>();
    for (Pod pod : pods) {
      intents.addAll(ephemeralClaims(pod, byName));
    }
    for (PersistentVolumeClaim claim : claims) {
      Intent protection = protection(claim, pods);
      if (protection != null) {
        intents.add(protection);
      }
    }
    return intents;
  }

  /** The claims a pod's ephemeral volumes still need. */
  static List<Intent> ephemeralClaims(Pod pod, Map<String, PersistentVolumeClaim> claims) {
    if (pod.getMetadata().getDeletionTimestamp() != null || pod.getSpec() == null) {
      return List.of();
    }
    List<Intent> intents = new ArrayList<>();
    for (Volume volume : orEmpty(pod.getSpec().getVolumes())) {
      EphemeralVolumeSource ephemeral = volume.getEphemeral();
      if (ephemeral == null || ephemeral.getVolumeClaimTemplate() == null) {
        continue;
      }
      String name = claimName(pod, volume);
      if (claims.containsKey(name)) {
        continue;
      }
      PersistentVolumeClaimTemplate template = ephemeral.getVolumeClaimTemplate();
      ObjectMeta templateMeta = template.getMetadata();
      PersistentVolumeClaim claim =
          PersistentVolumeClaim.newBuilder()
              .setApiVersion("v1")
              .setKind("PersistentVolumeClaim")
              .setMetadata(
                  ObjectMeta.newBuilder()
                      .setName(name)
                      .setNamespace(pod.getMetadata().getNamespace())
                      .setLabels(templateMeta == null ? null : templateMeta.getLabels())
                      .setAnnotations(templateMeta == null ? null : templateMeta.getAnnotations())
                      .setOwnerReferences(
                          List.of(
                              OwnerReference.newBuilder()
                                  .setApiVersion("v1")
                                  .setKind("Pod")
                                  .setName(pod.getMetadata().getName())
                                  .setUid(pod.getMetadata().getUid())
                                  .setController(true)
                                  .setBlockOwnerDeletion(true)
                                  .build()))
                      .build())
              .setSpec(template.getSpec())
              .build();
      intents.add(Intent.create("persistentvolumeclaims", "", claim));
    }
    return intents;
  }

  /** {@code ephemeral.VolumeClaimName}. */
  public static String claimName(Pod pod, Volume volume) {
    return pod.getMetadata().getName() + "-" + volume.getName();
  }

  /** The finalizer's removal from an unused claim being deleted, or its return; null otherwise. */
  static Intent protection(PersistentVolumeClaim claim, List<Pod> pods) {
    ObjectMeta meta = claim.getMetadata();
    List<String> finalizers = orEmpty(meta.getFinalizers());
    boolean has = finalizers.contains(PVC_PROTECTION);
    if (meta.getDeletionTimestamp() != null) {
      if (!has || pods.stream().anyMatch(pod -> uses(pod, claim))) {
        return null;
      }
      List<String> kept = new ArrayList<>(finalizers);
      kept.remove(PVC_PROTECTION);
      return Intent.update(
          "persistentvolumeclaims",
          "",
          PersistentVolumeClaim.newBuilder(claim)
              .setMetadata(ObjectMeta.newBuilder(meta).setFinalizers(kept).build())
              .build());
    }
    if (has) {
      return null;
    }
    List<String> added = new ArrayList<>(finalizers);
    added.add(PVC_PROTECTION);
    return Intent.update(
        "persistentvolumeclaims",
        "",
        PersistentVolumeClaim.newBuilder(claim)
            .setMetadata(ObjectMeta.newBuilder(meta).setFinalizers(added).build())
            .build());
  }

  /** {@code podUsesPVC}. */
  public static boolean uses(Pod pod, PersistentVolumeClaim claim) {
    if (pod.getSpec() == null
        || pod.getSpec().getNodeName() == null
        || pod.getSpec().getNodeName().isEmpty()) {
      return false;
    }
    String name = claim.getMetadata().getName();
    for (Volume volume : orEmpty(pod.getSpec().getVolumes())) {
      if (volume.getPersistentVolumeClaim() != null
          && name.equals(volume.getPersistentVolumeClaim().getClaimName())) {
        return true;
      }
      if (volume.getEphemeral() != null
          && !shutDown(pod)
          && name.equals(claimName(pod, volume))
          && controlledBy(claim, pod)) {
        return true;
      }
    }
    return false;
  }

  static boolean controlledBy(PersistentVolumeClaim claim, Pod pod) {
    return orEmpty(claim.getMetadata().getOwnerReferences()).stream()
        .anyMatch(
            o ->
                Boolean.TRUE.equals(o.getController())
                    && Objects.equals(o.getUid(), pod.getMetadata().getUid()));
  }

  private static boolean shutDown(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
