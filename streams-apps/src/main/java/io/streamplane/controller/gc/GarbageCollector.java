package io.streamplane.controller.gc;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.controller.Intent;
import io.streamplane.controller.NamespaceView;
import io.streamplane.controller.Owners;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * Kubernetes' garbage collector for the objects of one namespace, as a pure function of the
 * controllers' view of it:
 *
 * <ul>
 *   <li><b>Background</b>: an object all of whose owners were deleted is deleted; references to a
 *       deleted owner are dropped when another owner remains;
 *   <li><b>Foreground</b>: the dependents of an owner carrying the {@code foregroundDeletion}
 *       finalizer are deleted (in the foreground too), and the finalizer is removed once none is
 *       left;
 *   <li><b>Orphan</b>: dependents of an owner carrying the {@code orphan} finalizer lose their
 *       reference to it, then the finalizer is removed.
 * </ul>
 *
 * <p>Limits: only owners in the same namespace are followed (cluster-scoped owners are ignored); an
 * owner counts as deleted only once the controllers have seen its deletion, so a dependent whose
 * owner never existed is kept (Kubernetes would delete it after checking with the API).
 */
public final class GarbageCollector {

  static final String ORPHAN = "orphan";
  static final String FOREGROUND = "foregroundDeletion";

  private GarbageCollector() {}

  public static List<Intent> collect(NamespaceView view) {
    List<Intent> intents = new ArrayList<>();
    for (ResourceEvent event : view.objects()) {
      SpecificRecord object = (SpecificRecord) event.getObject();
      ObjectMeta meta = KubeObjects.meta(object);
      List<OwnerReference> refs = Owners.refs(meta);
      if (refs.isEmpty()) {
        continue;
      }
      List<OwnerReference> kept = new ArrayList<>();
      int deletedOwners = 0;
      int orphaningOwners = 0;
      boolean foreground = false;
      for (OwnerReference ref : refs) {
        ResourceEvent ownerEvent = view.byUid(ref.getUid());
        if (ownerEvent == null) {
          if (view.deleted(ref.getUid())) {
            deletedOwners++;
          } else {
            kept.add(ref);
          }
          continue;
        }
        ObjectMeta owner = KubeObjects.meta((SpecificRecord) ownerEvent.getObject());
        List<String> finalizers = owner.getFinalizers() == null ? List.of() : owner.getFinalizers();
        if (owner.getDeletionTimestamp() != null && finalizers.contains(ORPHAN)) {
          orphaningOwners++;
          continue;
        }
        kept.add(ref);
        if (owner.getDeletionTimestamp() != null && finalizers.contains(FOREGROUND)) {
          foreground = true;
        }
      }
      if (meta.getDeletionTimestamp() != null) {
        continue;
      }
      if (kept.isEmpty() && deletedOwners > 0 && orphaningOwners == 0) {
        intents.add(Intent.delete(event.getResource(), event.getGroup(), object, "Background"));
      } else if (foreground) {
        intents.add(Intent.delete(event.getResource(), event.getGroup(), object, "Foreground"));
      } else if (kept.size() != refs.size()) {
        SpecificRecord released =
            KubeObjects.withMeta(
                object, ObjectMeta.newBuilder(meta).setOwnerReferences(kept).build());
        intents.add(Intent.update(event.getResource(), event.getGroup(), released));
      }
    }
    for (ResourceEvent event : view.objects()) {
      SpecificRecord owner = (SpecificRecord) event.getObject();
      ObjectMeta meta = KubeObjects.meta(owner);
      List<String> finalizers = meta.getFinalizers() == null ? List.of() : meta.getFinalizers();
      if (meta.getDeletionTimestamp() == null
          || !(finalizers.contains(ORPHAN) || finalizers.contains(FOREGROUND))
          || dependentsRemain(view, meta.getUid())) {
        continue;
      }
      List<String> remaining = new ArrayList<>(finalizers);
      remaining.remove(ORPHAN);
      remaining.remove(FOREGROUND);
      SpecificRecord finalized =
          KubeObjects.withMeta(owner, ObjectMeta.newBuilder(meta).setFinalizers(remaining).build());
      intents.add(Intent.update(event.getResource(), event.getGroup(), finalized));
    }
    return intents;
  }

  private static boolean dependentsRemain(NamespaceView view, String ownerUid) {
    for (ResourceEvent event : view.objects()) {
      for (OwnerReference ref : Owners.refs(KubeObjects.meta((SpecificRecord) event.getObject()))) {
        if (ownerUid.equals(ref.getUid())) {
          return true;
        }
      }
    }
    return false;
  }
}
