package io.streamplane.controller;

import io.streamplane.api.Namespace;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicationController;
import io.streamplane.controller.namespace.NamespaceReconciler;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.controller.replication.ReplicationControllers;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * The controllers that need a whole namespace as one {@link Controller}, keyed by namespace name
 * and fed only what they need ({@link ControllerRoutes#namespaceKey}): the namespace controller (a
 * Terminating namespace is emptied, then finalized) over the namespace's members, and ReplicaSet
 * adoption over an index of the namespace's ReplicaSets, ReplicationControllers and orphan pods.
 * Neither sees pod status changes, so a busy namespace costs them one store write per creation and
 * deletion.
 *
 * <p>Cache layout: {@code <ns>/~ns} → the Namespace's last event; {@code <ns>/m/<target>} → each
 * member's creation (or deletion-marking) event; {@code <ns>/o/<pod>} → each orphan pod that may be
 * adopted. ReplicaSets are found among the members, their selectors being immutable. What arrived
 * since the last reconcile and asks for an adoption: {@code <ns>/a/pod/<pod>} → an orphan pod's
 * event (the first matching ReplicaSet adopts it), {@code <ns>/a/rs/<rs>} → a new ReplicaSet's,
 * {@code <ns>/a/rc/<rc>} a new ReplicationController's (it adopts the matching orphans); a
 * reconcile decides on them and forgets them.
 *
 * <p>Adoption is decided for what arrived, not for every orphan of the namespace at each reconcile:
 * a namespace of many pods without a controller (pods created by hand) would otherwise re-examine
 * all of them on each one's change. Limits: a pod is adopted by the first matching ReplicaSet in
 * name order; an adoption refused by the store for another reason than a conflict is tried again
 * when the pod next changes.
 */
final class NamespaceControllers implements Controller<NamespaceControllers.NamespaceView> {

  private static final UserInfo NAMESPACE_CONTROLLER =
      ControllerActors.serviceAccount("namespace-controller");
  private static final String NAMESPACE = "/~ns";
  private static final String ADOPT_POD = "/a/pod/";
  private static final String ADOPT_BY_RS = "/a/rs/";
  private static final String ADOPT_BY_RC = "/a/rc/";
  private static final List<String> OWNER_MEMBERS =
      List.of("/m/replicasets.apps/", "/m/replicationcontrollers./");

  /**
   * A ReplicaSet or a ReplicationController as the ReplicaSet controller sees it, with the kind its
   * pods' controller reference names.
   */
  record Adopter(ReplicaSet rs, ReplicaSetReconciler.OwnerKind kind) {

    static Adopter of(Object object) {
      if (object instanceof ReplicaSet rs) {
        return new Adopter(rs, ReplicaSetReconciler.REPLICA_SET);
      }
      if (object instanceof ReplicationController rc && rc.getSpec() != null) {
        return new Adopter(
            ReplicationControllers.asReplicaSet(rc), ReplicationControllers.REPLICATION_CONTROLLER);
      }
      return null;
    }
  }

  /**
   * What the namespace controllers know of one namespace: the Namespace (null if unseen or gone);
   * its members, read only while it is Terminating; the orphan pods that arrived since the last
   * reconcile with the namespace's ReplicaSets (read only if there are such pods); the ReplicaSets
   * that arrived with the namespace's orphan pods (read only if there are such ReplicaSets).
   */
  record NamespaceView(
      Namespace namespace,
      List<ResourceEvent> members,
      List<Pod> arrivedOrphans,
      List<Adopter> replicaSets,
      List<Adopter> arrivedReplicaSets,
      List<Pod> orphans) {}

  @Override
  public String name() {
    return "namespace";
  }

  @Override
  public String rekeyedAs() {
    return "by-namespace";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    String namespace = ControllerRoutes.namespaceKey(event);
    return namespace == null ? List.of() : List.of(namespace);
  }

  @Override
  public boolean observe(
      String namespace, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = (SpecificRecord) KindObjects.of(event);
    ObjectMeta meta = KubeObjects.meta(object);
    boolean deleted = event.getType() == EventType.DELETED;
    boolean adopting = false;
    if (object instanceof Namespace) {
      if (deleted) {
        cache.delete(namespace + NAMESPACE);
      } else {
        cache.put(namespace + NAMESPACE, event);
      }
    } else {
      String member = namespace + "/m/" + ControllerStores.target(event);
      if (deleted) {
        cache.delete(member);
      } else if (event.getType() == EventType.ADDED || meta.getDeletionTimestamp() != null) {
        cache.put(member, event);
      }
      if (object instanceof Pod pod) {
        adopting = indexOrphan(cache, namespace, event, pod);
      } else if ((object instanceof ReplicaSet || object instanceof ReplicationController)
          && event.getType() == EventType.ADDED
          && meta.getDeletionTimestamp() == null) {
        String prefix = object instanceof ReplicaSet ? ADOPT_BY_RS : ADOPT_BY_RC;
        cache.put(namespace + prefix + event.getName(), event);
        adopting = true;
      }
    }
    return adopting || NamespaceReconciler.terminating(namespace(cache, namespace));
  }

  /**
   * Keeps an orphan pod, and asks for its adoption if a ReplicaSet of the namespace would adopt it
   * (as Kubernetes' pod event handlers queue the ReplicaSets that match a pod); forgets a pod no
   * longer orphan. A pod created by hand that no ReplicaSet matches costs a store write and a look
   * at the namespace's ReplicaSets, and no reconcile.
   */
  private static boolean indexOrphan(
      ControllerCache cache, String namespace, ResourceEvent event, Pod pod) {
    String key = namespace + "/o/" + event.getName();
    ObjectMeta meta = pod.getMetadata();
    if (event.getType() == EventType.DELETED
        || meta.getDeletionTimestamp() != null
        || Owners.controllerOf(meta) != null) {
      cache.delete(key);
      forgetAdoption(cache, namespace + ADOPT_POD + event.getName());
      return false;
    }
    cache.put(key, event);
    boolean adoptable = adopters(cache, namespace).stream().anyMatch(a -> adopts(a, pod));
    if (adoptable) {
      cache.put(namespace + ADOPT_POD + event.getName(), event);
    } else {
      forgetAdoption(cache, namespace + ADOPT_POD + event.getName());
    }
    return adoptable;
  }

  /** Deletes an adoption request if there is one, without a tombstone for every pod event. */
  private static void forgetAdoption(ControllerCache cache, String key) {
    if (cache.get(key) != null) {
      cache.delete(key);
    }
  }

  @Override
  public NamespaceView view(String name, ControllerCache cache) {
    Namespace namespace = namespace(cache, name);
    List<ResourceEvent> members =
        NamespaceReconciler.terminating(namespace) ? cache.values(name + "/m/") : List.of();
    List<Pod> arrivedOrphans = objects(cache.values(name + ADOPT_POD), Pod.class);
    List<Adopter> replicaSets = arrivedOrphans.isEmpty() ? List.of() : adopters(cache, name);
    List<Adopter> arrivedReplicaSets = new ArrayList<>();
    for (String prefix : List.of(ADOPT_BY_RS, ADOPT_BY_RC)) {
      for (ResourceEvent event : cache.values(name + prefix)) {
        Adopter adopter = Adopter.of(KindObjects.of(event));
        if (adopter != null) {
          arrivedReplicaSets.add(adopter);
        }
      }
    }
    List<Pod> orphans =
        arrivedReplicaSets.isEmpty() ? List.of() : objects(cache.values(name + "/o/"), Pod.class);
    return new NamespaceView(
        namespace, members, arrivedOrphans, replicaSets, arrivedReplicaSets, orphans);
  }

  /**
   * Adoptions of the orphan pods that arrived (each by the first matching ReplicaSet) and by the
   * ReplicaSets that arrived (each of the matching orphans), at most one per pod; then, for a
   * Terminating namespace, {@link NamespaceReconciler}'s deletes and finalization.
   */
  @Override
  public Result reconcile(String name, NamespaceView view, Expectations expectations, Instant now) {
    Set<String> adopted = new HashSet<>();
    List<Decision> decisions = new ArrayList<>();
    for (Pod pod : view.arrivedOrphans()) {
      for (Adopter adopter : view.replicaSets()) {
        if (adopts(adopter, pod)) {
          decisions.add(adoption(pod, adopter));
          adopted.add(pod.getMetadata().getName());
          break;
        }
      }
    }
    for (Adopter adopter : view.arrivedReplicaSets()) {
      for (Pod pod : view.orphans()) {
        if (adopts(adopter, pod) && adopted.add(pod.getMetadata().getName())) {
          decisions.add(adoption(pod, adopter));
        }
      }
    }
    decisions.addAll(
        Result.by(
            NAMESPACE_CONTROLLER, NamespaceReconciler.reconcile(view.namespace(), view.members())));
    Result result = Result.of(decisions, null);
    return view.arrivedOrphans().isEmpty() && view.arrivedReplicaSets().isEmpty()
        ? result
        : result.forgetting();
  }

  /** Forgets the orphan pods and ReplicaSets that asked for an adoption: it has been decided. */
  @Override
  public void forget(String name, ControllerCache cache) {
    for (String prefix : List.of(name + ADOPT_POD, name + ADOPT_BY_RS, name + ADOPT_BY_RC)) {
      cache.scan(prefix).forEach(entry -> cache.delete(entry.key));
    }
  }

  /** The namespace's ReplicaSets, then its ReplicationControllers, each in name order. */
  private static List<Adopter> adopters(ControllerCache cache, String namespace) {
    List<Adopter> adopters = new ArrayList<>();
    for (String prefix : OWNER_MEMBERS) {
      for (ResourceEvent event : cache.values(namespace + prefix)) {
        Adopter adopter = Adopter.of(KindObjects.of(event));
        if (adopter != null) {
          adopters.add(adopter);
        }
      }
    }
    return adopters;
  }

  private static boolean adopts(Adopter adopter, Pod pod) {
    ReplicaSet rs = adopter.rs();
    return rs.getMetadata().getDeletionTimestamp() == null
        && rs.getSpec() != null
        && ReplicaSetReconciler.matches(rs, pod);
  }

  private static Decision adoption(Pod pod, Adopter adopter) {
    return new Decision(
        Intent.update(
            "pods",
            "",
            ReplicaSetReconciler.adopt(pod, adopter.rs().getMetadata(), adopter.kind())),
        adopter.kind() == ReplicaSetReconciler.REPLICA_SET
            ? OwnerReconciler.REPLICASET_CONTROLLER
            : OwnerReconciler.REPLICATION_CONTROLLER);
  }

  private static <T> List<T> objects(List<ResourceEvent> events, Class<T> type) {
    List<T> objects = new ArrayList<>();
    for (ResourceEvent event : events) {
      if (type.isInstance(KindObjects.of(event))) {
        objects.add(type.cast(KindObjects.of(event)));
      }
    }
    return objects;
  }

  private static Namespace namespace(ControllerCache cache, String name) {
    ResourceEvent event = cache.get(name + NAMESPACE);
    return event == null ? null : (Namespace) KindObjects.of(event);
  }
}
