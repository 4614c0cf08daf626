package io.streamplane.controller.statefulset;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.StatefulSet;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Owners;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;

/**
 * The StatefulSet controller, keyed by StatefulSet uid: a StatefulSet's events and those of the
 * pods and ControllerRevisions whose controller reference names it (and, when an object's
 * references change, of the set it left) go to the set's key, so one task sees one StatefulSet with
 * exactly what it controls, and a pod event costs the work of its set whatever the size of its
 * namespace. StatefulSets spread over every partition and instance.
 *
 * <p>Cache layout: {@code <uid>/~sts} → the set's last event (DELETED once it is gone, until what
 * it controlled is gone or released); {@code <uid>/pod/<name>} and {@code <uid>/rev/<name>} → each
 * pod's and revision's last event.
 *
 * <p>{@link StatefulSetReconciler} decides; while a pod create or delete of the set is not yet
 * observed it only revises its revisions and status, so OrderedReady never has two ordinals in
 * flight. Writes are as {@code system:serviceaccount:kube-system:statefulset-controller}.
 */
public final class StatefulSetController implements Controller<StatefulSetController.View> {

  public static final UserInfo STATEFUL_SET_CONTROLLER =
      ControllerActors.serviceAccount("statefulset-controller");

  private static final String SELF = "/~sts";
  private static final String PODS = "/pod/";
  private static final String REVISIONS = "/rev/";

  /** What the controller knows of one StatefulSet: its last event, its pods and revisions. */
  public record View(ResourceEvent set, List<Pod> pods, List<ControllerRevision> revisions) {

    public View {
      pods = List.copyOf(pods);
      revisions = List.copyOf(revisions);
    }

    /** The StatefulSet, or null when it is unseen or deleted. */
    StatefulSet liveSet() {
      return set == null || set.getType() == EventType.DELETED
          ? null
          : (StatefulSet) KindObjects.of(set);
    }
  }

  @Override
  public String name() {
    return "statefulset";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    if (object instanceof StatefulSet set) {
      String uid = set.getMetadata() == null ? null : set.getMetadata().getUid();
      return uid == null ? List.of() : List.of(uid);
    }
    if (!(object instanceof Pod) && !(object instanceof ControllerRevision)) {
      return List.of();
    }
    Set<String> keys = new LinkedHashSet<>();
    addSet(Owners.controllerOf(KubeObjects.meta(object)), keys);
    if (event.getOwnersBefore() != null) {
      addSet(Owners.controllerOf(event.getOwnersBefore()), keys);
    }
    return new ArrayList<>(keys);
  }

  private static void addSet(OwnerReference ref, Set<String> keys) {
    if (ref != null
        && "StatefulSet".equals(ref.getKind())
        && ref.getApiVersion() != null
        && ref.getApiVersion().startsWith("apps/")
        && ref.getUid() != null) {
      keys.add(ref.getUid());
    }
  }

  @Override
  public boolean observe(String uid, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = KindObjects.of(event);
    if (object instanceof StatefulSet) {
      cache.put(uid + SELF, event);
      return true;
    }
    ObjectMeta meta = KubeObjects.meta(object);
    String key = uid + (object instanceof Pod ? PODS : REVISIONS) + meta.getName();
    if (event.getType() == EventType.DELETED || !Owners.controlledBy(meta, uid)) {
      cache.delete(key);
    } else {
      cache.put(key, event);
    }
    return true;
  }

  @Override
  public View view(String uid, ControllerCache cache) {
    ResourceEvent set = null;
    List<Pod> pods = new ArrayList<>();
    List<ControllerRevision> revisions = new ArrayList<>();
    for (KeyValue<String, ResourceEvent> entry : cache.scan(uid + "/")) {
      SpecificRecord object = KindObjects.of(entry.value);
      if (entry.key.equals(uid + SELF)) {
        set = entry.value;
      } else if (object instanceof Pod pod) {
        pods.add(pod);
      } else if (object instanceof ControllerRevision revision) {
        revisions.add(revision);
      }
    }
    return new View(set, pods, revisions);
  }

  @Override
  public Result reconcile(String uid, View view, Expectations expectations, Instant now) {
    StatefulSet set = view.liveSet();
    if (set == null) {
      boolean gone = view.set() == null || view.set().getType() == EventType.DELETED;
      return gone && view.pods().isEmpty() && view.revisions().isEmpty()
          ? Result.nothing().forgetting()
          : Result.nothing();
    }
    boolean manage = !expectations.creatingOrDeleting("pods");
    StatefulSetReconciler.Decision decision =
        StatefulSetReconciler.reconcile(set, view.pods(), view.revisions(), manage, now);
    return Result.of(Result.by(STATEFUL_SET_CONTROLLER, decision.intents()), decision.requeueAt());
  }

  @Override
  public void forget(String uid, ControllerCache cache) {
    cache.delete(uid + SELF);
  }
}
