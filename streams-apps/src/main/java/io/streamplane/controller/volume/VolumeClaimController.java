package io.streamplane.controller.volume;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Volume;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Intent;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * kube-controller-manager's ephemeral-volume and pvc-protection controllers on the one controller
 * contract ({@link ClaimReconciler}), keyed by namespace: the namespace's claims ({@code
 * <ns>/c/<name>}) and the pods that have a claim or an ephemeral volume ({@code <ns>/p/<name>},
 * reduced before the re-keying to their identity, node, volumes and phase). A pod without such
 * volumes is not re-keyed at all.
 */
public final class VolumeClaimController implements Controller<VolumeClaimController.View> {

  static final UserInfo EPHEMERAL = ControllerActors.serviceAccount("ephemeral-volume-controller");
  static final UserInfo PROTECTION = ControllerActors.serviceAccount("pvc-protection-controller");
  private static final String CLAIMS = "/c/";
  private static final String PODS = "/p/";

  /** A namespace's claims and the pods that use claims. */
  public record View(List<PersistentVolumeClaim> claims, List<Pod> pods) {}

  @Override
  public String name() {
    return "volumeclaims";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    // A pod's volumes never change: one without claims never concerns this controller.
    boolean concerned =
        object instanceof PersistentVolumeClaim || (object instanceof Pod pod && hasClaims(pod));
    return concerned && event.getNamespace() != null && !event.getNamespace().isEmpty()
        ? List.of(event.getNamespace())
        : List.of();
  }

  @Override
  public ResourceEvent reduce(ResourceEvent event) {
    if (KindObjects.of(event) instanceof Pod pod) {
      return ResourceEvent.newBuilder(event)
          .setEncodedObject(KindObjects.encode(reduced(pod)))
          .build();
    }
    return event;
  }

  public static boolean hasClaims(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getVolumes() != null
        && pod.getSpec().getVolumes().stream()
            .anyMatch(v -> v.getPersistentVolumeClaim() != null || v.getEphemeral() != null);
  }

  /** A pod as the controller reads it: identity, node, claim volumes and phase. */
  public static Pod reduced(Pod pod) {
    ObjectMeta meta = pod.getMetadata();
    List<Volume> volumes = new ArrayList<>();
    if (pod.getSpec() != null && pod.getSpec().getVolumes() != null) {
      for (Volume v : pod.getSpec().getVolumes()) {
        if (v.getPersistentVolumeClaim() != null || v.getEphemeral() != null) {
          volumes.add(v);
        }
      }
    }
    return Pod.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(meta.getName())
                .setNamespace(meta.getNamespace())
                .setUid(meta.getUid())
                .setDeletionTimestamp(meta.getDeletionTimestamp())
                .build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(List.of())
                .setNodeName(pod.getSpec() == null ? null : pod.getSpec().getNodeName())
                .setVolumes(volumes)
                .build())
        .setStatus(
            pod.getStatus() == null
                ? null
                : PodStatus.newBuilder().setPhase(pod.getStatus().getPhase()).build())
        .build();
  }

  @Override
  public boolean observe(String ns, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = KindObjects.of(event);
    boolean deleted = event.getType() == EventType.DELETED;
    if (object instanceof PersistentVolumeClaim) {
      cache.putOrDelete(ns + CLAIMS + event.getName(), deleted ? null : event);
      return !deleted;
    }
    cache.putOrDelete(ns + PODS + event.getName(), deleted ? null : event);
    return true;
  }

  @Override
  public View view(String ns, ControllerCache cache) {
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    cache.values(ns + CLAIMS).forEach(e -> claims.add((PersistentVolumeClaim) KindObjects.of(e)));
    List<Pod> pods = new ArrayList<>();
    cache.values(ns + PODS).forEach(e -> pods.add((Pod) KindObjects.of(e)));
    return new View(claims, pods);
  }

  @Override
  public Result reconcile(String ns, View view, Expectations expectations, Instant now) {
    List<Decision> decisions = new ArrayList<>();
    for (Intent intent : ClaimReconciler.reconcile(view.claims(), view.pods())) {
      decisions.add(
          new Decision(
              intent,
              intent.verb() == io.streamplane.log.CommandVerb.CREATE ? EPHEMERAL : PROTECTION));
    }
    return Result.of(decisions, null);
  }
}
