package io.streamplane.controller.nodelifecycle;

import io.streamplane.api.Lease;
import io.streamplane.api.Node;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Taint;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.Intent;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.objects.ResourceKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The shell of the node lifecycle controller: events re-keyed by node name (the Node, its Lease in
 * {@code kube-node-lease}, the pods bound to it) kept in a state store, and a wall-clock punctuator
 * that every second runs {@link NodeLifecycleReconciler} over each node of the task and forwards
 * its intents as commands.
 *
 * <p>Store layout ({@link #OBJECTS}): {@code n/<node>} → the Node's last event, {@code l/<node>} →
 * its Lease's, {@code p/<node>/<namespace>/<pod>} → a running pod bound to it, reduced to what
 * eviction reads ({@link #routed}). {@link #TAINTS_SEEN}: {@code <node>/<key>=<value>:<effect>} →
 * when a NoExecute taint without {@code timeAdded} (one added by hand) was first seen, from the
 * event's timestamp, which is when its toleration seconds start counting.
 *
 * <p>Only the punctuator decides, since only the passing of time changes a node's health. It
 * remembers for {@link #REPEAT_AFTER} what it has sent, in memory, so that a decision whose effect
 * has not come back through the events yet is not sent every second; repeats would be harmless
 * (Conflicts, deletes of a pod already terminating, an Event that AlreadyExists), only noisy.
 */
public final class NodeLifecycleController
    implements Processor<String, ResourceEvent, String, ResourceCommand> {

  public static final String OBJECTS = "node-lifecycle-objects";
  public static final String TAINTS_SEEN = "node-lifecycle-taints-seen";
  static final Duration INTERVAL = Duration.ofSeconds(1);
  static final Duration REPEAT_AFTER = Duration.ofSeconds(10);
  private static final UserInfo NODE_CONTROLLER =
      ControllerActors.serviceAccount("node-controller");
  private static final UserInfo TAINT_EVICTION =
      ControllerActors.serviceAccount("taint-eviction-controller");

  private final NodeLifecycleConfig config;
  private final Map<String, Long> recentlySent = new HashMap<>();
  private ProcessorContext<String, ResourceCommand> context;
  private KeyValueStore<String, ResourceEvent> objects;
  private KeyValueStore<String, Long> taintsSeen;
  private Instant watchingSince;

  public NodeLifecycleController(NodeLifecycleConfig config) {
    this.config = config;
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
  public void init(ProcessorContext<String, ResourceCommand> context) {
    this.context = context;
    this.objects = context.getStateStore(OBJECTS);
    this.taintsSeen = context.getStateStore(TAINTS_SEEN);
    this.watchingSince = Instant.ofEpochMilli(context.currentSystemTimeMs());
    context.schedule(INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::onWallClock);
  }

  @Override
  public void process(Record<String, ResourceEvent> record) {
    String node = record.key();
    ResourceEvent event = record.value();
    boolean deleted = event.getType() == EventType.DELETED;
    if (KindObjects.of(event) instanceof Node n) {
      if (deleted) {
        objects.delete("n/" + node);
      } else {
        objects.put("n/" + node, event);
      }
      rememberTaints(node, deleted ? List.of() : NodeLifecycleReconciler.taints(n), record);
    } else if (KindObjects.of(event) instanceof Lease) {
      if (deleted) {
        objects.delete("l/" + node);
      } else {
        objects.put("l/" + node, event);
      }
    } else if (KindObjects.of(event) instanceof Pod pod) {
      String key = "p/" + node + "/" + event.getNamespace() + "/" + event.getName();
      if (deleted || !NodeLifecycleReconciler.running(pod)) {
        objects.delete(key);
      } else {
        objects.put(key, event);
      }
    }
  }

  /** Records when each NoExecute taint without timeAdded was first seen; forgets removed ones. */
  private void rememberTaints(String node, List<Taint> taints, Record<String, ResourceEvent> at) {
    Set<String> current = new HashSet<>();
    for (Taint taint : taints) {
      if (TaintEviction.NO_EXECUTE.equals(taint.getEffect()) && taint.getTimeAdded() == null) {
        String key = seenKey(node, taint);
        current.add(key);
        if (taintsSeen.get(key) == null) {
          taintsSeen.put(key, at.timestamp());
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

  private void onWallClock(long wallClockMs) {
    Instant now = Instant.ofEpochMilli(wallClockMs);
    recentlySent.values().removeIf(sent -> wallClockMs - sent >= REPEAT_AFTER.toMillis());
    List<Node> nodes = new ArrayList<>();
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan("n/", Serdes.String().serializer())) {
      it.forEachRemaining(entry -> nodes.add((Node) KindObjects.of(entry.value)));
    }
    for (Node node : nodes) {
      String name = node.getMetadata().getName();
      ResourceEvent leaseEvent = objects.get("l/" + name);
      Lease lease = leaseEvent == null ? null : (Lease) KindObjects.of(leaseEvent);
      boolean noExecute =
          NodeLifecycleReconciler.taints(node).stream()
              .anyMatch(t -> TaintEviction.NO_EXECUTE.equals(t.getEffect()));
      List<Pod> pods = noExecute ? pods(name) : List.of();
      NodeLifecycleReconciler.Decision decision =
          NodeLifecycleReconciler.reconcile(
              node, lease, pods, taint -> addedAt(name, taint), now, watchingSince, config);
      String seed = "node-lifecycle/" + name + "/" + wallClockMs;
      int index = 0;
      for (Intent intent : decision.node()) {
        send(intent, NODE_CONTROLLER, seed, index++, wallClockMs);
      }
      for (Intent intent : decision.evictions()) {
        send(intent, TAINT_EVICTION, seed, index++, wallClockMs);
      }
    }
  }

  private List<Pod> pods(String node) {
    List<Pod> pods = new ArrayList<>();
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan("p/" + node + "/", Serdes.String().serializer())) {
      while (it.hasNext()) {
        KeyValue<String, ResourceEvent> entry = it.next();
        pods.add((Pod) KindObjects.of(entry.value));
      }
    }
    return pods;
  }

  private Instant addedAt(String node, Taint taint) {
    if (taint.getTimeAdded() != null) {
      return taint.getTimeAdded();
    }
    Long seen = taintsSeen.get(seenKey(node, taint));
    return seen == null ? watchingSince : Instant.ofEpochMilli(seen);
  }

  private void send(Intent intent, UserInfo actor, String seed, int index, long wallClockMs) {
    String version =
        intent.object() == null ? "" : KubeObjects.meta(intent.object()).getResourceVersion();
    String identity =
        intent.verb()
            + "/"
            + intent.resource()
            + "/"
            + intent.namespace()
            + "/"
            + intent.name()
            + "@"
            + (intent.preconditions() == null ? version : intent.preconditions().getUid());
    if (recentlySent.putIfAbsent(identity, wallClockMs) != null) {
      return;
    }
    String id =
        UUID.nameUUIDFromBytes((seed + "/" + index).getBytes(StandardCharsets.UTF_8)).toString();
    ResourceCommand command = intent.toCommand(id, actor);
    context.forward(new Record<>(ResourceKey.of(command).toString(), command, wallClockMs));
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
