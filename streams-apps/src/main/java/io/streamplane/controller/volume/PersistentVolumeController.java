package io.streamplane.controller.volume;

import io.streamplane.api.Event;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.StorageClass;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * kube-controller-manager's PersistentVolume controller (binder) and pv-protection controller on
 * the one controller contract ({@link PersistentVolumeReconciler}).
 *
 * <p>One key, {@value #KEY}: any claim may bind to any volume, so every PersistentVolume,
 * PersistentVolumeClaim and StorageClass is on one task, as Kubernetes runs one binder over the
 * whole cluster. The cache holds volumes ({@code volumes/pv/<name>}), claims ({@code
 * volumes/pvc/<namespace>/<name>}) and classes ({@code volumes/sc/<name>}); every change queues the
 * key, and a reconcile decides for every claim and volume; converged, it writes nothing.
 *
 * <p>Limits: the whole set is read on each reconcile (a burst of changes costs one), so the cost of
 * a reconcile grows with the number of claims and volumes; the key cannot be spread over instances.
 */
public final class PersistentVolumeController
    implements Controller<PersistentVolumeController.View> {

  static final String KEY = "volumes";
  static final UserInfo ACTOR = ControllerActors.serviceAccount("persistent-volume-binder");
  private static final String VOLUMES = KEY + "/pv/";
  private static final String CLAIMS = KEY + "/pvc/";
  private static final String CLASSES = KEY + "/sc/";
  private static final String EVENTS = KEY + "/event/";

  /** Every claim, volume and StorageClass, and the names of the events this controller wrote. */
  public record View(
      List<PersistentVolumeClaim> claims,
      List<PersistentVolume> volumes,
      List<StorageClass> classes,
      Set<String> events) {}

  @Override
  public String name() {
    return "persistentvolume";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    return object instanceof PersistentVolume
            || object instanceof PersistentVolumeClaim
            || object instanceof StorageClass
            || (object instanceof Event e
                && e.getSource() != null
                && PersistentVolumeReconciler.COMPONENT.equals(e.getSource().getComponent()))
        ? List.of(KEY)
        : List.of();
  }

  @Override
  public boolean observe(String key, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = KindObjects.of(event);
    String at;
    if (object instanceof PersistentVolume) {
      at = VOLUMES + event.getName();
    } else if (object instanceof PersistentVolumeClaim) {
      at = CLAIMS + event.getNamespace() + "/" + event.getName();
    } else if (object instanceof StorageClass) {
      at = CLASSES + event.getName();
    } else {
      // an event of its own, written or gone: remembered, no reconcile
      cache.putOrDelete(
          EVENTS + event.getNamespace() + "/" + event.getName(),
          event.getType() == EventType.DELETED ? null : event);
      return false;
    }
    if (event.getType() == EventType.DELETED) {
      if (cache.get(at) != null) {
        cache.delete(at);
      }
    } else {
      cache.put(at, event);
    }
    return true;
  }

  @Override
  public View view(String key, ControllerCache cache) {
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    cache.values(CLAIMS).forEach(e -> claims.add((PersistentVolumeClaim) KindObjects.of(e)));
    List<PersistentVolume> volumes = new ArrayList<>();
    cache.values(VOLUMES).forEach(e -> volumes.add((PersistentVolume) KindObjects.of(e)));
    List<StorageClass> classes = new ArrayList<>();
    cache.values(CLASSES).forEach(e -> classes.add((StorageClass) KindObjects.of(e)));
    Set<String> events = new HashSet<>();
    cache.values(EVENTS).forEach(e -> events.add(e.getNamespace() + "/" + e.getName()));
    return new View(claims, volumes, classes, events);
  }

  @Override
  public Result reconcile(String key, View view, Expectations expectations, Instant now) {
    List<Intent> intents =
        new ArrayList<>(
            PersistentVolumeReconciler.reconcile(
                view.claims(), view.volumes(), view.classes(), now));
    intents.addAll(
        PersistentVolumeReconciler.events(view.claims(), view.classes(), view.events(), now));
    return Result.of(Result.by(ACTOR, intents), null);
  }
}
