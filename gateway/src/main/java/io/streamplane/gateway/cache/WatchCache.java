package io.streamplane.gateway.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.topics.Topics;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway's view of the cluster: every object, as Kubernetes JSON, materialized from {@code
 * events} (read_committed, so only what the store committed), plus a window of recent changes for
 * watches to resume from.
 *
 * <p>Consistency: {@link #catchUpWithLog} waits until the cache has read past everything written to
 * {@code events} at the time of the call, so a read that follows any acknowledged write — from any
 * gateway — sees it. The store writes the event before committing the transaction that also holds
 * the acknowledging result, but the commit markers reach the partitions one by one: the result can
 * be readable while the event's partition still ends in an open transaction. So the target is each
 * partition's high watermark, not its last stable offset, and the wait includes the few
 * milliseconds until a transaction open at the time of the call is resolved.
 *
 * <p>A cache built with an upper bound ({@code until}, one offset per partition) is the cluster as
 * it was at that cut: it applies only the records below the bound of their partition, and {@link
 * #catchUpWithLog} waits for the end of the log or the bound, whichever is lower.
 *
 * <p>Limits: the whole state is held in memory and rebuilt from the start of {@code events} when a
 * gateway starts; the window keeps the last {@code windowSize} changes, at most {@link
 * #WINDOW_BYTES} of encoded objects, and a watch from an older list version reads the changes it
 * missed from the log itself.
 */
public final class WatchCache implements StoredObjects, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WatchCache.class);

  /** A registered watch: its filter and where its events go. */
  public interface Listener {
    void onEvent(WatchEvent event);
  }

  private record Watcher(String resourceType, Predicate<WatchEvent> filter, Listener listener) {}

  /**
   * A change of the window as the log holds it: its object still encoded (a few kilobytes, where
   * its JSON tree takes ten times that), made JSON again only for a watch that resumes from it.
   */
  private record Windowed(
      String watchType, String resourceType, ByteBuffer encoded, int partition, long offset) {

    WatchEvent change(KubeJson json) {
      return new WatchEvent(
          watchType,
          resourceType,
          json.toJson((SpecificRecord) KindObjects.decode(encoded.duplicate())),
          partition,
          offset);
    }
  }

  /**
   * The encoded objects the window may hold, in bytes. Kept as JSON trees and bounded by count
   * alone (100,000 changes), the window outgrew the 384 MB heap of the multi-process cluster's
   * gateway after a few 200-pod rollouts; a watch from further back costs a read of the log of its
   * own, not an error.
   */
  static final long WINDOW_BYTES = 32L << 20;

  /** What a list returns: the matching objects and the version they were read at. */
  public record Snapshot(List<ObjectNode> items, ListVersion version) {}

  private final KubeJson json;
  private final String bootstrapServers;
  private final Topics topics;
  private final KafkaConsumer<String, ResourceEvent> consumer;
  private final Admin admin;
  private final List<TopicPartition> partitions;
  private final int windowSize;
  private final Object lock = new Object();
  private final Map<String, TreeMap<String, ObjectNode>> objects = new HashMap<>();
  private final Deque<Windowed> window = new ArrayDeque<>();
  private long windowBytes;
  private final long[] positions;
  private final long[] evictedBelow;
  private final long[] until;
  private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
  private final Thread poller;
  private volatile boolean running = true;
  private volatile RuntimeException failure;

  public WatchCache(String bootstrapServers, Topics topics, KubeJson json, int windowSize) {
    this(bootstrapServers, topics, json, windowSize, null);
  }

  /**
   * A cache of the cluster as it was at {@code until}: for each partition of {@code events}, the
   * first offset not applied (a list resourceVersion's offsets); null reads without bound.
   */
  public WatchCache(
      String bootstrapServers, Topics topics, KubeJson json, int windowSize, long[] until) {
    this.json = json;
    this.bootstrapServers = bootstrapServers;
    this.topics = topics;
    this.windowSize = windowSize;
    this.consumer =
        new KafkaConsumer<>(
            KafkaClientSettings.committedReader(bootstrapServers, 2000),
            new StringDeserializer(),
            topics.events().valueSerde().deserializer());
    this.admin = Admin.create(KafkaClientSettings.clientConfig(bootstrapServers));
    this.partitions =
        consumer.partitionsFor(topics.events().name(), Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topics.events().name(), p.partition()))
            .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
            .toList();
    this.positions = new long[partitions.size()];
    this.evictedBelow = new long[partitions.size()];
    if (until != null && until.length != partitions.size()) {
      throw new IllegalArgumentException(
          "a bound of "
              + until.length
              + " offsets for "
              + partitions.size()
              + " partitions of "
              + topics.events().name());
    }
    this.until = until == null ? null : until.clone();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    this.poller = new Thread(this::pollLoop, "watch-cache");
    this.poller.setDaemon(true);
    this.poller.start();
  }

  private void pollLoop() {
    try {
      while (running) {
        var records = consumer.poll(Duration.ofMillis(100));
        synchronized (lock) {
          for (ConsumerRecord<String, ResourceEvent> record : records) {
            if (until == null || record.offset() < until[record.partition()]) {
              apply(record);
            }
          }
          for (TopicPartition partition : partitions) {
            positions[partition.partition()] =
                bounded(partition.partition(), consumer.position(partition));
          }
          if (until != null) {
            consumer.pause(
                partitions.stream()
                    .filter(p -> positions[p.partition()] >= until[p.partition()])
                    .toList());
          }
          lock.notifyAll();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("the watch cache stopped reading {}", topics.events().name(), e);
      failure = e;
      synchronized (lock) {
        lock.notifyAll();
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * A change read from the log by itself, without the cache's state: its type as the store wrote
   * it.
   */
  private WatchEvent change(ConsumerRecord<String, ResourceEvent> record) {
    ResourceEvent event = record.value();
    if (event == null || KindObjects.of(event) == null) {
      return null;
    }
    return new WatchEvent(
        switch (event.getType()) {
          case ADDED -> "ADDED";
          case DELETED -> "DELETED";
          default -> "MODIFIED";
        },
        typeKey(event.getGroup(), event.getResource()),
        json.toJson((SpecificRecord) KindObjects.of(event)),
        record.partition(),
        record.offset());
  }

  private void apply(ConsumerRecord<String, ResourceEvent> record) {
    ResourceEvent event = record.value();
    if (event == null || KindObjects.of(event) == null) {
      return;
    }
    String type = typeKey(event.getGroup(), event.getResource());
    ObjectNode object = json.toJson((SpecificRecord) KindObjects.of(event));
    String key = objectKey(event.getNamespace(), event.getName());
    TreeMap<String, ObjectNode> ofType = objects.computeIfAbsent(type, t -> new TreeMap<>());
    String watchType;
    switch (event.getType()) {
      case DELETED -> {
        ofType.remove(key);
        watchType = "DELETED";
      }
      case ADDED -> {
        ofType.put(key, object);
        watchType = "ADDED";
      }
      default -> {
        watchType = ofType.put(key, object) == null ? "ADDED" : "MODIFIED";
      }
    }
    WatchEvent change =
        new WatchEvent(watchType, type, object, record.partition(), record.offset());
    ByteBuffer encoded = event.getEncodedObject().duplicate();
    ByteBuffer kept = ByteBuffer.allocate(encoded.remaining()).put(encoded).flip();
    window.addLast(new Windowed(watchType, type, kept, record.partition(), record.offset()));
    windowBytes += kept.capacity();
    while (window.size() > windowSize || (windowBytes > WINDOW_BYTES && window.size() > 1)) {
      Windowed evicted = window.removeFirst();
      windowBytes -= evicted.encoded().capacity();
      evictedBelow[evicted.partition()] = evicted.offset() + 1;
    }
    for (Watcher watcher : watchers) {
      if (watcher.resourceType().equals(type) && watcher.filter().test(change)) {
        watcher.listener().onEvent(change);
      }
    }
  }

  /**
   * Why the cache no longer follows the log (its reader failed or was closed); empty while it does.
   */
  public java.util.Optional<String> problem() {
    RuntimeException failed = failure;
    if (failed != null) {
      return java.util.Optional.of("the watch cache stopped reading the log: " + failed);
    }
    return running
        ? java.util.Optional.empty()
        : java.util.Optional.of("the watch cache is closed");
  }

  /**
   * Waits until everything written to {@code events} before this call has been read (and applied,
   * once committed).
   */
  @Override
  public void catchUpWithLog(Duration timeout) {
    long[] target = LogEnd.of(admin, partitions, timeout);
    for (int p = 0; p < target.length; p++) {
      target[p] = bounded(p, target[p]);
    }
    awaitPositions(target, timeout);
  }

  private long bounded(int partition, long offset) {
    return until == null ? offset : Math.min(offset, until[partition]);
  }

  private void awaitPositions(long[] target, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (!reached(target)) {
        if (failure != null) {
          throw new CacheUnavailableException("the watch cache failed", failure);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new CacheUnavailableException(
              "the watch cache did not catch up with the log in " + timeout.toSeconds() + " s",
              null);
        }
        try {
          lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CacheUnavailableException("interrupted", e);
        }
      }
    }
  }

  private boolean reached(long[] target) {
    for (int p = 0; p < target.length; p++) {
      if (positions[p] < target[p]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Optional<ObjectNode> get(String group, String resource, String namespace, String name) {
    synchronized (lock) {
      TreeMap<String, ObjectNode> ofType = objects.get(typeKey(group, resource));
      return Optional.ofNullable(ofType == null ? null : ofType.get(objectKey(namespace, name)));
    }
  }

  /** Objects of one type (in one namespace, or all when {@code namespace} is null), by key. */
  @Override
  public Snapshot list(
      String group, String resource, String namespace, Predicate<ObjectNode> filter) {
    synchronized (lock) {
      TreeMap<String, ObjectNode> ofType =
          objects.getOrDefault(typeKey(group, resource), new TreeMap<>());
      var range =
          namespace == null ? ofType : ofType.subMap(namespace + "/", namespace + "/\uffff");
      List<ObjectNode> items = new ArrayList<>();
      for (ObjectNode object : range.values()) {
        if (filter.test(object)) {
          items.add(object);
        }
      }
      return new Snapshot(items, new ListVersion(positions.clone()));
    }
  }

  @Override
  public ListVersion version() {
    synchronized (lock) {
      return new ListVersion(positions.clone());
    }
  }

  /**
   * Starts a watch: first the changes after {@code from} (or, with no version, a synthetic ADDED
   * for every current object, as Kubernetes does), then every later change, all delivered to {@code
   * listener} in log order per partition, each change after {@code from} once, whether or not the
   * cache had read up to {@code from} when the watch began. Changes older than the window are read
   * from the log itself ({@link #followFromLog}). Returns the handle that stops it.
   *
   * @throws TooOldResourceVersionException if the log no longer holds the changes after {@code
   *     from}
   */
  public Registration watch(
      String group,
      String resource,
      ListVersion from,
      Predicate<WatchEvent> filter,
      Listener listener) {
    String type = typeKey(group, resource);
    // The cache may not have read up to the list version yet (it has just started, or the list
    // came from a gateway further ahead): changes the list already contained must not follow.
    Predicate<WatchEvent> live =
        from == null
            ? filter
            : filter.and(change -> change.offset() >= from.offset(change.partition()));
    synchronized (lock) {
      if (from == null) {
        for (ObjectNode object : objects.getOrDefault(type, new TreeMap<>()).values()) {
          WatchEvent added = new WatchEvent("ADDED", type, object, -1, -1);
          if (filter.test(added)) {
            listener.onEvent(added);
          }
        }
      } else if (!inWindow(from)) {
        return followFromLog(type, from, live, listener);
      } else {
        replayWindow(type, from, filter, listener);
      }
      Watcher watcher = new Watcher(type, live, listener);
      watchers.add(watcher);
      return new Registration() {
        @Override
        public boolean following() {
          return true;
        }

        @Override
        public void close() {
          watchers.remove(watcher);
        }
      };
    }
  }

  /** A started watch. */
  public interface Registration extends AutoCloseable {
    /**
     * Whether the watch has been given every change up to the cache's position, so that a bookmark
     * at the cache's version skips nothing; false while older changes are still read from the log.
     */
    boolean following();

    @Override
    void close();
  }

  private boolean inWindow(ListVersion from) {
    for (int p = 0; p < positions.length; p++) {
      if (from.offset(p) < evictedBelow[p]) {
        return false;
      }
    }
    return true;
  }

  private void replayWindow(
      String type, ListVersion from, Predicate<WatchEvent> filter, Listener listener) {
    for (Windowed windowed : window) {
      if (windowed.resourceType().equals(type)
          && windowed.offset() >= from.offset(windowed.partition())) {
        WatchEvent change = windowed.change(json);
        if (filter.test(change)) {
          listener.onEvent(change);
        }
      }
    }
  }

  /**
   * A watch from before the window: the changes between {@code from} and the window's start are
   * read from {@code events} by a reader of the watch's own, while the window and the changes that
   * follow are held back until it is done, then passed on in order.
   */
  private Registration followFromLog(
      String type, ListVersion from, Predicate<WatchEvent> filter, Listener listener) {
    long[] windowStart = evictedBelow.clone();
    HeldBack held = new HeldBack(listener);
    replayWindow(type, from, filter, held);
    Watcher watcher = new Watcher(type, filter, held);
    watchers.add(watcher);
    LogRange range = new LogRange(bootstrapServers, topics, partitions, from, windowStart);
    Thread reader =
        new Thread(
            () -> {
              try (range) {
                range.forEach(
                    record -> {
                      WatchEvent change = change(record);
                      if (change != null
                          && change.resourceType().equals(type)
                          && filter.test(change)) {
                        listener.onEvent(change);
                      }
                    });
                held.release();
              } catch (TooOldResourceVersionException e) {
                listener.onEvent(
                    WatchEvent.error(Statuses.tooOldResourceVersion(e.requested(), e.current())));
              } catch (RuntimeException e) {
                LOG.warn("a watch from {} could not read the log", from, e);
                listener.onEvent(
                    WatchEvent.error(
                        Statuses.internalError("cannot read " + topics.events().name())));
              }
            },
            "watch-from-log");
    reader.setDaemon(true);
    reader.start();
    return new Registration() {
      @Override
      public boolean following() {
        return held.released();
      }

      @Override
      public void close() {
        watchers.remove(watcher);
        range.stop();
      }
    };
  }

  /** Passes changes on once released; until then keeps them, in order. */
  private static final class HeldBack implements Listener {
    private final Listener listener;
    private List<WatchEvent> kept = new ArrayList<>();

    HeldBack(Listener listener) {
      this.listener = listener;
    }

    @Override
    public synchronized void onEvent(WatchEvent event) {
      if (kept == null) {
        listener.onEvent(event);
      } else {
        kept.add(event);
      }
    }

    synchronized void release() {
      kept.forEach(listener::onEvent);
      kept = null;
    }

    synchronized boolean released() {
      return kept == null;
    }
  }

  static String typeKey(String group, String resource) {
    return (group == null ? "" : group) + "/" + resource;
  }

  private static String objectKey(String namespace, String name) {
    return (namespace == null ? "" : namespace) + "/" + name;
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      poller.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    admin.close(Duration.ofSeconds(5));
  }
}
