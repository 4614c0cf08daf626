package io.streamplane.controller;

import io.streamplane.log.ResourceEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * What one controller task keeps of the events, as client-go's informer cache: a state store of
 * events under keys the controller chooses (by convention {@code <key>/...}, so that a view is one
 * prefix scan), the controller's other stores, and the moment the task started watching.
 *
 * <p>Counts the objects read, so that the work of building a view is measured the same way for
 * every controller ({@code objects-read-total}). Used from the task's thread only.
 */
public final class ControllerCache {

  private final ProcessorContext<?, ?> context;
  private final KeyValueStore<String, ResourceEvent> objects;
  private final Instant startedAt;
  private int reads;

  ControllerCache(
      ProcessorContext<?, ?> context,
      KeyValueStore<String, ResourceEvent> objects,
      Instant startedAt) {
    this.context = context;
    this.objects = objects;
    this.startedAt = startedAt;
  }

  /** The event kept under {@code key}, or null. */
  public ResourceEvent get(String key) {
    ResourceEvent event = objects.get(key);
    if (event != null) {
      reads++;
    }
    return event;
  }

  public void put(String key, ResourceEvent event) {
    objects.put(key, event);
  }

  public void delete(String key) {
    objects.delete(key);
  }

  /**
   * Keeps {@code event} under {@code key}, or forgets the key when {@code event} is null — without
   * a store write when there is nothing to forget.
   */
  public void putOrDelete(String key, ResourceEvent event) {
    if (event != null) {
      put(key, event);
    } else if (get(key) != null) {
      delete(key);
    }
  }

  /** The entries whose keys start with {@code prefix}, in key order. */
  public List<KeyValue<String, ResourceEvent>> scan(String prefix) {
    List<KeyValue<String, ResourceEvent>> entries = new ArrayList<>();
    // An in-memory store cannot scan the empty prefix (it has no upper bound); all() is the same.
    try (KeyValueIterator<String, ResourceEvent> it =
        prefix.isEmpty()
            ? objects.all()
            : objects.prefixScan(prefix, Serdes.String().serializer())) {
      it.forEachRemaining(entries::add);
    }
    reads += entries.size();
    return entries;
  }

  /** The events kept under keys that start with {@code prefix}, in key order. */
  public List<ResourceEvent> values(String prefix) {
    return scan(prefix).stream().map(entry -> entry.value).toList();
  }

  /** One of the stores the controller declared in {@link Controller#stores}. */
  public <S extends StateStore> S store(String name) {
    return context.getStateStore(name);
  }

  /** When this task started watching: wall-clock time at its start. */
  public Instant startedAt() {
    return startedAt;
  }

  /** The objects read since the last call. */
  int takeReads() {
    int taken = reads;
    reads = 0;
    return taken;
  }
}
