package io.streamplane.controller;

import io.streamplane.metrics.Workqueue;
import io.streamplane.streams.WallClockTimer;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The keys of one controller task waiting for a reconcile, as client-go's workqueue: adding a key
 * that is already queued does nothing more (so a burst of events for one ReplicaSet costs one
 * reconcile, not one per event), and a key may be queued for later (a rollout's progress deadline,
 * a pending write's expiry), like {@code AddAfter}.
 *
 * <p>The queue is kept in a state store as well as in memory: under exactly-once, a key marked
 * dirty commits with the input that dirtied it, so a crash between the input and its reconcile
 * loses nothing; the restored store is read back at start. The store is written when a key enters
 * or leaves the queue, not for every event that finds it queued.
 *
 * <p>A key reconciled less than {@link #SPACING} ago is due only once that has passed: events that
 * arrive meanwhile are coalesced into one reconcile. Drained after every batch of input, a
 * ReplicaSet of 1,000 pods being created was reconciled about twice per pod, each time over all of
 * them (1,987 reconciles of 13 ms in a 1,000-pod rollout); client-go's workqueue gets the same
 * coalescing from the time a reconcile takes, during which its key's events only mark it dirty.
 */
final class WorkQueue implements AutoCloseable {

  /** One queued key: when it is due, the newest input time, and the seed for command ids. */
  record Item(String key, long dueMs, long inputMs, String seed) {

    private String encode() {
      return dueMs + "|" + inputMs + "|" + seed;
    }

    private static Item decode(String key, String value) {
      String[] parts = value.split("\\|", 3);
      return new Item(key, Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts[2]);
    }
  }

  private static final Comparator<Item> BY_DUE =
      Comparator.comparingLong(Item::dueMs).thenComparing(Item::key);

  private final KeyValueStore<String, String> store;
  private final Map<String, Item> queued = new HashMap<>();
  private final TreeSet<Item> byDue = new TreeSet<>(BY_DUE);
  private final Workqueue metrics;
  private final Workqueue.Tracked depth;
  private final Map<String, Long> addedAt = new HashMap<>();

  /** When each key reconciled within the last {@link #SPACING} was, oldest first. */
  private final LinkedHashMap<String, Long> reconciledAt = new LinkedHashMap<>();

  /** The least time between two reconciles of a key. */
  static final long SPACING = 250;

  /** Reconciles one key taken off the queue, at {@code now}. */
  interface Reconcile {
    void reconcile(Item item, Instant now);
  }

  private final Reconcile reconcile;
  private final ProcessorContext<?, ?> context;
  private final WallClockTimer timer;

  /**
   * A queue kept in {@code store}, reported as client-go's workqueue metrics under {@code name},
   * whose due keys a {@link WallClockTimer} hands to {@code reconcile}: right after the batch of
   * input that queued them, or when they come due.
   */
  WorkQueue(
      ProcessorContext<?, ?> context,
      KeyValueStore<String, String> store,
      String name,
      Reconcile reconcile) {
    this.store = store;
    this.reconcile = reconcile;
    this.context = context;
    this.timer = new WallClockTimer(context, this::drain);
    this.metrics = Workqueue.named(name);
    this.depth = metrics.trackDepth(queued::size);
    try (KeyValueIterator<String, String> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, String> entry = it.next();
        Item item = Item.decode(entry.key, entry.value);
        queued.put(item.key(), item);
        byDue.add(item);
      }
    }
    timer.at(nextDue());
  }

  /**
   * Queues {@code key} to be reconciled at {@code dueMs} (or earlier, if it is queued for earlier
   * already), remembering the input time and id seed of the newest input.
   */
  void add(String key, long dueMs, long inputMs, String seed) {
    Long last = reconciledAt.get(key);
    if (last != null) {
      dueMs = Math.max(dueMs, last + SPACING);
    }
    Item current = queued.get(key);
    if (current == null) {
      addedAt.put(key, metrics.added());
      put(new Item(key, dueMs, inputMs, seed));
    } else if (dueMs < current.dueMs()) {
      byDue.remove(current);
      put(new Item(key, dueMs, Math.max(inputMs, current.inputMs()), seed));
    } else {
      if (inputMs > current.inputMs()) {
        // Only the in-memory copy: the input time refines "now" for the reconcile, and after a
        // restart the stored one is close enough.
        byDue.remove(current);
        Item refreshed = new Item(key, current.dueMs(), inputMs, seed);
        queued.put(key, refreshed);
        byDue.add(refreshed);
      }
      return;
    }
    // A timer already due fires at the next check: asking for "now" again must not put it off,
    // or keys arriving in every batch would keep the queue from being drained.
    timer.at(Math.max(dueMs, context.currentSystemTimeMs()));
  }

  private void put(Item item) {
    queued.put(item.key(), item);
    byDue.add(item);
    store.put(item.key(), item.encode());
  }

  /**
   * Reconciles every key due at {@code wallClockMs}, earliest first, each at the later of the wall
   * clock and its newest input's time; then waits for the next one due.
   */
  private void drain(long wallClockMs) {
    while (!byDue.isEmpty() && byDue.first().dueMs() <= wallClockMs) {
      Item item = byDue.pollFirst();
      queued.remove(item.key());
      store.delete(item.key());
      Long at = addedAt.remove(item.key());
      reconciledAt.remove(item.key());
      reconciledAt.put(item.key(), wallClockMs);
      try (Workqueue.Work work = at == null ? metrics.started() : metrics.started(at)) {
        reconcile.reconcile(item, Instant.ofEpochMilli(Math.max(wallClockMs, item.inputMs())));
      }
    }
    Iterator<Map.Entry<String, Long>> oldest = reconciledAt.entrySet().iterator();
    while (oldest.hasNext() && oldest.next().getValue() + SPACING <= wallClockMs) {
      oldest.remove();
    }
    timer.at(nextDue());
  }

  @Override
  public void close() {
    timer.cancel();
    depth.close();
  }

  /** When the earliest queued key is due, or {@code Long.MAX_VALUE} when none is queued. */
  long nextDue() {
    return byDue.isEmpty() ? Long.MAX_VALUE : byDue.first().dueMs();
  }

  int depth() {
    return queued.size();
  }
}
