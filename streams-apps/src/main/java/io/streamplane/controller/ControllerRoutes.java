package io.streamplane.controller;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.Deployment;
import io.streamplane.api.Event;
import io.streamplane.api.Lease;
import io.streamplane.api.Namespace;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicationController;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * Which controller keys an event concerns. The controllers are keyed by owner, as Kubernetes'
 * controllers index their informers: an object goes to the key of every owner it refers to (a pod
 * to its ReplicaSet, a ReplicaSet to its Deployment), and an owner to its own key, so one task sees
 * an owner with all its dependents and nothing else. Only what the namespace-wide controllers need
 * goes to the namespace's key: creations and deletions (the namespace's members, for its teardown;
 * the owners among them, for adoption) and pods and ControllerRevisions without a controller (the
 * orphans to adopt). A pod status change therefore costs the work of one ReplicaSet, whatever the
 * size of its namespace.
 */
public final class ControllerRoutes {

  private ControllerRoutes() {}

  /**
   * The owner keys of an event: the uids of the owners the object refers to, and of those it
   * stopped referring to in this change (so their keys forget it); and its own uid for the owners
   * the controllers manage (Deployments, ReplicaSets, ReplicationControllers) and for any object
   * being deleted or gone (the garbage collector acts on deleted owners), except for kinds that own
   * nothing here.
   */
  public static List<String> ownerKeys(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    if (object == null) {
      return List.of();
    }
    ObjectMeta meta = KubeObjects.meta(object);
    Set<String> keys = new LinkedHashSet<>();
    for (OwnerReference ref : Owners.refs(meta)) {
      if (ref.getUid() != null) {
        keys.add(ref.getUid());
      }
    }
    if (event.getOwnersBefore() != null) {
      for (OwnerReference ref : event.getOwnersBefore()) {
        if (ref.getUid() != null) {
          keys.add(ref.getUid());
        }
      }
    }
    if (meta.getUid() != null && routesToItself(event, object, meta)) {
      keys.add(meta.getUid());
    }
    return new ArrayList<>(keys);
  }

  private static boolean routesToItself(
      ResourceEvent event, SpecificRecord object, ObjectMeta meta) {
    if (object instanceof Deployment
        || object instanceof ReplicaSet
        || object instanceof ReplicationController) {
      return true;
    }
    if (object instanceof Pod || object instanceof Event || object instanceof Lease) {
      // Deleted in the foreground or orphaning (a finalizer the garbage collector removes), and
      // the DELETED event that follows, which carries the same deletionTimestamp.
      return meta.getDeletionTimestamp() != null;
    }
    return event.getType() == EventType.DELETED || meta.getDeletionTimestamp() != null;
  }

  /** The namespace key of an event, or null when no namespace-wide controller needs it. */
  public static String namespaceKey(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    if (object == null) {
      return null;
    }
    if (object instanceof Namespace) {
      return event.getName();
    }
    String namespace = event.getNamespace();
    if (namespace == null || namespace.isEmpty()) {
      return null;
    }
    ObjectMeta meta = KubeObjects.meta(object);
    if (event.getType() != EventType.MODIFIED || meta.getDeletionTimestamp() != null) {
      return namespace;
    }
    if ((object instanceof Pod || object instanceof ControllerRevision)
        && (Owners.controllerOf(meta) == null
            || (event.getOwnersBefore() != null
                && Owners.controllerOf(event.getOwnersBefore()) == null))) {
      return namespace;
    }
    return null;
  }
}
