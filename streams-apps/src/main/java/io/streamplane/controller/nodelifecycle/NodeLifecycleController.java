package io.streamplane.controller.nodelifecycle;

import io.streamplane.api.Lease;
import io.streamplane.api.Node;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Taint;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Kubernetes' node lifecycle and taint-eviction controllers as one {@link Controller} keyed by node
 * name: the Node, its Lease in {@code kube-node-lease} and the pods bound to it are kept in its
 * cache, and each node is reconciled by {@link NodeLifecycleReconciler} when one of them changes
 * and again when only time can change the answer — when the node has gone a grace period unheard
 * from, when a pod's toleration of its NoExecute taints runs out ({@link
 * NodeLifecycleReconciler#recheckAt}).
 *
 * <p>Cache layout: {@code n/<node>} → the Node's last event, {@code l/<node>} → its Lease's, {@code
 * p/<node>/<namespace>/<pod>} → a running pod bound to it, reduced to what eviction reads ({@link
 * #routed}). {@link #TAINTS_SEEN}: {@code <node>/<key>=<value>:<effect>} → when a NoExecute taint
 * without {@code timeAdded} (one added by hand) was first seen, from the event's timestamp, which
 * is when its toleration seconds start counting.
 *
 * <p>A node is heard from no earlier than when its task started ({@link
 * ControllerCache#startedAt}), and every node is reconciled when a task starts ({@link #resync}): a
 * controller that was down does not condemn the whole fleet at once, and a node that went silent
 * meanwhile is still looked at. A write sent is not sent again for {@link #REPEAT_AFTER} unless the
 * events show it done; repeats would be harmless (Conflicts, deletes of a pod already terminating,
 * an Event that AlreadyExists), only noisy.
 */
public final class NodeLifecycleController implements Controller<NodeLifecycleController.NodeView> {

  public static final String TAINTS_SEEN = "node-lifecycle-taints-seen";
  static final Duration REPEAT_AFTER = Duration.ofSeconds(10);
  private static final UserInfo NODE_CONTROLLER =
      ControllerActors.serviceAccount("node-controller");
  private static final UserInfo TAINT_EVICTION =
      ControllerActors.serviceAccount("taint-eviction-controller");

  /**
   * What the controller knows of one node: the Node (null if unseen or deleted), its Lease, the
   * running pods bound to it (read only while it has NoExecute taints), when each NoExecute taint
   * without timeAdded was first seen, and when the task started watching.
   */
  public record NodeView(
      Node node,
      Lease lease,
      List<Pod> pods,
      Map<String, Instant> taintsFirstSeen,
      Instant watchingSince) {}

  private final NodeLifecycleConfig config;

  public NodeLifecycleController(NodeLifecycleConfig config) {
    this.config = config;
  }

  @Override
  public String name() {
    return "node-lifecycle";
  }

  @Override
  public String rekeyedAs() {
    return "node-lifecycle-by-node";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    String node = nodeOf(event);
    return node == null ? List.of() : List.of(node);
  }

  @Override
  public ResourceEvent reduce(ResourceEvent event) {
    return routed(event);
  }

  /**
   * The node an event concerns: a Node's own name, a node Lease's name, a bound pod's node; else
   * null.
   */
  public static String nodeOf(ResourceEvent event) {
    Object object = KindObjects.of(event);
    if (object instanceof Node) {
      return event.getName();
    }
    if (object instanceof Lease && "kube-node-lease".equals(event.getNamespace())) {
      return event.getName();
    }
    if (object instanceof Pod pod && pod.getSpec() != null) {
      return pod.getSpec().getNodeName();
    }
    return null;
  }

  /** The event as this controller needs it: pods reduced to what eviction reads. */
  public static ResourceEvent routed(ResourceEvent event) {
    if (!(KindObjects.of(event) instanceof Pod pod)) {
      return event;
    }
    ObjectMeta meta = pod.getMetadata();
    Pod reduced =
        Pod.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName(meta.getName())
                    .setNamespace(meta.getNamespace())
                    .setUid(meta.getUid())
                    .setResourceVersion(meta.getResourceVersion())
                    .setDeletionTimestamp(meta.getDeletionTimestamp())
                    .build())
            .setSpec(
                PodSpec.newBuilder()
                    .setNodeName(pod.getSpec().getNodeName())
                    .setTolerations(pod.getSpec().getTolerations())
                    .build())
            .setStatus(
                pod.getStatus() == null
                    ? null
                    : PodStatus.newBuilder().setPhase(pod.getStatus().getPhase()).build())
            .build();
    return ResourceEvent.newBuilder(event).setEncodedObject(KindObjects.encode(reduced)).build();
  }

  @Override
  public boolean observe(
      String node, ResourceEvent event, long timestampMs, ControllerCache cache) {
    boolean deleted = event.getType() == EventType.DELETED;
    if (KindObjects.of(event) instanceof Node n) {
      if (deleted) {
        cache.delete("n/" + node);
      } else {
        cache.put("n/" + node, event);
      }
      rememberTaints(
          cache.store(TAINTS_SEEN),
          node,
          deleted ? List.of() : NodeLifecycleReconciler.taints(n),
          timestampMs);
    } else if (KindObjects.of(event) instanceof Lease) {
      if (deleted) {
        cache.delete("l/" + node);
      } else {
        cache.put("l/" + node, event);
      }
    } else if (KindObjects.of(event) instanceof Pod pod) {
      String key = "p/" + node + "/" + event.getNamespace() + "/" + event.getName();
      if (deleted || !NodeLifecycleReconciler.running(pod)) {
        cache.delete(key);
      } else {
        cache.put(key, event);
      }
    }
    return true;
  }

  /** Records when each NoExecute taint without timeAdded was first seen; forgets removed ones. */
  private static void rememberTaints(
      KeyValueStore<String, Long> taintsSeen, String node, List<Taint> taints, long atMs) {
    Set<String> current = new HashSet<>();
    for (Taint taint : taints) {
      if (TaintEviction.NO_EXECUTE.equals(taint.getEffect()) && taint.getTimeAdded() == null) {
        String key = seenKey(node, taint);
        current.add(key);
        if (taintsSeen.get(key) == null) {
          taintsSeen.put(key, atMs);
        }
      }
    }
    List<String> gone = new ArrayList<>();
    try (KeyValueIterator<String, Long> it =
        taintsSeen.prefixScan(node + "/", Serdes.String().serializer())) {
      it.forEachRemaining(
          entry -> {
            if (!current.contains(entry.key)) {
              gone.add(entry.key);
            }
          });
    }
    gone.forEach(taintsSeen::delete);
  }

  @Override
  public NodeView view(String name, ControllerCache cache) {
    ResourceEvent nodeEvent = cache.get("n/" + name);
    if (nodeEvent == null) {
      return new NodeView(null, null, List.of(), Map.of(), cache.startedAt());
    }
    Node node = (Node) KindObjects.of(nodeEvent);
    ResourceEvent leaseEvent = cache.get("l/" + name);
    Lease lease = leaseEvent == null ? null : (Lease) KindObjects.of(leaseEvent);
    boolean noExecute =
        NodeLifecycleReconciler.taints(node).stream()
            .anyMatch(t -> TaintEviction.NO_EXECUTE.equals(t.getEffect()));
    List<Pod> pods = new ArrayList<>();
    if (noExecute) {
      cache.values("p/" + name + "/").forEach(event -> pods.add((Pod) KindObjects.of(event)));
    }
    Map<String, Instant> firstSeen = new HashMap<>();
    KeyValueStore<String, Long> taintsSeen = cache.store(TAINTS_SEEN);
    try (KeyValueIterator<String, Long> it =
        taintsSeen.prefixScan(name + "/", Serdes.String().serializer())) {
      while (it.hasNext()) {
        KeyValue<String, Long> entry = it.next();
        firstSeen.put(entry.key, Instant.ofEpochMilli(entry.value));
      }
    }
    return new NodeView(node, lease, pods, firstSeen, cache.startedAt());
  }

  /**
   * {@link NodeLifecycleReconciler}'s decision for the node — its status or taints as the
   * node-controller, evictions as the taint-eviction-controller — and the next moment time alone
   * can change it.
   */
  @Override
  public Result reconcile(String name, NodeView view, Expectations expectations, Instant now) {
    if (view.node() == null) {
      return Result.nothing();
    }
    Function<Taint, Instant> addedAt =
        taint ->
            taint.getTimeAdded() != null
                ? taint.getTimeAdded()
                : view.taintsFirstSeen().getOrDefault(seenKey(name, taint), view.watchingSince());
    NodeLifecycleReconciler.Decision decision =
        NodeLifecycleReconciler.reconcile(
            view.node(), view.lease(), view.pods(), addedAt, now, view.watchingSince(), config);
    List<Decision> decisions = new ArrayList<>(Result.by(NODE_CONTROLLER, decision.node()));
    decisions.addAll(Result.by(TAINT_EVICTION, decision.evictions()));
    return Result.of(
        decisions,
        NodeLifecycleReconciler.recheckAt(
            view.node(), view.lease(), view.pods(), addedAt, now, view.watchingSince(), config));
  }

  /** Every node: each is given a full grace period from the task's start, then looked at. */
  @Override
  public List<String> resync(ControllerCache cache) {
    return cache.scan("n/").stream().map(entry -> entry.key.substring("n/".length())).toList();
  }

  @Override
  public Duration expectationTimeout() {
    return REPEAT_AFTER;
  }

  @Override
  public List<StoreBuilder<?>> stores(Function<String, KeyValueBytesStoreSupplier> supplier) {
    return List.of(
        Stores.keyValueStoreBuilder(supplier.apply(TAINTS_SEEN), Serdes.String(), Serdes.Long()));
  }

  private static String seenKey(String node, Taint taint) {
    return node
        + "/"
        + taint.getKey()
        + "="
        + (taint.getValue() == null ? "" : taint.getValue())
        + ":"
        + taint.getEffect();
  }
}
