package io.streamplane.cli.replay;

import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The state the {@code events} log describes: for each key its last event, read as bytes in log
 * order; a key whose last event is DELETED is gone. Only the last event of each key is ever decoded
 * ({@link #state}), so folding costs a hash-map put per event, whatever the objects' size.
 *
 * <p>The same fold serves the store's changelog ({@link #addChangelog}): there a key's last record
 * is its state, and a tombstone removes it.
 */
final class EventFold {

  private final Map<String, KeyState> latest = new HashMap<>();
  private final Map<Integer, Long> highestResourceVersions = new ConcurrentHashMap<>();
  private long records;

  /** One record of {@code events}, in offset order within its partition. */
  void add(int partition, long offset, byte[] key, byte[] value) {
    records++;
    if (key == null || value == null) {
      return;
    }
    latest.put(
        new String(key, StandardCharsets.UTF_8), new KeyState(value, null, partition, offset));
  }

  /** One record of a changelog: a value is the key's state, a tombstone removes it. */
  void addChangelog(int partition, long offset, byte[] key, byte[] value) {
    records++;
    if (key == null) {
      return;
    }
    String k = new String(key, StandardCharsets.UTF_8);
    if (value == null) {
      latest.remove(k);
    } else {
      latest.put(k, new KeyState(value, null, partition, offset));
    }
  }

  /**
   * The folds of disjoint sets of partitions as one: a key lives in one partition, so no key is in
   * two of them.
   */
  static EventFold union(List<EventFold> folds) {
    EventFold union = new EventFold();
    for (EventFold fold : folds) {
      union.latest.putAll(fold.latest);
      union.records += fold.records;
    }
    return union;
  }

  /** Records folded so far. */
  long records() {
    return records;
  }

  /** Keys folded so far, with the key's last record (DELETED events included). */
  int keys() {
    return latest.size();
  }

  /**
   * The highest resourceVersion (the offset of the command that made it) among the last events of
   * the keys of {@code partition}, as {@link #state} decoded them; -1 when it has none. Every
   * command of the partition up to it had been decided by the store when it wrote those events.
   */
  long highestResourceVersion(int partition) {
    return highestResourceVersions.getOrDefault(partition, -1L);
  }

  /** The last states, without decoding them: what a changelog holds. */
  TreeMap<String, KeyState> raw() {
    return new TreeMap<>(latest);
  }

  /**
   * The objects that exist after the fold, by key, each last event decoded. Decoding is the costly
   * part and runs on every core: {@code decode} is called from several threads at once.
   */
  TreeMap<String, KeyState> state(Function<byte[], ResourceEvent> decode) {
    List<Map.Entry<String, KeyState>> survivors =
        latest.entrySet().parallelStream()
            .map(
                entry -> {
                  KeyState last = entry.getValue();
                  ResourceEvent event = decode.apply(last.bytes());
                  highestResourceVersions.merge(
                      last.partition(), event.getResourceVersion(), Math::max);
                  return event.getType() == EventType.DELETED || KindObjects.of(event) == null
                      ? null
                      : Map.entry(
                          entry.getKey(),
                          new KeyState(last.bytes(), event, last.partition(), last.offset()));
                })
            .filter(Objects::nonNull)
            .toList();
    TreeMap<String, KeyState> state = new TreeMap<>();
    survivors.forEach(e -> state.put(e.getKey(), e.getValue()));
    return state;
  }
}
