package io.streamplane.controller;

import io.streamplane.api.ObjectMeta;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;

/**
 * The cache of a controller keyed by an owner's uid that sees the owner and the objects it controls
 * (the Job controller a Job and its pods, the CronJob controller a CronJob and its Jobs): {@code
 * <uid><ownerKey>} holds the owner's last event, {@code <uid><dependentPrefix><name>} the last
 * event of each object whose controller reference names the uid; one that is deleted or no longer
 * controlled is forgotten. Both keys start with {@code /}, so one scan of {@code <uid>/} reads the
 * owner with its dependents.
 */
public record ControlledObjects(String ownerKey, String dependentPrefix) {

  /** The owner's last event (null when never seen) and the objects it controls. */
  public record Snapshot<D>(ResourceEvent owner, List<D> dependents) {}

  /** Records {@code event}: the owner's own ({@code ofOwner}) or one of a dependent's. */
  public void observe(String uid, ResourceEvent event, boolean ofOwner, ControllerCache cache) {
    if (ofOwner) {
      cache.put(uid + ownerKey, event);
      return;
    }
    ObjectMeta meta = KubeObjects.meta((SpecificRecord) KindObjects.of(event));
    String key = uid + dependentPrefix + meta.getName();
    if (event.getType() == EventType.DELETED || !Owners.controlledBy(meta, uid)) {
      cache.delete(key);
    } else {
      cache.put(key, event);
    }
  }

  /** Forgets the owner's event (its dependents are forgotten as they go). */
  public void forget(String uid, ControllerCache cache) {
    cache.delete(uid + ownerKey);
  }

  /** The owner of {@code uid} with its dependents, decoded as {@code type}. */
  public <D> Snapshot<D> view(String uid, ControllerCache cache, Class<D> type) {
    ResourceEvent owner = null;
    List<D> dependents = new ArrayList<>();
    for (KeyValue<String, ResourceEvent> entry : cache.scan(uid + "/")) {
      if (entry.key.equals(uid + ownerKey)) {
        owner = entry.value;
      } else {
        dependents.add(type.cast(KindObjects.of(entry.value)));
      }
    }
    return new Snapshot<>(owner, dependents);
  }
}
