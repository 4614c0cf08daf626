package io.streamplane.controller.attachdetach;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.Event;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * kube-controller-manager's attach/detach controller on the one controller contract ({@link
 * AttachDetachReconciler}).
 *
 * <p>One key, {@value #KEY}: a pod's attachment depends on its claim, the claim's volume and the
 * volume's CSIDriver, wherever they are, so they share one task, as Kubernetes runs one
 * attach/detach controller over the cluster. The cache holds the pods that use claims (reduced to
 * their identity, node, claim volumes and phase), claims, volumes, CSIDrivers, VolumeAttachments
 * and the names of the events this controller wrote; every change queues the key; converged, it
 * writes nothing.
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

  /** Everything the reconcile reads. */
  public record View(
      List<Pod> pods,
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<CSIDriver> drivers,
      List<VolumeAttachment> attachments,
      Set<String> events) {}

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
    return event;
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
    }
    return EVENTS + namespaced;
  }

  @Override
  public boolean observe(String key, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = KindObjects.of(event);
    boolean deleted = event.getType() == EventType.DELETED;
    cache.putOrDelete(at(object, event), deleted ? null : event);
    // an event of its own, written or gone, needs no reconcile
    return !(object instanceof Event);
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
    return new View(pods, claims, volumes, drivers, attachments, events);
  }

  @Override
  public Result reconcile(String key, View view, Expectations expectations, Instant now) {
    return Result.of(
        Result.by(
            ACTOR,
            AttachDetachReconciler.reconcile(
                view.pods(),
                view.claims(),
                view.volumes(),
                view.drivers(),
                view.attachments(),
                view.events(),
                now)),
        null);
  }
}
