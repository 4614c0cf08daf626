package io.streamplane.controller;

import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * What the controllers know at one owner key: the owner itself (its last event; a DELETED event
 * once it is gone, kept while dependents may still arrive; null when it was never seen, which
 * counts as alive) and its dependents, every object whose ownerReferences name the owner's uid.
 * {@code orphaning} says the owner was deleted with the Orphan policy, so dependents that still
 * refer to it are released rather than deleted. Immutable; reconcilers read it and return {@link
 * Intent}s.
 */
public record OwnerView(
    String uid, ResourceEvent owner, boolean orphaning, List<ResourceEvent> dependents) {

  public OwnerView {
    dependents = List.copyOf(dependents);
  }

  public boolean ownerDeleted() {
    return owner != null && owner.getType() == EventType.DELETED;
  }

  /** The owner as an object, or null when it is unseen or deleted. */
  public SpecificRecord liveOwner() {
    return owner == null || ownerDeleted() ? null : (SpecificRecord) KindObjects.of(owner);
  }

  /** The dependents of one kind. */
  public <T extends SpecificRecord> List<T> dependents(Class<T> type) {
    List<T> matching = new ArrayList<>();
    for (ResourceEvent event : dependents) {
      if (type.isInstance(KindObjects.of(event))) {
        matching.add(type.cast(KindObjects.of(event)));
      }
    }
    return matching;
  }

  /** The dependents of one kind that the owner controls (controller=true references). */
  public <T extends SpecificRecord> List<T> controlled(Class<T> type) {
    return dependents(type).stream()
        .filter(d -> Owners.controlledBy(KubeObjects.meta(d), uid))
        .toList();
  }
}
