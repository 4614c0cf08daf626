package io.streamplane.controller.attachdetach;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.Volume;
import io.streamplane.api.VolumeAttachment;
import io.streamplane.api.VolumeAttachmentSource;
import io.streamplane.api.VolumeAttachmentSpec;
import io.streamplane.controller.Intent;
import io.streamplane.schema.objects.PodEvents;
import io.streamplane.schema.objects.VolumeAttachmentNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * kube-controller-manager's attach/detach controller for CSI volumes, as a pure function: the
 * desired state of the world is every (PersistentVolume, node) pair where a pod scheduled to the
 * node and not terminated (Succeeded or Failed) uses a claim bound to a CSI volume whose driver
 * needs attaching ({@code CSIDriver.spec.attachRequired}, or no CSIDriver at all, as the kubelet's
 * CSI plugin assumes); each pair gets a VolumeAttachment named as csi_attacher names it ({@code
 * csi-<sha256(volume handle + driver + node)>}), attacher the driver, source the PersistentVolume;
 * an attachment of a pair no longer desired is deleted (its attacher detaches it and removes its
 * finalizer). The pods of a pair get the controller's events: {@code SuccessfulAttachVolume} once
 * attached, {@code FailedAttachVolume} with the attacher's {@code attachError}, once per pod and
 * message (events already written are passed in by name).
 *
 * <p>An attachment no longer desired is deleted only once its node no longer reports the volume in
 * {@code node.status.volumesInUse} ({@code kubernetes.io/csi/<driver>^<handle>}), or once {@link
 * #MAX_WAIT_FOR_UNMOUNT} (kube-controller-manager's {@code maxWaitForUnmountDuration}) has passed
 * since the last pod of the node using it ended ({@code ended}: the pods that ended, with the time
 * the log recorded their end as their {@code deletionTimestamp}); with no such pod known, it is not
 * waited for.
 *
 * <p>Limits: inline CSI volumes are not attached; the wait is counted from the pod's end, not from
 * the moment the controller first wanted the detach.
 */
public final class AttachDetachReconciler {

  static final String COMPONENT = "attachdetach-controller";
  static final String GROUP = "storage.k8s.io";
  static final String RESOURCE = "volumeattachments";

  /** kube-controller-manager's {@code maxWaitForUnmountDuration}. */
  static final Duration MAX_WAIT_FOR_UNMOUNT = Duration.ofMinutes(6);

  /** The writes to make, and when to look again if only time can change them (or null). */
  public record Outcome(List<Intent> intents, Instant requeueAt) {}

  private AttachDetachReconciler() {}

  /** A volume to attach to a node, and the pods there that use it. */
  record Desired(String name, String driver, String pv, String node, List<Pod> pods) {}

  /** Whether volumes of {@code driver} are attached: its CSIDriver says so, or there is none. */
  static boolean attachRequired(String driver, Map<String, CSIDriver> drivers) {
    CSIDriver csiDriver = drivers.get(driver);
    return csiDriver == null
        || csiDriver.getSpec() == null
        || csiDriver.getSpec().getAttachRequired() == null
        || csiDriver.getSpec().getAttachRequired();
  }

  static boolean terminated(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /** The claim a pod's volume uses: its claim, or the generic ephemeral volume's. */
  static String claimOf(Pod pod, Volume volume) {
    if (volume.getPersistentVolumeClaim() != null) {
      return volume.getPersistentVolumeClaim().getClaimName();
    }
    if (volume.getEphemeral() != null) {
      return pod.getMetadata().getName() + "-" + volume.getName();
    }
    return null;
  }

  static Map<String, Desired> desired(
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<CSIDriver> csiDrivers) {
    Map<String, PersistentVolumeClaim> claimsByKey = new HashMap<>();
    claims.forEach(
        c -> claimsByKey.put(c.getMetadata().getNamespace() + "/" + c.getMetadata().getName(), c));
    Map<String, PersistentVolume> pvs = new HashMap<>();
    volumes.forEach(v -> pvs.put(v.getMetadata().getName(), v));
    Map<String, CSIDriver> drivers = new HashMap<>();
    csiDrivers.forEach(d -> drivers.put(d.getMetadata().getName(), d));
    Map<String, Desired> desired = new LinkedHashMap<>();
    for (Pod pod : pods) {
      String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      if (node == null || node.isEmpty() || terminated(pod) || pod.getSpec().getVolumes() == null) {
        continue;
      }
      for (Volume volume : pod.getSpec().getVolumes()) {
        String claimName = claimOf(pod, volume);
        PersistentVolumeClaim claim =
            claimName == null
                ? null
                : claimsByKey.get(pod.getMetadata().getNamespace() + "/" + claimName);
        String pvName = claim == null ? null : claim.getSpec().getVolumeName();
        PersistentVolume pv = pvName == null ? null : pvs.get(pvName);
        if (pv == null || pv.getSpec() == null || pv.getSpec().getCsi() == null) {
          continue;
        }
        String driver = pv.getSpec().getCsi().getDriver();
        if (!attachRequired(driver, drivers)) {
          continue;
        }
        String name =
            VolumeAttachmentNames.of(pv.getSpec().getCsi().getVolumeHandle(), driver, node);
        desired
            .computeIfAbsent(name, n -> new Desired(n, driver, pvName, node, new ArrayList<>()))
            .pods()
            .add(pod);
      }
    }
    return desired;
  }

  /**
   * The writes that bring the attachments to what the pods need: creates, deletes, and the events
   * not yet in {@code events} (names of the events this controller wrote, {@code ns/name}).
   */
  public static List<Intent> reconcile(
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<CSIDriver> csiDrivers,
      List<VolumeAttachment> attachments,
      Set<String> events,
      Instant now) {
    return reconcile(
            pods, claims, volumes, csiDrivers, attachments, events, Map.of(), List.of(), now)
        .intents();
  }

  /**
   * As above, where each node reports its {@code volumesInUse} ({@code inUse}, by node name) and
   * {@code ended} are the pods that ended lately: a detach waits for the node.
   */
  public static Outcome reconcile(
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<CSIDriver> csiDrivers,
      List<VolumeAttachment> attachments,
      Set<String> events,
      Map<String, List<String>> inUse,
      List<Pod> ended,
      Instant now) {
    Map<String, Desired> desired = desired(pods, claims, volumes, csiDrivers);
    Map<String, VolumeAttachment> existing = new HashMap<>();
    attachments.forEach(a -> existing.put(a.getMetadata().getName(), a));
    List<Intent> intents = new ArrayList<>();
    for (Desired d : desired.values()) {
      VolumeAttachment attachment = existing.get(d.name());
      if (attachment == null) {
        intents.add(Intent.create(RESOURCE, GROUP, attachment(d)));
        continue;
      }
      if (attachment.getMetadata().getDeletionTimestamp() != null
          || attachment.getStatus() == null) {
        continue; // being detached: attached again once it is gone
      }
      var status = attachment.getStatus();
      for (Pod pod : d.pods()) {
        if (Boolean.TRUE.equals(status.getAttached())) {
          event(
              intents,
              events,
              pod,
              "Normal",
              "SuccessfulAttachVolume",
              "AttachVolume.Attach succeeded for volume \"" + d.pv() + "\"",
              d.name() + "/attached",
              now);
        } else if (status.getAttachError() != null) {
          event(
              intents,
              events,
              pod,
              "Warning",
              "FailedAttachVolume",
              "AttachVolume.Attach failed for volume \""
                  + d.pv()
                  + "\" : "
                  + status.getAttachError().getMessage(),
              d.name() + "/failed/" + status.getAttachError().getMessage(),
              now);
        }
      }
    }
    Map<String, PersistentVolume> pvs = new HashMap<>();
    volumes.forEach(v -> pvs.put(v.getMetadata().getName(), v));
    Instant requeueAt = null;
    for (VolumeAttachment attachment : attachments) {
      ObjectMeta meta = attachment.getMetadata();
      VolumeAttachmentSource source =
          attachment.getSpec() == null ? null : attachment.getSpec().getSource();
      if (desired.containsKey(meta.getName())
          || meta.getDeletionTimestamp() != null
          || source == null
          || source.getPersistentVolumeName() == null) {
        continue;
      }
      Instant waitUntil = mountedUntil(attachment, pvs, inUse, ended);
      if (waitUntil != null && now.isBefore(waitUntil)) {
        requeueAt = requeueAt == null || waitUntil.isBefore(requeueAt) ? waitUntil : requeueAt;
        continue; // still mounted on its node
      }
      intents.add(Intent.delete(RESOURCE, GROUP, attachment, null));
    }
    return new Outcome(intents, requeueAt);
  }

  /**
   * When the wait for the node to unmount the attachment's volume ends: null when the node does not
   * report it in use; else {@link #MAX_WAIT_FOR_UNMOUNT} after the latest end of a pod of the node
   * that used the volume's claim (its {@code claimRef}), or null when none is known.
   */
  private static Instant mountedUntil(
      VolumeAttachment attachment,
      Map<String, PersistentVolume> pvs,
      Map<String, List<String>> inUse,
      List<Pod> ended) {
    String node = attachment.getSpec().getNodeName();
    PersistentVolume pv = pvs.get(attachment.getSpec().getSource().getPersistentVolumeName());
    if (pv == null || pv.getSpec() == null || pv.getSpec().getCsi() == null) {
      return null;
    }
    String unique =
        "kubernetes.io/csi/"
            + pv.getSpec().getCsi().getDriver()
            + "^"
            + pv.getSpec().getCsi().getVolumeHandle();
    if (!inUse.getOrDefault(node, List.of()).contains(unique)) {
      return null;
    }
    var claimRef = pv.getSpec().getClaimRef();
    Instant lastEnd = null;
    for (Pod pod : ended) {
      if (claimRef == null
          || !node.equals(pod.getSpec().getNodeName())
          || !Objects.equals(claimRef.getNamespace(), pod.getMetadata().getNamespace())
          || pod.getMetadata().getDeletionTimestamp() == null
          || pod.getSpec().getVolumes() == null) {
        continue;
      }
      for (Volume volume : pod.getSpec().getVolumes()) {
        if (claimRef.getName().equals(claimOf(pod, volume))) {
          Instant end = pod.getMetadata().getDeletionTimestamp();
          lastEnd = lastEnd == null || end.isAfter(lastEnd) ? end : lastEnd;
        }
      }
    }
    return lastEnd == null ? null : lastEnd.plus(MAX_WAIT_FOR_UNMOUNT);
  }

  private static void event(
      List<Intent> intents,
      Set<String> events,
      Pod pod,
      String type,
      String reason,
      String message,
      String seed,
      Instant now) {
    var event =
        PodEvents.about(
            pod,
            EventSource.newBuilder().setComponent(COMPONENT).build(),
            type,
            reason,
            message,
            now,
            pod.getMetadata().getUid() + "/" + seed);
    if (!events.contains(pod.getMetadata().getNamespace() + "/" + event.getMetadata().getName())) {
      intents.add(Intent.create("events", "", event));
    }
  }

  private static VolumeAttachment attachment(Desired d) {
    return VolumeAttachment.newBuilder()
        .setApiVersion("storage.k8s.io/v1")
        .setKind("VolumeAttachment")
        .setMetadata(ObjectMeta.newBuilder().setName(d.name()).build())
        .setSpec(
            VolumeAttachmentSpec.newBuilder()
                .setAttacher(d.driver())
                .setNodeName(d.node())
                .setSource(
                    VolumeAttachmentSource.newBuilder().setPersistentVolumeName(d.pv()).build())
                .build())
        .build();
  }
}
