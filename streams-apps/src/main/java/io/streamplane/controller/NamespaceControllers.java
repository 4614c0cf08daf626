package io.streamplane.controller;

import io.streamplane.api.Namespace;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.controller.namespace.NamespaceReconciler;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The controllers that need a whole namespace, keyed by namespace name and fed only what they need
 * ({@link ControllerRoutes#namespaceKey}): the namespace controller (a Terminating namespace is
 * emptied, then finalized) over the namespace's members, and ReplicaSet adoption over an index of
 * the namespace's ReplicaSets and orphan pods. Neither sees pod status changes, so a busy namespace
 * costs them one store write per creation and deletion.
 *
 * <p>Store layout: {@code <ns>/~ns} → the Namespace's last event; {@code <ns>/m/<target>} → each
 * member's creation (or deletion-marking) event; {@code <ns>/o/<pod>} → each orphan pod that may be
 * adopted. ReplicaSets are found among the members, their selectors being immutable.
 *
 * <p>Limits: a pod is adopted by the first matching ReplicaSet in name order; an adoption refused
 * by the store for another reason than a conflict is tried again when the pod next changes.
 */
final class NamespaceControllers
    implements Processor<String, ResourceEvent, String, ResourceCommand> {

  private static final UserInfo NAMESPACE_CONTROLLER =
      ControllerActors.serviceAccount("namespace-controller");
  private static final String NAMESPACE = "/~ns";

  private ProcessorContext<String, ResourceCommand> context;
  private KeyValueStore<String, ResourceEvent> objects;
  private KeyValueStore<String, String> pending;
  private WorkQueue queue;

  @Override
  public void init(ProcessorContext<String, ResourceCommand> context) {
    this.context = context;
    this.objects = context.getStateStore(ControllersTopology.NAMESPACE_OBJECTS);
    this.pending = context.getStateStore(ControllersTopology.NAMESPACE_EXPECTATIONS);
    this.queue =
        new WorkQueue(
            context,
            context.getStateStore(ControllersTopology.NAMESPACE_QUEUE),
            "namespace",
            this::reconcile);
  }

  @Override
  public void close() {
    queue.close();
  }

  @Override
  public void process(Record<String, ResourceEvent> record) {
    String namespace = record.key();
    ResourceEvent event = record.value();
    SpecificRecord object = (SpecificRecord) KindObjects.of(event);
    ObjectMeta meta = KubeObjects.meta(object);
    boolean deleted = event.getType() == EventType.DELETED;
    String seed = ControllerStores.seed(context, record);
    if (object instanceof Namespace) {
      if (deleted) {
        objects.delete(namespace + NAMESPACE);
      } else {
        objects.put(namespace + NAMESPACE, event);
      }
    } else {
      String member = namespace + "/m/" + ControllerStores.target(event);
      if (deleted) {
        objects.delete(member);
      } else if (event.getType() == EventType.ADDED || meta.getDeletionTimestamp() != null) {
        objects.put(member, event);
      }
      Instant now = Instant.ofEpochMilli(record.timestamp());
      if (object instanceof Pod pod) {
        indexOrphan(namespace, event, pod, now, seed + "/adopt");
      } else if (object instanceof ReplicaSet rs
          && event.getType() == EventType.ADDED
          && meta.getDeletionTimestamp() == null) {
        adoptOrphans(namespace, rs, now, seed + "/adopt");
      }
    }
    ControllerStores.observe(pending, namespace, event);
    if (NamespaceReconciler.terminating(namespace(namespace))) {
      queue.add(namespace, 0, record.timestamp(), seed);
    }
  }

  private void indexOrphan(
      String namespace, ResourceEvent event, Pod pod, Instant now, String seed) {
    String key = namespace + "/o/" + event.getName();
    ObjectMeta meta = pod.getMetadata();
    if (event.getType() == EventType.DELETED
        || meta.getDeletionTimestamp() != null
        || Owners.controllerOf(meta) != null) {
      objects.delete(key);
      return;
    }
    objects.put(key, event);
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan(namespace + "/m/replicasets.apps/", Serdes.String().serializer())) {
      while (it.hasNext()) {
        if (KindObjects.of(it.next().value) instanceof ReplicaSet rs && adopts(rs, pod)) {
          send(
              namespace,
              List.of(adoption(pod, rs)),
              OwnerReconciler.REPLICASET_CONTROLLER,
              now,
              seed);
          return;
        }
      }
    }
  }

  private void adoptOrphans(String namespace, ReplicaSet rs, Instant now, String seed) {
    List<Intent> adoptions = new ArrayList<>();
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan(namespace + "/o/", Serdes.String().serializer())) {
      while (it.hasNext()) {
        if (KindObjects.of(it.next().value) instanceof Pod pod && adopts(rs, pod)) {
          adoptions.add(adoption(pod, rs));
        }
      }
    }
    send(namespace, adoptions, OwnerReconciler.REPLICASET_CONTROLLER, now, seed);
  }

  private static boolean adopts(ReplicaSet rs, Pod pod) {
    return rs.getMetadata().getDeletionTimestamp() == null
        && rs.getSpec() != null
        && ReplicaSetReconciler.matches(rs, pod);
  }

  private static Intent adoption(Pod pod, ReplicaSet rs) {
    return Intent.update("pods", "", ReplicaSetReconciler.adopt(pod, rs.getMetadata()));
  }

  private void reconcile(WorkQueue.Item item, Instant now) {
    String namespace = item.key();
    List<ResourceEvent> members = new ArrayList<>();
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan(namespace + "/m/", Serdes.String().serializer())) {
      it.forEachRemaining(entry -> members.add(entry.value));
    }
    ControllerStores.objectsRead(context, members.size() + 1);
    Expectations expectations =
        send(
            namespace,
            NamespaceReconciler.reconcile(namespace(namespace), members),
            NAMESPACE_CONTROLLER,
            now,
            item.seed());
    if (expectations.nextExpiry() != Long.MAX_VALUE) {
      long next = expectations.nextExpiry();
      queue.add(namespace, next, 0, "clock/" + namespace + "/" + next);
    }
  }

  /** Sends what is not already pending, and records it as pending; returns the expectations. */
  private Expectations send(
      String namespace, List<Intent> intents, UserInfo actor, Instant now, String seed) {
    Expectations expectations = Expectations.decode(pending.get(namespace));
    expectations.expire(now.toEpochMilli());
    List<Controller.Decision> toSend =
        intents.stream()
            .filter(intent -> !expectations.pending(intent))
            .map(intent -> new Controller.Decision(intent, actor))
            .toList();
    ControllerStores.forward(context, expectations, toSend, seed, now);
    ControllerStores.save(pending, namespace, expectations);
    return expectations;
  }

  private Namespace namespace(String name) {
    ResourceEvent event = objects.get(name + NAMESPACE);
    return event == null ? null : (Namespace) KindObjects.of(event);
  }
}
