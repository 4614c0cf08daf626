package io.streamplane.controller;

import io.streamplane.api.Namespace;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * What the controllers know of one namespace at one moment: the Namespace object itself, every
 * object in it (as the last event the store wrote for it), and the uids of owners whose deletion
 * they have seen. Immutable; reconcilers read it and return {@link Intent}s.
 */
public final class NamespaceView {

  private final String name;
  private final Namespace namespace;
  private final List<ResourceEvent> objects;
  private final Set<String> deletedUids;
  private final Map<String, ResourceEvent> byUid = new HashMap<>();

  public NamespaceView(
      String name, Namespace namespace, List<ResourceEvent> objects, Set<String> deletedUids) {
    this.name = name;
    this.namespace = namespace;
    this.objects = List.copyOf(objects);
    this.deletedUids = Set.copyOf(deletedUids);
    for (ResourceEvent event : this.objects) {
      String uid = KubeObjects.meta((SpecificRecord) event.getObject()).getUid();
      if (uid != null) {
        byUid.put(uid, event);
      }
    }
  }

  public String name() {
    return name;
  }

  /** The Namespace object, or null if the controllers have not seen it. */
  public Namespace namespace() {
    return namespace;
  }

  public boolean terminating() {
    return namespace != null
        && namespace.getMetadata() != null
        && namespace.getMetadata().getDeletionTimestamp() != null;
  }

  /** Every namespaced object, in key order. */
  public List<ResourceEvent> objects() {
    return objects;
  }

  /** The objects of one kind, in key order. */
  public <T extends SpecificRecord> List<T> all(Class<T> type) {
    List<T> matching = new ArrayList<>();
    for (ResourceEvent event : objects) {
      if (type.isInstance(event.getObject())) {
        matching.add(type.cast(event.getObject()));
      }
    }
    return Collections.unmodifiableList(matching);
  }

  public ResourceEvent byUid(String uid) {
    return byUid.get(uid);
  }

  /** Whether the controllers saw the object with this uid being deleted. */
  public boolean deleted(String uid) {
    return deletedUids.contains(uid);
  }
}
