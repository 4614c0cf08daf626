package io.streamplane.controller.gc;

import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.controller.Intent;
import io.streamplane.controller.OwnerView;
import io.streamplane.controller.Owners;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * Kubernetes' garbage collector for the dependents of one owner, as a pure function of the
 * controllers' view of that owner:
 *
 * <ul>
 *   <li><b>Background</b>: once the owner is deleted, a dependent with no other owner is deleted; a
 *       dependent with other owners loses its reference to this one (those owners' keys decide on
 *       it from there);
 *   <li><b>Foreground</b>: while the owner carries the {@code foregroundDeletion} finalizer its
 *       dependents are deleted in the foreground too, and the finalizer is removed once none is
 *       left;
 *   <li><b>Orphan</b>: while the owner carries the {@code orphan} finalizer (and after it is gone,
 *       for dependents that arrive late) dependents lose their reference to it; the finalizer is
 *       removed once none refers to it.
 * </ul>
 *
 * <p>Limits: an owner counts as deleted only once the controllers have seen its deletion, so a
 * dependent whose owner never existed is kept (Kubernetes would delete it after checking with the
 * API); a foreground deletion waits for every dependent, not only those with blockOwnerDeletion.
 */
public final class GarbageCollector {

  public static final String ORPHAN = "orphan";
  static final String FOREGROUND = "foregroundDeletion";

  private GarbageCollector() {}

  /** Whether the owner is being deleted with the Orphan policy (its finalizer is still there). */
  public static boolean orphaning(SpecificRecord owner) {
    ObjectMeta meta = KubeObjects.meta(owner);
    return meta.getDeletionTimestamp() != null
        && meta.getFinalizers() != null
        && meta.getFinalizers().contains(ORPHAN);
  }

  public static List<Intent> collect(OwnerView view) {
    List<Intent> intents = new ArrayList<>();
    if (view.owner() == null) {
      return intents;
    }
    SpecificRecord owner = view.liveOwner();
    ObjectMeta ownerMeta = owner == null ? null : KubeObjects.meta(owner);
    if (ownerMeta != null && ownerMeta.getDeletionTimestamp() == null) {
      return intents;
    }
    List<String> finalizers =
        ownerMeta == null || ownerMeta.getFinalizers() == null
            ? List.of()
            : ownerMeta.getFinalizers();
    boolean orphan = view.orphaning() || finalizers.contains(ORPHAN);
    boolean foreground = owner != null && finalizers.contains(FOREGROUND);
    for (ResourceEvent event : view.dependents()) {
      SpecificRecord dependent = (SpecificRecord) KindObjects.of(event);
      ObjectMeta meta = KubeObjects.meta(dependent);
      if (meta.getDeletionTimestamp() != null) {
        continue;
      }
      List<OwnerReference> others = new ArrayList<>();
      for (OwnerReference ref : Owners.refs(meta)) {
        if (!view.uid().equals(ref.getUid())) {
          others.add(ref);
        }
      }
      if (orphan || (owner == null && !others.isEmpty())) {
        SpecificRecord released =
            KubeObjects.withMeta(
                dependent,
                ObjectMeta.newBuilder(meta)
                    .setOwnerReferences(others.isEmpty() ? null : others)
                    .build());
        intents.add(Intent.update(event.getResource(), event.getGroup(), released));
      } else if (owner == null) {
        intents.add(Intent.delete(event.getResource(), event.getGroup(), dependent, "Background"));
      } else if (foreground) {
        intents.add(Intent.delete(event.getResource(), event.getGroup(), dependent, "Foreground"));
      }
    }
    if (owner != null
        && (finalizers.contains(ORPHAN) || finalizers.contains(FOREGROUND))
        && view.dependents().isEmpty()) {
      List<String> remaining = new ArrayList<>(finalizers);
      remaining.remove(ORPHAN);
      remaining.remove(FOREGROUND);
      SpecificRecord finalized =
          KubeObjects.withMeta(
              owner, ObjectMeta.newBuilder(ownerMeta).setFinalizers(remaining).build());
      intents.add(Intent.update(view.owner().getResource(), view.owner().getGroup(), finalized));
    }
    return intents;
  }
}
