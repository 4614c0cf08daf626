package io.streamplane.controller;

import io.streamplane.api.ObjectMeta;
import io.streamplane.controller.gc.GarbageCollector;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;

/**
 * The controllers keyed by owner uid (see {@link ControllerRoutes#ownerKeys}) as one {@link
 * Controller}: the ReplicaSet and Deployment controllers and the garbage collector, which see an
 * owner with its dependents and share its pending writes ({@link OwnerReconciler}), so that a
 * ReplicaSet whose pods the garbage collector is deleting creates none meanwhile.
 *
 * <p>Cache layout: {@code <uid>/~self} → the owner's last event (a DELETED event once it is gone,
 * kept {@link #REMEMBER_DELETED} after its last dependent, since a dependent created just before
 * the deletion can arrive after it); {@code <uid>/~orphan} → set when the owner was deleted with
 * the Orphan policy; {@code <uid>/<resource>.<group>/<namespace>/<name>} → each dependent's last
 * event.
 *
 * <p>The work of one event is bounded by its owner's dependents, not by its namespace; and a
 * converged cluster queues nothing, so the controllers write nothing at rest.
 */
final class OwnerControllers implements Controller<OwnerView> {

  static final Duration REMEMBER_DELETED = Duration.ofMinutes(10);
  private static final String SELF = "/~self";
  private static final String ORPHAN = "/~orphan";

  @Override
  public String name() {
    return "owner";
  }

  @Override
  public String rekeyedAs() {
    return "by-owner";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    return ControllerRoutes.ownerKeys(event);
  }

  @Override
  public boolean observe(String uid, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = (SpecificRecord) KindObjects.of(event);
    ObjectMeta meta = KubeObjects.meta(object);
    if (uid.equals(meta.getUid())) {
      if (event.getType() == EventType.DELETED) {
        cache.put(uid + SELF, ControllerStores.deletedAt(event, timestampMs));
      } else {
        cache.put(uid + SELF, event);
        if (GarbageCollector.orphaning(object)) {
          cache.put(uid + ORPHAN, event);
        }
      }
    } else {
      String key = uid + "/" + ControllerStores.target(event);
      boolean refers = Owners.refs(meta).stream().anyMatch(ref -> uid.equals(ref.getUid()));
      if (event.getType() == EventType.DELETED || !refers) {
        cache.delete(key);
      } else {
        cache.put(key, event);
      }
    }
    return true;
  }

  @Override
  public OwnerView view(String uid, ControllerCache cache) {
    ResourceEvent owner = null;
    boolean orphaning = false;
    List<ResourceEvent> dependents = new ArrayList<>();
    for (KeyValue<String, ResourceEvent> entry : cache.scan(uid + "/")) {
      if (entry.key.equals(uid + SELF)) {
        owner = entry.value;
      } else if (entry.key.equals(uid + ORPHAN)) {
        orphaning = true;
      } else {
        dependents.add(entry.value);
      }
    }
    return new OwnerView(uid, owner, orphaning, dependents);
  }

  /**
   * {@link OwnerReconciler}'s decisions; a deleted owner nothing refers to any more is looked at
   * again once {@link #REMEMBER_DELETED} has passed, and then forgotten.
   */
  @Override
  public Result reconcile(String uid, OwnerView view, Expectations expectations, Instant now) {
    Result result = OwnerReconciler.reconcile(view, expectations, now);
    if (!view.ownerDeleted() || !view.dependents().isEmpty()) {
      return result;
    }
    Instant deleted =
        KubeObjects.meta((SpecificRecord) KindObjects.of(view.owner())).getDeletionTimestamp();
    Instant forgetAt = (deleted == null ? now : deleted).plus(REMEMBER_DELETED);
    return forgetAt.isAfter(now) ? result.requeueNoLaterThan(forgetAt) : result.forgetting();
  }

  @Override
  public void forget(String uid, ControllerCache cache) {
    cache.delete(uid + SELF);
    cache.delete(uid + ORPHAN);
  }
}
