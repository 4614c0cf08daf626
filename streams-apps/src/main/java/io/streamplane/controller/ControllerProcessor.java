package io.streamplane.controller;

import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.DecodedObjects;
import io.streamplane.streams.WallClockTimer;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The one processor shell every {@link Controller} runs in, on the controller's re-keyed events:
 *
 * <ol>
 *   <li>an event is recorded in the controller's cache ({@link Controller#observe}), settles the
 *       key's pending writes it shows done, and queues the key if the controller asks;
 *   <li>right after the batch of input in hand, each queued key is reconciled once ({@link
 *       WorkQueue}): its view is read, its pending writes older than the controller's timeout are
 *       dropped, {@link Controller#reconcile} decides, and every decided write not already pending
 *       is forwarded as a command and recorded as pending ({@link Expectations});
 *   <li>the key is queued again for the earlier of the controller's {@link
 *       Controller.Result#requeueAt} and the expiry of its oldest pending write.
 * </ol>
 *
 * <p>The queue (with the due time of every key queued for later) and the expectations are state
 * stores, written in the transaction of the input or punctuation that changed them: a crash or a
 * rebalance neither loses a queued key nor forgets a write sent. The wall clock only ever takes due
 * keys off the queue; it decides nothing itself, and a task whose queue is empty is not punctuated
 * at all, so a converged cluster writes nothing.
 *
 * <p>Command ids derive from the input that queued the key (or from the due time, for a key queued
 * by time), so reprocessing the same input after a crash sends the same ids.
 */
final class ControllerProcessor<V>
    implements Processor<String, ResourceEvent, String, ResourceCommand> {

  /**
   * The objects each stream thread decoded, by encoding: a view is built from the same objects for
   * every reconcile of its key (a ReplicaSet's every pod), and the thread's controllers share them.
   */
  private static final ThreadLocal<DecodedObjects> DECODED =
      ThreadLocal.withInitial(() -> new DecodedObjects(8L << 20));

  private final Controller<V> controller;
  private ProcessorContext<String, ResourceCommand> context;
  private ControllerCache cache;
  private KeyValueStore<String, String> pending;
  private WorkQueue queue;
  private WallClockTimer resync;

  ControllerProcessor(Controller<V> controller) {
    this.controller = controller;
  }

  static String objectsStore(Controller<?> controller) {
    return controller.name() + "-objects";
  }

  static String queueStore(Controller<?> controller) {
    return controller.name() + "-queue";
  }

  static String expectationsStore(Controller<?> controller) {
    return controller.name() + "-expectations";
  }

  @Override
  public void init(ProcessorContext<String, ResourceCommand> context) {
    this.context = context;
    long startedAtMs = context.currentSystemTimeMs();
    this.cache =
        new ControllerCache(
            context,
            context.getStateStore(objectsStore(controller)),
            Instant.ofEpochMilli(startedAtMs));
    this.pending = context.getStateStore(expectationsStore(controller));
    this.queue =
        new WorkQueue(
            context,
            context.getStateStore(queueStore(controller)),
            controller.name(),
            this::reconcile);
    // Queued from the first punctuation rather than here: stores are written while processing.
    this.resync = new WallClockTimer(context, wallClockMs -> resync(startedAtMs));
    resync.at(startedAtMs);
  }

  private void resync(long startedAtMs) {
    List<String> keys = controller.resync(cache);
    for (String key : keys) {
      queue.add(key, 0, 0, "resync/" + key + "/" + startedAtMs);
    }
  }

  @Override
  public void close() {
    resync.cancel();
    queue.close();
  }

  @Override
  public void process(Record<String, ResourceEvent> record) {
    try (DecodedObjects.Scope decoding = DECODED.get().use()) {
      observe(record);
    }
  }

  private void observe(Record<String, ResourceEvent> record) {
    String key = record.key();
    ResourceEvent event = record.value();
    boolean queueIt = controller.observe(key, event, record.timestamp(), cache);
    ControllerStores.observe(pending, key, event);
    if (queueIt) {
      queue.add(key, 0, record.timestamp(), ControllerStores.seed(context, record));
    }
  }

  private void reconcile(WorkQueue.Item item, Instant now) {
    try (DecodedObjects.Scope decoding = DECODED.get().use()) {
      reconcileNow(item, now);
    }
  }

  private void reconcileNow(WorkQueue.Item item, Instant now) {
    String key = item.key();
    cache.takeReads();
    V view = controller.view(key, cache);
    ControllerStores.objectsRead(context, cache.takeReads());
    Expectations expectations = Expectations.decode(pending.get(key));
    expectations.expire(now.toEpochMilli(), controller.expectationTimeout());
    Controller.Result result = controller.reconcile(key, view, expectations, now);
    List<Controller.Decision> toSend =
        result.decisions().stream()
            .filter(decision -> !expectations.pending(decision.intent()))
            .toList();
    ControllerStores.forward(context, expectations, toSend, item.seed(), now);
    ControllerStores.save(pending, key, expectations);
    if (result.forget()) {
      controller.forget(key, cache);
    }
    long next = expectations.nextExpiry(controller.expectationTimeout());
    if (result.requeueAt() != null) {
      next = Math.min(next, result.requeueAt().toEpochMilli());
    }
    if (next != Long.MAX_VALUE) {
      queue.add(key, next, 0, "clock/" + key + "/" + next);
    }
  }
}
