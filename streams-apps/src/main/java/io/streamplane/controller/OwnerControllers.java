package io.streamplane.controller;

import io.streamplane.api.ObjectMeta;
import io.streamplane.controller.gc.GarbageCollector;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The shell of the controllers keyed by owner uid (see {@link ControllerRoutes}): keeps each owner
 * and its dependents in a state store, queues the owner's key on every change, and reconciles each
 * queued key once per batch of input ({@link WorkQueue}) through {@link OwnerReconciler},
 * forwarding its decisions as commands and remembering them as {@link Expectations}.
 *
 * <p>Store layout: {@code <uid>/~self} → the owner's last event (a DELETED event once it is gone,
 * kept {@link #REMEMBER_DELETED} after its last dependent, since a dependent created just before
 * the deletion can arrive after it); {@code <uid>/~orphan} → set when the owner was deleted with
 * the Orphan policy; {@code <uid>/<resource>.<group>/<namespace>/<name>} → each dependent's last
 * event.
 *
 * <p>The work of one event is bounded by its owner's dependents, not by its namespace; a key whose
 * view did not change is not reconciled again; and a converged cluster queues nothing, so the
 * controllers write nothing at rest.
 */
final class OwnerControllers implements Processor<String, ResourceEvent, String, ResourceCommand> {

  static final Duration REMEMBER_DELETED = Duration.ofMinutes(10);
  private static final String SELF = "/~self";
  private static final String ORPHAN = "/~orphan";

  private ProcessorContext<String, ResourceCommand> context;
  private KeyValueStore<String, ResourceEvent> objects;
  private KeyValueStore<String, String> pending;
  private WorkQueue queue;

  @Override
  public void init(ProcessorContext<String, ResourceCommand> context) {
    this.context = context;
    this.objects = context.getStateStore(ControllersTopology.OWNER_OBJECTS);
    this.pending = context.getStateStore(ControllersTopology.OWNER_EXPECTATIONS);
    this.queue =
        new WorkQueue(
            context,
            context.getStateStore(ControllersTopology.OWNER_QUEUE),
            "owner",
            this::reconcile);
  }

  @Override
  public void close() {
    queue.close();
  }

  @Override
  public void process(Record<String, ResourceEvent> record) {
    String uid = record.key();
    ResourceEvent event = record.value();
    SpecificRecord object = (SpecificRecord) KindObjects.of(event);
    ObjectMeta meta = KubeObjects.meta(object);
    if (uid.equals(meta.getUid())) {
      if (event.getType() == EventType.DELETED) {
        objects.put(uid + SELF, ControllerStores.deletedAt(event, record.timestamp()));
      } else {
        objects.put(uid + SELF, event);
        if (GarbageCollector.orphaning(object)) {
          objects.put(uid + ORPHAN, event);
        }
      }
    } else {
      String key = uid + "/" + ControllerStores.target(event);
      boolean refers = Owners.refs(meta).stream().anyMatch(ref -> uid.equals(ref.getUid()));
      if (event.getType() == EventType.DELETED || !refers) {
        objects.delete(key);
      } else {
        objects.put(key, event);
      }
    }
    ControllerStores.observe(pending, uid, event);
    queue.add(uid, 0, record.timestamp(), ControllerStores.seed(context, record));
  }

  private void reconcile(WorkQueue.Item item, Instant now) {
    String uid = item.key();
    OwnerView view = view(uid);
    Expectations expectations = Expectations.decode(pending.get(uid));
    expectations.expire(now.toEpochMilli());
    OwnerReconciler.Result result = OwnerReconciler.reconcile(view, expectations, now);
    ControllerStores.forward(context, expectations, result.decisions(), item.seed(), now);
    ControllerStores.save(pending, uid, expectations);
    long next = Math.min(expectations.nextExpiry(), forgetOrRemember(view, now));
    if (result.requeueAt() != null) {
      next = Math.min(next, result.requeueAt().toEpochMilli());
    }
    if (next != Long.MAX_VALUE) {
      queue.add(uid, next, 0, "clock/" + uid + "/" + next);
    }
  }

  /**
   * Forgets a deleted owner nothing refers to any more once {@link #REMEMBER_DELETED} has passed;
   * returns when to look again, or {@code Long.MAX_VALUE}.
   */
  private long forgetOrRemember(OwnerView view, Instant now) {
    if (!view.ownerDeleted() || !view.dependents().isEmpty()) {
      return Long.MAX_VALUE;
    }
    Instant deleted =
        KubeObjects.meta((SpecificRecord) KindObjects.of(view.owner())).getDeletionTimestamp();
    Instant forgetAt = (deleted == null ? now : deleted).plus(REMEMBER_DELETED);
    if (!forgetAt.isAfter(now)) {
      objects.delete(view.uid() + SELF);
      objects.delete(view.uid() + ORPHAN);
      return Long.MAX_VALUE;
    }
    return forgetAt.toEpochMilli();
  }

  private OwnerView view(String uid) {
    ResourceEvent owner = null;
    boolean orphaning = false;
    List<ResourceEvent> dependents = new ArrayList<>();
    try (KeyValueIterator<String, ResourceEvent> it =
        objects.prefixScan(uid + "/", Serdes.String().serializer())) {
      while (it.hasNext()) {
        KeyValue<String, ResourceEvent> entry = it.next();
        if (entry.key.equals(uid + SELF)) {
          owner = entry.value;
        } else if (entry.key.equals(uid + ORPHAN)) {
          orphaning = true;
        } else {
          dependents.add(entry.value);
        }
      }
    }
    ControllerStores.objectsRead(context, dependents.size() + 1);
    return new OwnerView(uid, owner, orphaning, dependents);
  }
}
