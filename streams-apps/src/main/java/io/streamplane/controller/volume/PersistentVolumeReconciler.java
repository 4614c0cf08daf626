package io.streamplane.controller.volume;

import static io.streamplane.controller.volume.VolumeAnnotations.BETA_STORAGE_PROVISIONER;
import static io.streamplane.controller.volume.VolumeAnnotations.BIND_COMPLETED;
import static io.streamplane.controller.volume.VolumeAnnotations.BOUND_BY_CONTROLLER;
import static io.streamplane.controller.volume.VolumeAnnotations.PROVISIONED_BY;
import static io.streamplane.controller.volume.VolumeAnnotations.SELECTED_NODE;
import static io.streamplane.controller.volume.VolumeAnnotations.STORAGE_PROVISIONER;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.PersistentVolumeClaimSpec;
import io.streamplane.api.PersistentVolumeClaimStatus;
import io.streamplane.api.PersistentVolumeSpec;
import io.streamplane.api.PersistentVolumeStatus;
import io.streamplane.api.StorageClass;
import io.streamplane.controller.Intent;
import io.streamplane.schema.objects.ObjectEvents;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * kube-controller-manager's PersistentVolume controller ({@code pkg/controller/volume/
 * persistentvolume}: {@code syncClaim}, {@code syncVolume}, {@code bind}, {@code reclaimVolume})
 * and its pv-protection controller, as a pure function of every claim, volume and StorageClass.
 *
 * <p>Claims (oldest first):
 *
 * <ul>
 *   <li>not yet bound ({@code pv.kubernetes.io/bind-completed} absent), no volumeName: the best
 *       volume ({@link VolumeMatching}) is bound — the volume's claimRef and {@code
 *       pv.kubernetes.io/bound-by-controller}, its phase Bound, the claim's volumeName, {@code
 *       bound-by-controller} and {@code bind-completed}, its phase Bound with the volume's access
 *       modes and capacity, in that order, one write per object at a time. No volume: a claim
 *       without class gets the default StorageClass when one appears; a WaitForFirstConsumer claim
 *       without {@code volume.kubernetes.io/selected-node} waits for the scheduler; a claim of a
 *       class whose provisioner is external gets {@code volume.kubernetes.io/storage-provisioner}
 *       (and its beta form) naming it, and waits for the provisioner to create a volume whose
 *       claimRef names the claim; it stays Pending;
 *   <li>not yet bound, with a volumeName: bound to that volume if it is free or already names the
 *       claim; Pending otherwise;
 *   <li>bound: Lost when its volume is gone or bound to another claim; re-bound when its volume
 *       lost its claimRef.
 * </ul>
 *
 * <p>Volumes: no claimRef, or one without uid: Available; the claim gone (or another of the same
 * name): Released, then reclaimed — Retain keeps it Released; Delete of a volume provisioned by an
 * external provisioner ({@code pv.kubernetes.io/provisioned-by} not under {@code kubernetes.io/})
 * is that provisioner's to do; Delete of any other, and Recycle, fail as in Kubernetes (no in-tree
 * deleter or recycler here): Failed with Kubernetes' message. A claim bound to another volume: a
 * volume the controller bound is unbound (Available), one a user pre-bound loses the claim's uid. A
 * volume being deleted loses {@code kubernetes.io/pv-protection} once it is not Bound.
 *
 * <p>Every write carries the resourceVersion it was computed from; a write decided for an object
 * already written in this round waits for the next. Events ({@link #events}): WaitForFirstConsumer
 * and ExternalProvisioning, once per claim. Limits: no other Events (ProvisioningFailed, ClaimLost,
 * ...); no in-tree provisioning; the volume's {@code lastPhaseTransitionTime} is written here with
 * the phase.
 */
public final class PersistentVolumeReconciler {

  static final String PV_PROTECTION = "kubernetes.io/pv-protection";

  private final Map<String, PersistentVolume> volumes = new LinkedHashMap<>();
  private final Map<String, PersistentVolumeClaim> claims = new LinkedHashMap<>();
  private final Map<String, StorageClass> classes = new HashMap<>();
  private final Set<String> written = new HashSet<>();
  private final List<Intent> intents = new ArrayList<>();
  private final Instant now;

  private PersistentVolumeReconciler(
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<StorageClass> classes,
      Instant now) {
    this.now = now.truncatedTo(ChronoUnit.SECONDS);
    volumes.stream()
        .sorted(Comparator.comparing(v -> v.getMetadata().getName()))
        .forEach(v -> this.volumes.put(v.getMetadata().getName(), v));
    claims.stream()
        .sorted(
            Comparator.comparing(
                    (PersistentVolumeClaim c) ->
                        c.getMetadata().getCreationTimestamp() == null
                            ? Instant.EPOCH
                            : c.getMetadata().getCreationTimestamp())
                .thenComparing(c -> c.getMetadata().getNamespace())
                .thenComparing(c -> c.getMetadata().getName()))
        .forEach(c -> this.claims.put(claimKey(c.getMetadata()), c));
    classes.forEach(c -> this.classes.put(c.getMetadata().getName(), c));
  }

  /** The writes that bring every claim and volume to where Kubernetes' controller would. */
  public static List<Intent> reconcile(
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<StorageClass> classes,
      Instant now) {
    PersistentVolumeReconciler r = new PersistentVolumeReconciler(claims, volumes, classes, now);
    for (String key : List.copyOf(r.claims.keySet())) {
      PersistentVolumeClaim claim = r.claims.get(key);
      if (claim.getMetadata().getDeletionTimestamp() == null) {
        r.syncClaim(claim);
      }
    }
    for (String name : List.copyOf(r.volumes.keySet())) {
      r.syncVolume(r.volumes.get(name));
    }
    return r.intents;
  }

  static final String COMPONENT = "persistentvolume-controller";

  /**
   * The PersistentVolume controller's events about claims that wait, once per claim and reason
   * (those in {@code written}, {@code namespace/name}, are not written again): {@code
   * WaitForFirstConsumer} for a Pending claim of a WaitForFirstConsumer class whose node is not
   * selected yet, {@code ExternalProvisioning} for a Pending claim handed to an external
   * provisioner that has no volume yet.
   */
  public static List<Intent> events(
      List<PersistentVolumeClaim> claims,
      List<StorageClass> classes,
      Set<String> written,
      Instant now) {
    Map<String, StorageClass> byName = new HashMap<>();
    classes.forEach(c -> byName.put(c.getMetadata().getName(), c));
    List<Intent> intents = new ArrayList<>();
    for (PersistentVolumeClaim claim : claims) {
      ObjectMeta meta = claim.getMetadata();
      String phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
      String volumeName = claim.getSpec().getVolumeName();
      if (meta.getDeletionTimestamp() != null
          || !"Pending".equals(phase)
          || (volumeName != null && !volumeName.isEmpty())) {
        continue;
      }
      StorageClass storageClass = byName.get(VolumeAnnotations.claimClass(claim));
      String provisioner = VolumeAnnotations.get(meta, STORAGE_PROVISIONER);
      if (provisioner != null && !provisioner.isEmpty()) {
        claimEvent(
            intents,
            written,
            claim,
            "ExternalProvisioning",
            "Waiting for a volume to be created either by the external provisioner '"
                + provisioner
                + "' or manually by the system administrator. If volume creation is delayed,"
                + " please verify that the provisioner is running and correctly registered.",
            now);
      } else if (storageClass != null
          && "WaitForFirstConsumer".equals(storageClass.getVolumeBindingMode())
          && !VolumeAnnotations.has(meta, SELECTED_NODE)) {
        claimEvent(
            intents,
            written,
            claim,
            "WaitForFirstConsumer",
            "waiting for first consumer to be created before binding",
            now);
      }
    }
    return intents;
  }

  private static void claimEvent(
      List<Intent> intents,
      Set<String> written,
      PersistentVolumeClaim claim,
      String reason,
      String message,
      Instant now) {
    ObjectMeta meta = claim.getMetadata();
    Event event =
        ObjectEvents.about(
            "PersistentVolumeClaim",
            "v1",
            meta,
            EventSource.newBuilder().setComponent(COMPONENT).build(),
            "Normal",
            reason,
            message,
            now,
            meta.getUid() + "/" + reason);
    if (!written.contains(meta.getNamespace() + "/" + event.getMetadata().getName())) {
      intents.add(Intent.create("events", "", event));
    }
  }

  private static String claimKey(ObjectMeta meta) {
    return meta.getNamespace() + "/" + meta.getName();
  }

  // --- claims ---

  private void syncClaim(PersistentVolumeClaim claim) {
    if (!VolumeAnnotations.has(claim.getMetadata(), BIND_COMPLETED)) {
      syncUnboundClaim(claim);
    } else {
      syncBoundClaim(claim);
    }
  }

  private void syncUnboundClaim(PersistentVolumeClaim claim) {
    String volumeName = claim.getSpec().getVolumeName();
    if (volumeName == null || volumeName.isEmpty()) {
      StorageClass storageClass = classes.get(VolumeAnnotations.claimClass(claim));
      boolean delayBinding =
          storageClass != null
              && "WaitForFirstConsumer".equals(storageClass.getVolumeBindingMode());
      PersistentVolume volume =
          VolumeMatching.findBestMatch(
              claim, List.copyOf(volumes.values()), null, Set.of(), delayBinding);
      if (volume != null) {
        bind(volume, claim);
        return;
      }
      if (assignDefaultClass(claim)) {
        return;
      }
      String className = VolumeAnnotations.claimClass(claim);
      boolean waitsForConsumer =
          delayBinding && !VolumeAnnotations.has(claim.getMetadata(), SELECTED_NODE);
      if (!waitsForConsumer && !className.isEmpty()) {
        provision(claim, storageClass);
        return;
      }
      updateClaimStatus(claim, "Pending", null);
      return;
    }
    PersistentVolume volume = volumes.get(volumeName);
    if (volume == null) {
      updateClaimStatus(claim, "Pending", null);
      return;
    }
    if (volume.getSpec().getClaimRef() == null || VolumeMatching.boundToClaim(volume, claim)) {
      if (satisfies(volume, claim)) {
        bind(volume, claim);
      } else {
        updateClaimStatus(claim, "Pending", null);
      }
      return;
    }
    // The volume is bound to another claim.
    updateClaimStatus(claim, "Pending", null);
  }

  /** {@code checkVolumeSatisfyClaim}: size, class, volume mode (access modes are not checked). */
  private static boolean satisfies(PersistentVolume volume, PersistentVolumeClaim claim) {
    return VolumeAnnotations.capacity(volume).compareTo(VolumeAnnotations.requested(claim)) >= 0
        && VolumeAnnotations.volumeClass(volume).equals(VolumeAnnotations.claimClass(claim))
        && VolumeAnnotations.mode(volume.getSpec().getVolumeMode())
            .equals(VolumeAnnotations.mode(claim.getSpec().getVolumeMode()));
  }

  /** {@code assignDefaultStorageClass}: a claim with no class at all gets the default one. */
  private boolean assignDefaultClass(PersistentVolumeClaim claim) {
    if (claim.getSpec().getStorageClassName() != null
        || VolumeAnnotations.has(claim.getMetadata(), VolumeAnnotations.BETA_STORAGE_CLASS)) {
      return false;
    }
    StorageClass def =
        classes.values().stream()
            .filter(VolumeAnnotations::isDefault)
            .min(
                Comparator.comparing(
                        (StorageClass c) ->
                            c.getMetadata().getCreationTimestamp() == null
                                ? Instant.EPOCH
                                : c.getMetadata().getCreationTimestamp(),
                        Comparator.reverseOrder())
                    .thenComparing(c -> c.getMetadata().getName()))
            .orElse(null);
    if (def == null) {
      return false;
    }
    PersistentVolumeClaim updated =
        PersistentVolumeClaim.newBuilder(claim)
            .setSpec(
                PersistentVolumeClaimSpec.newBuilder(claim.getSpec())
                    .setStorageClassName(def.getMetadata().getName())
                    .build())
            .build();
    updateClaim(updated);
    return true;
  }

  /**
   * {@code provisionClaim} for an external provisioner: the claim names it in {@code
   * volume.kubernetes.io/storage-provisioner}. A class that does not exist or whose provisioner is
   * in-tree ({@code kubernetes.io/...}, among them {@code kubernetes.io/no-provisioner}) gets
   * nothing: Kubernetes reports ProvisioningFailed.
   */
  private void provision(PersistentVolumeClaim claim, StorageClass storageClass) {
    if (storageClass == null
        || storageClass.getProvisioner() == null
        || storageClass.getProvisioner().startsWith("kubernetes.io/")) {
      updateClaimStatus(claim, "Pending", null);
      return;
    }
    String provisioner = storageClass.getProvisioner();
    if (provisioner.equals(VolumeAnnotations.get(claim.getMetadata(), STORAGE_PROVISIONER))) {
      updateClaimStatus(claim, "Pending", null);
      return;
    }
    Map<String, String> annotations = annotations(claim.getMetadata());
    annotations.put(BETA_STORAGE_PROVISIONER, provisioner);
    annotations.put(STORAGE_PROVISIONER, provisioner);
    updateClaim(
        PersistentVolumeClaim.newBuilder(claim)
            .setMetadata(
                ObjectMeta.newBuilder(claim.getMetadata()).setAnnotations(annotations).build())
            .build());
  }

  private void syncBoundClaim(PersistentVolumeClaim claim) {
    String volumeName = claim.getSpec().getVolumeName();
    if (volumeName == null || volumeName.isEmpty()) {
      updateClaimStatus(claim, "Lost", null);
      return;
    }
    PersistentVolume volume = volumes.get(volumeName);
    if (volume == null) {
      updateClaimStatus(claim, "Lost", null);
      return;
    }
    ObjectReference ref = volume.getSpec().getClaimRef();
    if (ref == null
        || Objects.equals(ref.getUid(), claim.getMetadata().getUid())
        || (VolumeMatching.boundToClaim(volume, claim))) {
      bind(volume, claim);
      return;
    }
    updateClaimStatus(claim, "Lost", null);
  }

  /**
   * {@code bind}: the volume's claimRef, its phase Bound, the claim's volumeName and annotations,
   * its phase Bound — each step only when the ones before it are already written.
   */
  private void bind(PersistentVolume volume, PersistentVolumeClaim claim) {
    PersistentVolume bound = boundVolume(volume, claim);
    if (bound != null) {
      updateVolume(bound);
      return;
    }
    if (!"Bound".equals(phase(volume))) {
      updateVolumePhase(volume, "Bound", null);
      return;
    }
    PersistentVolumeClaim boundClaim = boundClaim(claim, volume);
    if (boundClaim != null) {
      updateClaim(boundClaim);
      return;
    }
    updateClaimStatus(claim, "Bound", volume);
  }

  /** {@code getBindVolumeToClaim}: the volume naming the claim, or null when it already does. */
  private static PersistentVolume boundVolume(
      PersistentVolume volume, PersistentVolumeClaim claim) {
    ObjectMeta meta = claim.getMetadata();
    ObjectReference ref = volume.getSpec().getClaimRef();
    boolean setByController = !VolumeMatching.boundToClaim(volume, claim);
    boolean dirty = false;
    PersistentVolumeSpec.Builder spec = PersistentVolumeSpec.newBuilder(volume.getSpec());
    if (ref == null
        || !Objects.equals(ref.getName(), meta.getName())
        || !Objects.equals(ref.getNamespace(), meta.getNamespace())
        || !Objects.equals(ref.getUid(), meta.getUid())) {
      spec.setClaimRef(
          ObjectReference.newBuilder()
              .setKind("PersistentVolumeClaim")
              .setNamespace(meta.getNamespace())
              .setName(meta.getName())
              .setUid(meta.getUid())
              .setApiVersion("v1")
              .setResourceVersion(meta.getResourceVersion())
              .build());
      dirty = true;
    }
    Map<String, String> annotations = annotations(volume.getMetadata());
    if (setByController && !annotations.containsKey(BOUND_BY_CONTROLLER)) {
      annotations.put(BOUND_BY_CONTROLLER, "yes");
      dirty = true;
    }
    if (!dirty) {
      return null;
    }
    return PersistentVolume.newBuilder(volume)
        .setMetadata(
            ObjectMeta.newBuilder(volume.getMetadata()).setAnnotations(annotations).build())
        .setSpec(spec.build())
        .build();
  }

  /** {@code getBindClaimToVolume}: the claim naming the volume, or null when it already does. */
  private static PersistentVolumeClaim boundClaim(
      PersistentVolumeClaim claim, PersistentVolume volume) {
    boolean dirty = false;
    Map<String, String> annotations = annotations(claim.getMetadata());
    PersistentVolumeClaimSpec.Builder spec = PersistentVolumeClaimSpec.newBuilder(claim.getSpec());
    String name = volume.getMetadata().getName();
    if (!name.equals(claim.getSpec().getVolumeName())) {
      spec.setVolumeName(name);
      annotations.putIfAbsent(BOUND_BY_CONTROLLER, "yes");
      dirty = true;
    }
    if (!annotations.containsKey(BIND_COMPLETED)) {
      annotations.put(BIND_COMPLETED, "yes");
      dirty = true;
    }
    if (!dirty) {
      return null;
    }
    return PersistentVolumeClaim.newBuilder(claim)
        .setMetadata(ObjectMeta.newBuilder(claim.getMetadata()).setAnnotations(annotations).build())
        .setSpec(spec.build())
        .build();
  }

  // --- volumes ---

  private void syncVolume(PersistentVolume volume) {
    protect(volume);
    ObjectReference ref = volume.getSpec().getClaimRef();
    if (ref == null) {
      updateVolumePhase(volume, "Available", null);
      return;
    }
    if (ref.getUid() == null || ref.getUid().isEmpty()) {
      // Pre-bound by a user to a claim that may not exist yet.
      updateVolumePhase(volume, "Available", null);
      return;
    }
    PersistentVolumeClaim claim = claims.get(ref.getNamespace() + "/" + ref.getName());
    if (claim != null && !Objects.equals(claim.getMetadata().getUid(), ref.getUid())) {
      claim = null;
    }
    if (claim == null) {
      String phase = phase(volume);
      if (!"Released".equals(phase) && !"Failed".equals(phase)) {
        updateVolumePhase(volume, "Released", null);
        return;
      }
      reclaim(volume);
      return;
    }
    String volumeName = claim.getSpec().getVolumeName();
    if (volumeName == null || volumeName.isEmpty()) {
      // The claim's sync binds it.
      return;
    }
    if (volumeName.equals(volume.getMetadata().getName())) {
      updateVolumePhase(volume, "Bound", null);
      return;
    }
    // The claim is bound to another volume.
    if (VolumeAnnotations.has(volume.getMetadata(), PROVISIONED_BY)
        && "Delete".equals(volume.getSpec().getPersistentVolumeReclaimPolicy())) {
      if (!"Released".equals(phase(volume)) && !"Failed".equals(phase(volume))) {
        updateVolumePhase(volume, "Released", null);
      } else {
        reclaim(volume);
      }
      return;
    }
    PersistentVolumeSpec.Builder spec = PersistentVolumeSpec.newBuilder(volume.getSpec());
    Map<String, String> annotations = annotations(volume.getMetadata());
    if (annotations.remove(BOUND_BY_CONTROLLER) != null) {
      spec.setClaimRef(null);
    } else {
      spec.setClaimRef(ObjectReference.newBuilder(ref).setUid(null).build());
    }
    updateVolume(
        PersistentVolume.newBuilder(volume)
            .setMetadata(
                ObjectMeta.newBuilder(volume.getMetadata()).setAnnotations(annotations).build())
            .setSpec(spec.build())
            .build());
  }

  /**
   * {@code reclaimVolume}: Retain keeps a Released volume; an externally provisioned volume is its
   * provisioner's to delete; nothing here can delete or recycle the others.
   */
  private void reclaim(PersistentVolume volume) {
    String policy = volume.getSpec().getPersistentVolumeReclaimPolicy();
    if (policy == null || policy.equals("Retain") || "Failed".equals(phase(volume))) {
      return;
    }
    if (policy.equals("Recycle")) {
      updateVolumePhase(volume, "Failed", "No recycler plugin found for the volume!");
      return;
    }
    String provisionedBy = VolumeAnnotations.get(volume.getMetadata(), PROVISIONED_BY);
    if (provisionedBy != null
        && !provisionedBy.isEmpty()
        && !provisionedBy.startsWith("kubernetes.io/")) {
      return;
    }
    updateVolumePhase(
        volume,
        "Failed",
        "error getting deleter volume plugin for volume \""
            + volume.getMetadata().getName()
            + "\": no deletable volume plugin matched");
  }

  /**
   * The pv-protection controller: a volume being deleted is let go once it is not Bound; one not
   * being deleted that lacks the finalizer gets it back.
   */
  private void protect(PersistentVolume volume) {
    List<String> finalizers =
        volume.getMetadata().getFinalizers() == null
            ? List.of()
            : volume.getMetadata().getFinalizers();
    boolean has = finalizers.contains(PV_PROTECTION);
    List<String> kept = new ArrayList<>(finalizers);
    if (volume.getMetadata().getDeletionTimestamp() == null) {
      if (has) {
        return;
      }
      kept.add(PV_PROTECTION);
    } else {
      if (!has || "Bound".equals(phase(volume))) {
        return;
      }
      kept.remove(PV_PROTECTION);
    }
    updateVolume(
        PersistentVolume.newBuilder(volume)
            .setMetadata(ObjectMeta.newBuilder(volume.getMetadata()).setFinalizers(kept).build())
            .build());
  }

  // --- writes ---

  private static String phase(PersistentVolume volume) {
    return volume.getStatus() == null ? null : volume.getStatus().getPhase();
  }

  private static Map<String, String> annotations(ObjectMeta meta) {
    return meta.getAnnotations() == null ? new HashMap<>() : new HashMap<>(meta.getAnnotations());
  }

  private boolean first(String key) {
    return written.add(key);
  }

  private void updateVolume(PersistentVolume volume) {
    if (first("pv/" + volume.getMetadata().getName())) {
      intents.add(Intent.update("persistentvolumes", "", volume));
      volumes.put(volume.getMetadata().getName(), volume);
    }
  }

  /** {@code updateVolumePhase}: the phase and its message, and when it changed. */
  private void updateVolumePhase(PersistentVolume volume, String phase, String message) {
    if (phase.equals(phase(volume))) {
      return;
    }
    if (!first("pv/" + volume.getMetadata().getName())) {
      return;
    }
    PersistentVolumeStatus old =
        volume.getStatus() == null ? new PersistentVolumeStatus() : volume.getStatus();
    PersistentVolume updated =
        PersistentVolume.newBuilder(volume)
            .setStatus(
                PersistentVolumeStatus.newBuilder(old)
                    .setPhase(phase)
                    .setMessage(message)
                    .setLastPhaseTransitionTime(now)
                    .build())
            .build();
    intents.add(Intent.updateStatus("persistentvolumes", "", updated));
    volumes.put(volume.getMetadata().getName(), updated);
  }

  private void updateClaim(PersistentVolumeClaim claim) {
    if (first("pvc/" + claimKey(claim.getMetadata()))) {
      intents.add(Intent.update("persistentvolumeclaims", "", claim));
      claims.put(claimKey(claim.getMetadata()), claim);
    }
  }

  /** {@code updateClaimStatus}: the phase, and the volume's access modes and capacity. */
  private void updateClaimStatus(
      PersistentVolumeClaim claim, String phase, PersistentVolume volume) {
    PersistentVolumeClaimStatus old =
        claim.getStatus() == null ? new PersistentVolumeClaimStatus() : claim.getStatus();
    PersistentVolumeClaimStatus.Builder status = PersistentVolumeClaimStatus.newBuilder(old);
    boolean dirty = false;
    if (!phase.equals(old.getPhase())) {
      status.setPhase(phase);
      dirty = true;
    }
    if (volume == null) {
      if (old.getAccessModes() != null) {
        status.setAccessModes(null);
        dirty = true;
      }
      if (old.getCapacity() != null) {
        status.setCapacity(null);
        dirty = true;
      }
    } else {
      if (!Objects.equals(old.getAccessModes(), volume.getSpec().getAccessModes())) {
        status.setAccessModes(volume.getSpec().getAccessModes());
        dirty = true;
      }
      if (!phase.equals(old.getPhase())) {
        String capacity = volume.getSpec().getCapacity().get("storage");
        String current = old.getCapacity() == null ? null : old.getCapacity().get("storage");
        if (current == null
            || io.streamplane.schema.objects.Quantities.parse(capacity)
                    .compareTo(io.streamplane.schema.objects.Quantities.parse(current))
                > 0) {
          status.setCapacity(volume.getSpec().getCapacity());
          dirty = true;
        }
      }
    }
    if (!dirty || !first("pvc/" + claimKey(claim.getMetadata()))) {
      return;
    }
    PersistentVolumeClaim updated =
        PersistentVolumeClaim.newBuilder(claim).setStatus(status.build()).build();
    intents.add(Intent.updateStatus("persistentvolumeclaims", "", updated));
    claims.put(claimKey(claim.getMetadata()), updated);
  }
}
