package io.streamplane.controller.attachdetach;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.Event;
import io.streamplane.api.Node;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.VolumeAttachment;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.volume.VolumeClaimController;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * kube-controller-manager's attach/detach controller on the one controller contract ({@link
 * AttachDetachReconciler}).
 *
 * <p>One key, {@value #KEY}: a pod's attachment depends on its claim, the claim's volume and the
 * volume's CSIDriver, wherever they are, so they share one task, as Kubernetes runs one
 * attach/detach controller over the cluster. The cache holds the pods that use claims (reduced to
 * their identity, node, claim volumes and phase), claims, volumes, CSIDrivers, VolumeAttachments,
 * the names of the events this controller wrote, each Node's {@code status.volumesInUse} (a Node
 * event queues the key only when they change) and the pods that ended in the last {@link
 * AttachDetachReconciler#MAX_WAIT_FOR_UNMOUNT} (deleted, Succeeded or Failed; the time the log
 * recorded their end kept as their {@code deletionTimestamp}), which a detach waits for; every
 * change queues the key; converged, it writes nothing.
 *
 * <p>Limits: the whole set is read on each reconcile; the key cannot be spread over instances.
 */
public final class AttachDetachController implements Controller<AttachDetachController.View> {

  static final String KEY = "attachments";
  static final UserInfo ACTOR = ControllerActors.serviceAccount("attachdetach-controller");
  private static final String PODS = KEY + "/pod/";
  private static final String CLAIMS = KEY + "/pvc/";
  private static final String VOLUMES = KEY + "/pv/";
  private static final String DRIVERS = KEY + "/driver/";
  private static final String ATTACHMENTS = KEY + "/va/";
  private static final String EVENTS = KEY + "/event/";
  private static final String NODES = KEY + "/node/";
  private static final String ENDED = KEY + "/ended/";

  /** Everything the reconcile reads. */
  public record View(
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<CSIDriver> drivers,
      List<VolumeAttachment> attachments,
      Set<String> events,
      Map<String, List<String>> volumesInUse,
      List<Pod> ended) {}

  @Override
  public String name() {
    return "attachdetach";
  }

  private static boolean ours(Event event) {
    return event.getSource() != null
        && AttachDetachReconciler.COMPONENT.equals(event.getSource().getComponent());
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    boolean concerned =
        object instanceof PersistentVolume
            || object instanceof PersistentVolumeClaim
            || object instanceof CSIDriver
            || object instanceof VolumeAttachment
            || object instanceof Node
            || (object instanceof Pod pod && VolumeClaimController.hasClaims(pod))
            || (object instanceof Event e && ours(e));
    return concerned ? List.of(KEY) : List.of();
  }

  @Override
  public ResourceEvent reduce(ResourceEvent event) {
    if (KindObjects.of(event) instanceof Pod pod) {
      return ResourceEvent.newBuilder(event)
          .setEncodedObject(KindObjects.encode(VolumeClaimController.reduced(pod)))
          .build();
    }
    if (KindObjects.of(event) instanceof Node node) {
      Node reduced =
          Node.newBuilder()
              .setMetadata(ObjectMeta.newBuilder().setName(node.getMetadata().getName()).build())
              .setStatus(
                  NodeStatus.newBuilder()
                      .setVolumesInUse(
                          node.getStatus() == null ? null : node.getStatus().getVolumesInUse())
                      .build())
              .build();
      return ResourceEvent.newBuilder(event).setEncodedObject(KindObjects.encode(reduced)).build();
    }
    return event;
  }

  private static List<String> volumesInUse(ResourceEvent event) {
    if (event == null || !(KindObjects.of(event) instanceof Node node)) {
      return List.of();
    }
    return node.getStatus() == null || node.getStatus().getVolumesInUse() == null
        ? List.of()
        : node.getStatus().getVolumesInUse();
  }

  private static String at(SpecificRecord object, ResourceEvent event) {
    String namespaced = event.getNamespace() + "/" + event.getName();
    if (object instanceof Pod) {
      return PODS + namespaced;
    } else if (object instanceof PersistentVolumeClaim) {
      return CLAIMS + namespaced;
    } else if (object instanceof PersistentVolume) {
      return VOLUMES + event.getName();
    } else if (object instanceof CSIDriver) {
      return DRIVERS + event.getName();
    } else if (object instanceof VolumeAttachment) {
      return ATTACHMENTS + event.getName();
    } else if (object instanceof Node) {
      return NODES + event.getName();
    }
    return EVENTS + namespaced;
  }

  @Override
  public boolean observe(String key, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = KindObjects.of(event);
    boolean deleted = event.getType() == EventType.DELETED;
    Instant at = Instant.ofEpochMilli(timestampMs);
    forgetEndedBefore(at.minus(AttachDetachReconciler.MAX_WAIT_FOR_UNMOUNT), cache);
    if (object instanceof Node) {
      String nodeKey = at(object, event);
      boolean changed = !volumesInUse(cache.get(nodeKey)).equals(volumesInUse(event));
      cache.putOrDelete(nodeKey, deleted ? null : event);
      return changed; // a heartbeat that changes nothing of it needs no reconcile
    }
    ResourceEvent endedBefore = cache.get(ENDED + event.getNamespace() + "/" + event.getName());
    if (object instanceof Pod pod
        && (deleted || AttachDetachReconciler.terminated(pod))
        && (endedBefore == null
            || !Objects.equals(
                ((Pod) KindObjects.of(endedBefore)).getMetadata().getUid(),
                pod.getMetadata().getUid()))) {
      // when it ended, as the log recorded it: the detach of its volumes waits from then
      Pod ended = Pod.newBuilder(pod).build();
      ended.setMetadata(ObjectMeta.newBuilder(pod.getMetadata()).setDeletionTimestamp(at).build());
      cache.put(
          ENDED + event.getNamespace() + "/" + event.getName(),
          ResourceEvent.newBuilder(event).setEncodedObject(KindObjects.encode(ended)).build());
    }
    cache.putOrDelete(at(object, event), deleted ? null : event);
    // an event of its own, written or gone, needs no reconcile
    return !(object instanceof Event);
  }

  /** Drops the pods that ended before {@code before}: no detach waits for them any more. */
  private static void forgetEndedBefore(Instant before, ControllerCache cache) {
    for (var entry : cache.scan(ENDED)) {
      Pod pod = (Pod) KindObjects.of(entry.value);
      if (pod.getMetadata().getDeletionTimestamp().isBefore(before)) {
        cache.delete(entry.key);
      }
    }
  }

  @Override
  public View view(String key, ControllerCache cache) {
    List<Pod> pods = new ArrayList<>();
    cache.values(PODS).forEach(e -> pods.add((Pod) KindObjects.of(e)));
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    cache.values(CLAIMS).forEach(e -> claims.add((PersistentVolumeClaim) KindObjects.of(e)));
    List<PersistentVolume> volumes = new ArrayList<>();
    cache.values(VOLUMES).forEach(e -> volumes.add((PersistentVolume) KindObjects.of(e)));
    List<CSIDriver> drivers = new ArrayList<>();
    cache.values(DRIVERS).forEach(e -> drivers.add((CSIDriver) KindObjects.of(e)));
    List<VolumeAttachment> attachments = new ArrayList<>();
    cache.values(ATTACHMENTS).forEach(e -> attachments.add((VolumeAttachment) KindObjects.of(e)));
    Set<String> events = new HashSet<>();
    cache.values(EVENTS).forEach(e -> events.add(e.getNamespace() + "/" + e.getName()));
    Map<String, List<String>> inUse = new HashMap<>();
    cache.values(NODES).forEach(e -> inUse.put(e.getName(), volumesInUse(e)));
    List<Pod> ended = new ArrayList<>();
    cache.values(ENDED).forEach(e -> ended.add((Pod) KindObjects.of(e)));
    return new View(pods, claims, volumes, drivers, attachments, events, inUse, ended);
  }

  @Override
  public Result reconcile(String key, View view, Expectations expectations, Instant now) {
    AttachDetachReconciler.Outcome outcome =
        AttachDetachReconciler.reconcile(
            view.pods(),
            view.claims(),
            view.volumes(),
            view.drivers(),
            view.attachments(),
            view.events(),
            view.volumesInUse(),
            view.ended(),
            now);
    return Result.of(Result.by(ACTOR, outcome.intents()), outcome.requeueAt());
  }
}
