package io.streamplane.controller.daemon;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.Node;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;

/**
 * Kubernetes' DaemonSet controller as one {@link Controller}, keyed by shard: a DaemonSet, its pods
 * and its ControllerRevisions go to the shard of the DaemonSet's uid (one of {@link #SHARDS}), and
 * every Node goes to every shard, reduced to its name, labels and taints. So a task sees each of
 * its DaemonSets with exactly its pods and every node, as kube-controller-manager's DaemonSet
 * controller reads its node informer; DaemonSets spread over the partitions of the re-keyed topic
 * whatever their namespace. A node change that leaves its labels and taints alone (a heartbeat, a
 * status) queues nothing.
 *
 * <p>Cache layout, under the shard {@code <s>}: {@code <s>/n/<node>} → the node's reduced event,
 * {@code <s>/d/<uid>} → a DaemonSet's, {@code <s>/p/<uid>/<namespace>/<pod>} → each pod it controls
 * (whole, since releasing one is an update of the whole pod), {@code <s>/r/<uid>/<name>} → each of
 * its ControllerRevisions.
 *
 * <p>A reconcile decides for every DaemonSet of its shard ({@link DaemonSetReconciler}); one whose
 * pod creates or deletes are still pending only revises its status, so a view that lags behind its
 * own writes never deletes beyond maxUnavailable. Cost: a reconcile reads the shard's DaemonSets,
 * their pods and revisions, and every node; the nodes are held once per shard.
 */
public final class DaemonSetController implements Controller<DaemonSetController.ShardView> {

  /** How many keys the DaemonSets spread over; every node is copied to each. */
  public static final int SHARDS = 16;

  public static final UserInfo DAEMON_SET_CONTROLLER =
      ControllerActors.serviceAccount("daemon-set-controller");

  /** One DaemonSet of a shard with what it controls. */
  public record Owned(DaemonSet daemonSet, List<Pod> pods, List<ControllerRevision> revisions) {}

  /** What the controller knows of one shard: every node, and the shard's DaemonSets. */
  public record ShardView(SortedMap<String, Node> nodes, List<Owned> daemonSets) {}

  @Override
  public String name() {
    return "daemonset";
  }

  /** The shard of a DaemonSet's uid: two digits, spread by the uid's hash. */
  public static String shardOf(String uid) {
    return String.format("%02d", Math.floorMod(uid.hashCode(), SHARDS));
  }

  private static final List<String> ALL_SHARDS =
      IntStream.range(0, SHARDS).mapToObj(i -> String.format("%02d", i)).toList();

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    if (object instanceof Node) {
      return ALL_SHARDS;
    }
    if (object instanceof DaemonSet ds) {
      return ds.getMetadata().getUid() == null
          ? List.of()
          : List.of(shardOf(ds.getMetadata().getUid()));
    }
    if (object instanceof Pod || object instanceof ControllerRevision) {
      Set<String> keys = new LinkedHashSet<>();
      String owner = daemonSetOf(Owners.refs(KubeObjects.meta(object)));
      if (owner != null) {
        keys.add(shardOf(owner));
      }
      String before = event.getOwnersBefore() == null ? null : daemonSetOf(event.getOwnersBefore());
      if (before != null) {
        keys.add(shardOf(before));
      }
      return new ArrayList<>(keys);
    }
    return List.of();
  }

  /** The uid of the DaemonSet a controller reference names, or null. */
  static String daemonSetOf(List<OwnerReference> refs) {
    OwnerReference controller = Owners.controllerOf(refs);
    return controller != null
            && "DaemonSet".equals(controller.getKind())
            && controller.getApiVersion() != null
            && controller.getApiVersion().startsWith("apps/")
        ? controller.getUid()
        : null;
  }

  @Override
  public ResourceEvent reduce(ResourceEvent event) {
    // Pods are kept whole: releasing one is an update of the whole pod.
    if (!(KindObjects.of(event) instanceof Node node)) {
      return event;
    }
    return ResourceEvent.newBuilder(event)
        .setEncodedObject(KindObjects.encode(reduced(node)))
        .build();
  }

  /** A node as eligibility reads it: name, labels, taints. */
  static Node reduced(Node node) {
    ObjectMeta meta = node.getMetadata();
    return Node.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(meta.getName())
                .setUid(meta.getUid())
                .setResourceVersion(meta.getResourceVersion())
                .setLabels(meta.getLabels())
                .build())
        .setSpec(
            node.getSpec() == null
                ? null
                : NodeSpec.newBuilder().setTaints(node.getSpec().getTaints()).build())
        .build();
  }

  @Override
  public boolean observe(
      String shard, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = KindObjects.of(event);
    boolean deleted = event.getType() == EventType.DELETED;
    if (object instanceof Node node) {
      String key = shard + "/n/" + event.getName();
      ResourceEvent cached = cache.get(key);
      if (deleted) {
        cache.delete(key);
        return cached != null;
      }
      if (cached != null && sameForEligibility((Node) KindObjects.of(cached), node)) {
        return false;
      }
      cache.put(key, event);
      return true;
    }
    if (object instanceof DaemonSet ds) {
      String key = shard + "/d/" + ds.getMetadata().getUid();
      if (deleted) {
        cache.delete(key);
      } else {
        cache.put(key, event);
      }
      return true;
    }
    ObjectMeta meta = KubeObjects.meta(object);
    String kind = object instanceof Pod ? "/p/" : "/r/";
    String owner = daemonSetOf(Owners.refs(meta));
    String before = event.getOwnersBefore() == null ? null : daemonSetOf(event.getOwnersBefore());
    if (before != null && !before.equals(owner)) {
      cache.delete(shard + kind + before + "/" + qualified(event, object));
    }
    if (owner != null && shard.equals(shardOf(owner))) {
      String key = shard + kind + owner + "/" + qualified(event, object);
      if (deleted) {
        cache.delete(key);
      } else {
        cache.put(key, event);
      }
    }
    return true;
  }

  private static String qualified(ResourceEvent event, SpecificRecord object) {
    return object instanceof Pod ? event.getNamespace() + "/" + event.getName() : event.getName();
  }

  private static boolean sameForEligibility(Node a, Node b) {
    return java.util.Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())
        && sameTaints(taints(a), taints(b));
  }

  private static List<io.streamplane.api.Taint> taints(Node node) {
    return node.getSpec() == null || node.getSpec().getTaints() == null
        ? List.of()
        : node.getSpec().getTaints();
  }

  /** Taint by taint, their {@code timeAdded} compared as times (Avro's own equals cannot). */
  private static boolean sameTaints(
      List<io.streamplane.api.Taint> a, List<io.streamplane.api.Taint> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!KubeObjects.same(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public ShardView view(String shard, ControllerCache cache) {
    SortedMap<String, Node> nodes = new TreeMap<>();
    Map<String, DaemonSet> daemonSets = new LinkedHashMap<>();
    Map<String, List<Pod>> pods = new LinkedHashMap<>();
    Map<String, List<ControllerRevision>> revisions = new LinkedHashMap<>();
    for (KeyValue<String, ResourceEvent> entry : cache.scan(shard + "/")) {
      String rest = entry.key.substring(shard.length() + 1);
      SpecificRecord object = KindObjects.of(entry.value);
      String[] parts = rest.split("/", 3);
      switch (parts[0]) {
        case "n" -> nodes.put(parts[1], (Node) object);
        case "d" -> daemonSets.put(parts[1], (DaemonSet) object);
        case "p" -> pods.computeIfAbsent(parts[1], u -> new ArrayList<>()).add((Pod) object);
        case "r" ->
            revisions
                .computeIfAbsent(parts[1], u -> new ArrayList<>())
                .add((ControllerRevision) object);
        default -> {}
      }
    }
    List<Owned> owned = new ArrayList<>();
    daemonSets.forEach(
        (uid, ds) ->
            owned.add(
                new Owned(
                    ds,
                    pods.getOrDefault(uid, List.of()),
                    revisions.getOrDefault(uid, List.of()))));
    return new ShardView(nodes, owned);
  }

  /**
   * {@link DaemonSetReconciler}'s decisions for each DaemonSet of the shard, as the
   * daemon-set-controller, and the earliest moment time alone changes one of them.
   */
  @Override
  public Result reconcile(String shard, ShardView view, Expectations expectations, Instant now) {
    List<Decision> decisions = new ArrayList<>();
    Instant requeueAt = null;
    for (Owned owned : view.daemonSets()) {
      ObjectMeta meta = owned.daemonSet().getMetadata();
      boolean manage =
          !expectations.creatingOrDeleting("pods", "", meta.getNamespace(), meta.getName() + "-");
      DaemonSetReconciler.Decision decision =
          DaemonSetReconciler.reconcile(
              owned.daemonSet(),
              view.nodes(),
              owned.pods(),
              owned.revisions(),
              manage,
              expectations.room(),
              now);
      decisions.addAll(Result.by(DAEMON_SET_CONTROLLER, decision.intents()));
      if (decision.requeueAt() != null
          && (requeueAt == null || decision.requeueAt().isBefore(requeueAt))) {
        requeueAt = decision.requeueAt();
      }
    }
    return Result.of(decisions, requeueAt);
  }
}
