package io.streamplane.controller;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.Job;
import io.streamplane.api.Namespace;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicationController;
import io.streamplane.api.StatefulSet;
import io.streamplane.controller.daemon.DaemonSetController;
import io.streamplane.controller.daemon.DaemonSetReconciler;
import io.streamplane.controller.job.JobReconciler;
import io.streamplane.controller.namespace.NamespaceReconciler;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.controller.replication.ReplicationControllers;
import io.streamplane.controller.statefulset.StatefulSetController;
import io.streamplane.controller.statefulset.StatefulSetReconciler;
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
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;

/**
 * The controllers that need a whole namespace as one {@link Controller}, keyed by namespace name
 * and fed only what they need ({@link ControllerRoutes#namespaceKey}): the namespace controller (a
 * Terminating namespace is emptied, then finalized) over the namespace's members, and adoption
 * ({@link ControllerRefManager}) over an index of the namespace's owners — ReplicaSets,
 * ReplicationControllers, Jobs, DaemonSets, StatefulSets — and of its orphan pods and
 * ControllerRevisions. Neither sees pod status changes, so a busy namespace costs them one store
 * write per creation and deletion.
 *
 * <p>Cache layout: {@code <ns>/~ns} → the Namespace's last event; {@code <ns>/m/<target>} → each
 * member's creation (or deletion-marking) event; {@code <ns>/o/<pod>} and {@code <ns>/or/<name>} →
 * each orphan pod and ControllerRevision that may be adopted. Owners are found among the members,
 * their selectors (and a StatefulSet's name) being immutable. What arrived since the last reconcile
 * and asks for an adoption: {@code <ns>/a/pod/<pod>} and {@code <ns>/a/rev/<name>} → an orphan's
 * event (the first owner that matches adopts it), {@code <ns>/a/by/<target>} → a new owner's (it
 * adopts the matching orphans); a reconcile decides on them and forgets them.
 *
 * <p>Adoption is decided for what arrived, not for every orphan of the namespace at each reconcile:
 * a namespace of many pods without a controller (pods created by hand) would otherwise re-examine
 * all of them on each one's change. Releases are decided by each owner's controller, which sees
 * what it controls. Limits: an orphan is adopted by the first matching owner, ReplicaSets first,
 * then ReplicationControllers, Jobs, DaemonSets and StatefulSets, each in name order; an adoption
 * refused by the store for another reason than a conflict is tried again when the orphan next
 * changes; a DaemonSet adopts a matching pod whatever its node (as Kubernetes' does; its controller
 * then deletes a pod on a node that should not run it).
 */
final class NamespaceControllers implements Controller<NamespaceControllers.NamespaceView> {

  private static final UserInfo NAMESPACE_CONTROLLER =
      ControllerActors.serviceAccount("namespace-controller");
  private static final String NAMESPACE = "/~ns";
  private static final String ORPHAN_POD = "/o/";
  private static final String ORPHAN_REVISION = "/or/";
  private static final String ADOPT_POD = "/a/pod/";
  private static final String ADOPT_REVISION = "/a/rev/";
  private static final String ADOPT_BY = "/a/by/";
  private static final List<String> OWNER_MEMBERS =
      List.of(
          "/m/replicasets.apps/",
          "/m/replicationcontrollers./",
          "/m/jobs.batch/",
          "/m/daemonsets.apps/",
          "/m/statefulsets.apps/");

  /**
   * An owner as adoption sees it: its metadata, the kind its controller references name, who writes
   * its adoptions, what it claims of pods and of ControllerRevisions (null: none), and the
   * finalizers an adopted pod gets (a Job's tracking finalizer).
   */
  record Adopter(
      ObjectMeta owner,
      ControllerRefManager.OwnerKind kind,
      UserInfo actor,
      Predicate<Pod> pods,
      Predicate<ControllerRevision> revisions,
      String... finalizers) {

    static Adopter of(Object object) {
      if (object instanceof ReplicaSet rs && rs.getSpec() != null) {
        return new Adopter(
            rs.getMetadata(),
            ReplicaSetReconciler.REPLICA_SET,
            OwnerReconciler.REPLICASET_CONTROLLER,
            pod -> ReplicaSetReconciler.matches(rs, pod),
            null);
      }
      if (object instanceof ReplicationController rc && rc.getSpec() != null) {
        ReplicaSet rs = ReplicationControllers.asReplicaSet(rc);
        return new Adopter(
            rc.getMetadata(),
            ReplicationControllers.REPLICATION_CONTROLLER,
            OwnerReconciler.REPLICATION_CONTROLLER,
            pod -> ReplicaSetReconciler.matches(rs, pod),
            null);
      }
      if (object instanceof Job job && job.getSpec() != null) {
        return new Adopter(
            job.getMetadata(),
            JOB,
            JobReconciler.JOB_CONTROLLER,
            pod -> JobReconciler.matches(job, pod),
            null,
            JobReconciler.TRACKING_FINALIZER);
      }
      if (object instanceof DaemonSet ds && ds.getSpec() != null) {
        return new Adopter(
            ds.getMetadata(),
            DAEMON_SET,
            DaemonSetController.DAEMON_SET_CONTROLLER,
            pod -> DaemonSetReconciler.selects(ds, pod),
            revision -> DaemonSetReconciler.selects(ds, revision));
      }
      if (object instanceof StatefulSet set && set.getSpec() != null) {
        return new Adopter(
            set.getMetadata(),
            STATEFUL_SET,
            StatefulSetController.STATEFUL_SET_CONTROLLER,
            pod -> StatefulSetReconciler.claims(set, pod),
            revision -> StatefulSetReconciler.selects(set, revision));
      }
      return null;
    }

    boolean adopts(SpecificRecord orphan) {
      if (orphan instanceof Pod pod) {
        return ControllerRefManager.adopts(owner, pod, pods);
      }
      return orphan instanceof ControllerRevision revision
          && revisions != null
          && ControllerRefManager.adopts(owner, revision, revisions);
    }

    Decision adoption(SpecificRecord orphan) {
      return new Decision(ControllerRefManager.adoption(orphan, owner, kind, finalizers), actor);
    }
  }

  private static final ControllerRefManager.OwnerKind JOB =
      new ControllerRefManager.OwnerKind("batch/v1", "Job");
  private static final ControllerRefManager.OwnerKind DAEMON_SET =
      new ControllerRefManager.OwnerKind("apps/v1", "DaemonSet");
  private static final ControllerRefManager.OwnerKind STATEFUL_SET =
      new ControllerRefManager.OwnerKind("apps/v1", "StatefulSet");

  /**
   * What the namespace controllers know of one namespace: the Namespace (null if unseen or gone);
   * its members, read only while it is Terminating; the orphans that arrived since the last
   * reconcile with the namespace's owners (read only if there are such orphans); the owners that
   * arrived with the namespace's orphans (read only if there are such owners).
   */
  record NamespaceView(
      Namespace namespace,
      List<ResourceEvent> members,
      List<SpecificRecord> arrivedOrphans,
      List<Adopter> adopters,
      List<Adopter> arrivedAdopters,
      List<SpecificRecord> orphans) {}

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
      String target = ControllerStores.target(event);
      String member = namespace + "/m/" + target;
      if (deleted) {
        cache.delete(member);
      } else if (event.getType() == EventType.ADDED || meta.getDeletionTimestamp() != null) {
        cache.put(member, event);
      }
      if (object instanceof Pod || object instanceof ControllerRevision) {
        adopting = indexOrphan(cache, namespace, event, object);
      } else if (event.getType() == EventType.ADDED
          && meta.getDeletionTimestamp() == null
          && Adopter.of(object) != null) {
        cache.put(namespace + ADOPT_BY + target, event);
        adopting = true;
      }
    }
    return adopting || NamespaceReconciler.terminating(namespace(cache, namespace));
  }

  /**
   * Keeps an orphan pod or ControllerRevision, and asks for its adoption if an owner of the
   * namespace would adopt it (as Kubernetes' event handlers queue the owners that match); forgets
   * one no longer orphan. A pod created by hand that no owner matches costs a store write and a
   * look at the namespace's owners, and no reconcile.
   */
  private static boolean indexOrphan(
      ControllerCache cache, String namespace, ResourceEvent event, SpecificRecord object) {
    boolean pod = object instanceof Pod;
    String key = namespace + (pod ? ORPHAN_POD : ORPHAN_REVISION) + event.getName();
    String arrival = namespace + (pod ? ADOPT_POD : ADOPT_REVISION) + event.getName();
    ObjectMeta meta = KubeObjects.meta(object);
    if (event.getType() == EventType.DELETED
        || meta.getDeletionTimestamp() != null
        || Owners.controllerOf(meta) != null) {
      deleteIfPresent(cache, key);
      deleteIfPresent(cache, arrival);
      return false;
    }
    cache.put(key, event);
    boolean adoptable = adopters(cache, namespace).stream().anyMatch(a -> a.adopts(object));
    if (adoptable) {
      cache.put(arrival, event);
    } else {
      deleteIfPresent(cache, arrival);
    }
    return adoptable;
  }

  /** Deletes a key if it is there, without a tombstone for every pod event. */
  private static void deleteIfPresent(ControllerCache cache, String key) {
    if (cache.get(key) != null) {
      cache.delete(key);
    }
  }

  @Override
  public NamespaceView view(String name, ControllerCache cache) {
    Namespace namespace = namespace(cache, name);
    List<ResourceEvent> members =
        NamespaceReconciler.terminating(namespace) ? cache.values(name + "/m/") : List.of();
    List<SpecificRecord> arrivedOrphans = objects(cache, name + ADOPT_POD, name + ADOPT_REVISION);
    List<Adopter> adopters = arrivedOrphans.isEmpty() ? List.of() : adopters(cache, name);
    List<Adopter> arrivedAdopters = new ArrayList<>();
    for (ResourceEvent event : cache.values(name + ADOPT_BY)) {
      Adopter adopter = Adopter.of(KindObjects.of(event));
      if (adopter != null) {
        arrivedAdopters.add(adopter);
      }
    }
    List<SpecificRecord> orphans =
        arrivedAdopters.isEmpty()
            ? List.of()
            : objects(cache, name + ORPHAN_POD, name + ORPHAN_REVISION);
    return new NamespaceView(
        namespace, members, arrivedOrphans, adopters, arrivedAdopters, orphans);
  }

  /**
   * Adoptions of the orphans that arrived (each by the first matching owner) and by the owners that
   * arrived (each of the matching orphans), at most one per orphan; then, for a Terminating
   * namespace, {@link NamespaceReconciler}'s deletes and finalization.
   */
  @Override
  public Result reconcile(String name, NamespaceView view, Expectations expectations, Instant now) {
    Set<String> adopted = new HashSet<>();
    List<Decision> decisions = new ArrayList<>();
    for (SpecificRecord orphan : view.arrivedOrphans()) {
      for (Adopter adopter : view.adopters()) {
        if (adopter.adopts(orphan)) {
          decisions.add(adopter.adoption(orphan));
          adopted.add(identity(orphan));
          break;
        }
      }
    }
    for (Adopter adopter : view.arrivedAdopters()) {
      for (SpecificRecord orphan : view.orphans()) {
        if (adopter.adopts(orphan) && adopted.add(identity(orphan))) {
          decisions.add(adopter.adoption(orphan));
        }
      }
    }
    decisions.addAll(
        Result.by(
            NAMESPACE_CONTROLLER, NamespaceReconciler.reconcile(view.namespace(), view.members())));
    Result result = Result.of(decisions, null);
    return view.arrivedOrphans().isEmpty() && view.arrivedAdopters().isEmpty()
        ? result
        : result.forgetting();
  }

  private static String identity(SpecificRecord orphan) {
    return (orphan instanceof Pod ? "pod/" : "rev/") + KubeObjects.meta(orphan).getName();
  }

  /** Forgets the orphans and owners that asked for an adoption: it has been decided. */
  @Override
  public void forget(String name, ControllerCache cache) {
    for (String prefix : List.of(name + ADOPT_POD, name + ADOPT_REVISION, name + ADOPT_BY)) {
      cache.scan(prefix).forEach(entry -> cache.delete(entry.key));
    }
  }

  /** The namespace's owners, of the kinds in {@link #OWNER_MEMBERS}' order, each in name order. */
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

  private static List<SpecificRecord> objects(ControllerCache cache, String... prefixes) {
    List<SpecificRecord> objects = new ArrayList<>();
    for (String prefix : prefixes) {
      for (ResourceEvent event : cache.values(prefix)) {
        objects.add(KindObjects.of(event));
      }
    }
    return objects;
  }

  private static Namespace namespace(ControllerCache cache, String name) {
    ResourceEvent event = cache.get(name + NAMESPACE);
    return event == null ? null : (Namespace) KindObjects.of(event);
  }
}
