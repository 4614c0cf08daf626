package io.streamplane.controller;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;

/**
 * Kubernetes' {@code ControllerRefManager} ({@code pkg/controller/controller_ref_manager.go}): how
 * every controller that owns pods or ControllerRevisions — ReplicaSets, ReplicationControllers,
 * Jobs, DaemonSets, StatefulSets — takes an orphan that matches it and lets go of what it controls
 * and no longer matches. What "matches" means is the owner's: its selector, and for a StatefulSet
 * the set's name pattern too.
 *
 * <p>{@link #claim} is {@code claimObject} over the objects an owner controls: one that matches is
 * kept; one that does not is released (its controller reference removed, with the owner's
 * finalizers) unless the owner is being deleted. {@link #adoption} is {@code claimObject} over an
 * orphan: it is adopted unless the owner or the orphan is being deleted, or it does not match. An
 * adoption is an update of the whole object carrying the uid and resourceVersion it was decided on
 * (the store's preconditions: a pod deleted and made again under the same name, or changed since,
 * is a Conflict), and the owner reference carries the owner's uid as its cache knew it; an owner
 * seen being deleted adopts nothing, as {@code RecheckDeletionTimestamp} refuses it.
 *
 * <p>Orphans are found where they are known, by the namespace's index ({@code
 * NamespaceControllers}); what an owner controls, by the owner's own controller.
 */
public final class ControllerRefManager {

  /** The apiVersion and kind an owner's controller reference names. */
  public record OwnerKind(String apiVersion, String kind) {}

  /** What an owner keeps of the objects it controls, and the writes that release the rest. */
  public record Claimed<T>(List<T> kept, List<Intent> releases) {}

  private ControllerRefManager() {}

  /**
   * The objects of {@code controlled} whose controller is {@code owner} and that match it, and the
   * releases of those that no longer match (none while the owner is being deleted). Objects another
   * owner controls, or none, are left out. {@code finalizers} are removed with the reference, as
   * the job controller's manager removes its tracking finalizer.
   */
  public static <T extends SpecificRecord> Claimed<T> claim(
      ObjectMeta owner, List<T> controlled, Predicate<T> matches, String... finalizers) {
    List<T> kept = new ArrayList<>();
    List<Intent> releases = new ArrayList<>();
    for (T object : controlled) {
      if (!Owners.controlledBy(KubeObjects.meta(object), owner.getUid())) {
        continue;
      }
      if (matches.test(object)) {
        kept.add(object);
      } else if (owner.getDeletionTimestamp() == null) {
        releases.add(update(release(object, owner.getUid(), finalizers)));
      }
    }
    return new Claimed<>(kept, releases);
  }

  /** Whether {@code owner} may adopt {@code orphan}: neither is being deleted, and it matches. */
  public static <T extends SpecificRecord> boolean adopts(
      ObjectMeta owner, T orphan, Predicate<T> matches) {
    ObjectMeta meta = KubeObjects.meta(orphan);
    return owner.getUid() != null
        && owner.getDeletionTimestamp() == null
        && meta.getDeletionTimestamp() == null
        && Owners.controllerOf(meta) == null
        && owner.getNamespace() != null
        && owner.getNamespace().equals(meta.getNamespace())
        && matches.test(orphan);
  }

  /** The write that adopts {@code orphan}: a controller reference to {@code owner}, finalizers. */
  public static Intent adoption(
      SpecificRecord orphan, ObjectMeta owner, OwnerKind kind, String... finalizers) {
    return update(adopt(orphan, owner, kind, finalizers));
  }

  /** {@code object} with a controller reference to {@code owner} and {@code finalizers} added. */
  public static <T extends SpecificRecord> T adopt(
      T object, ObjectMeta owner, OwnerKind kind, String... finalizers) {
    T adopted = KubeObjects.copy(object);
    ObjectMeta meta = KubeObjects.meta(adopted);
    List<OwnerReference> refs = new ArrayList<>(Owners.refs(meta));
    refs.add(Owners.controllerRef(kind.apiVersion(), kind.kind(), owner));
    meta.setOwnerReferences(refs);
    if (finalizers.length > 0) {
      List<String> all =
          meta.getFinalizers() == null ? new ArrayList<>() : new ArrayList<>(meta.getFinalizers());
      for (String finalizer : finalizers) {
        if (!all.contains(finalizer)) {
          all.add(finalizer);
        }
      }
      meta.setFinalizers(all);
    }
    return adopted;
  }

  /** {@code object} without its references to {@code ownerUid} and without {@code finalizers}. */
  public static <T extends SpecificRecord> T release(
      T object, String ownerUid, String... finalizers) {
    T released = KubeObjects.copy(object);
    ObjectMeta meta = KubeObjects.meta(released);
    List<OwnerReference> refs = new ArrayList<>();
    for (OwnerReference ref : Owners.refs(meta)) {
      if (!ownerUid.equals(ref.getUid())) {
        refs.add(ref);
      }
    }
    meta.setOwnerReferences(refs.isEmpty() ? null : refs);
    if (finalizers.length > 0 && meta.getFinalizers() != null) {
      List<String> kept = new ArrayList<>(meta.getFinalizers());
      kept.removeAll(List.of(finalizers));
      meta.setFinalizers(kept.isEmpty() ? null : kept);
    }
    return released;
  }

  private static Intent update(SpecificRecord object) {
    if (object instanceof Pod) {
      return Intent.update("pods", "", object);
    }
    if (object instanceof ControllerRevision) {
      return Intent.update("controllerrevisions", "apps", object);
    }
    throw new IllegalArgumentException("no controller claims a " + object.getClass().getName());
  }
}
