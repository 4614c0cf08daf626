package io.streamplane.gateway.history;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.cache.CacheUnavailableException;
import io.streamplane.gateway.cache.ListVersion;
import io.streamplane.gateway.cache.LogEnd;
import io.streamplane.gateway.cache.TooOldResourceVersionException;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.rocksdb.CompressionType;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every version of every object, read from {@code events} into a RocksDB database of the gateway's
 * own, for what the watch cache cannot answer: reads as of a past list version, paging through a
 * snapshot, and the history of one object.
 *
 * <p>Layout: the key is the resource key (as on the log), a zero byte and the event's offset (8
 * bytes, big-endian), so the versions of one object sort together, oldest first, and the objects of
 * one resource (and namespace) sort together under their key prefix; the value is the record's
 * timestamp (8 bytes) and the record's value as the log holds it, decoded only when read. Where the
 * index has read up to (and where it began, when the log no longer started at offset 0) is kept in
 * the same database, written in the same batch as the records, so a restarted gateway resumes where
 * it stopped; a database that does not match the log (another cluster, fewer partitions) is rebuilt
 * from the start of the log.
 *
 * <p>The state as of a list version {@code L} is, for every key, its last version below {@code L}'s
 * offset for the key's partition — exactly what the watch cache held when it answered with {@code
 * L}.
 */
public final class HistoryIndex implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HistoryIndex.class);
  private static final byte[] POSITIONS = "\u0001positions".getBytes(StandardCharsets.UTF_8);
  private static final byte[] FROM = "\u0001from".getBytes(StandardCharsets.UTF_8);
  private static final int TIMESTAMP_BYTES = Long.BYTES;

  static {
    RocksDB.loadLibrary();
  }

  private final Topics topics;
  private final Deserializer<ResourceEvent> events;
  private final Options options;
  private final RocksDB db;
  private final WriteOptions writes = new WriteOptions();
  private final Admin admin;
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<TopicPartition> partitions;
  private final long[] from;
  private final Object lock = new Object();
  private long[] positions;
  private final Thread poller;
  private volatile boolean running = true;
  private volatile RuntimeException failure;

  public HistoryIndex(String bootstrapServers, Topics topics, Path directory) {
    this.topics = topics;
    this.events = topics.events().valueSerde().deserializer();
    this.consumer =
        new KafkaConsumer<>(
            KafkaClientSettings.committedReader(bootstrapServers, 5000),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    this.admin = Admin.create(KafkaClientSettings.clientConfig(bootstrapServers));
    this.partitions =
        consumer.partitionsFor(topics.events().name(), Duration.ofSeconds(30)).stream()
            .map(p -> new TopicPartition(topics.events().name(), p.partition()))
            .sorted(Comparator.comparingInt(TopicPartition::partition))
            .toList();
    Map<TopicPartition, Long> start = consumer.beginningOffsets(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    try {
      Files.createDirectories(directory);
      this.options =
          new Options()
              .setCreateIfMissing(true)
              .setCompressionType(CompressionType.LZ4_COMPRESSION);
      RocksDB opened = RocksDB.open(options, directory.toString());
      long[] stored = decode(opened.get(POSITIONS));
      long[] storedFrom = decode(opened.get(FROM));
      if (!matches(stored, storedFrom, start, end)) {
        if (stored != null) {
          LOG.info("the history index in {} does not match the log; rebuilding it", directory);
        }
        opened.close();
        RocksDB.destroyDB(directory.toString(), options);
        opened = RocksDB.open(options, directory.toString());
        storedFrom = partitions.stream().mapToLong(start::get).toArray();
        stored = storedFrom.clone();
        opened.put(FROM, encode(storedFrom));
        opened.put(POSITIONS, encode(stored));
      }
      this.db = opened;
      this.from = storedFrom;
      this.positions = stored;
    } catch (IOException | RocksDBException e) {
      consumer.close();
      admin.close();
      throw new IllegalStateException("cannot open the history index in " + directory, e);
    }
    consumer.assign(partitions);
    for (TopicPartition partition : partitions) {
      consumer.seek(partition, positions[partition.partition()]);
    }
    this.poller = new Thread(this::pollLoop, "history-index");
    this.poller.setDaemon(true);
    this.poller.start();
  }

  private boolean matches(
      long[] stored,
      long[] storedFrom,
      Map<TopicPartition, Long> start,
      Map<TopicPartition, Long> end) {
    if (stored == null || storedFrom == null || stored.length != partitions.size()) {
      return false;
    }
    for (TopicPartition partition : partitions) {
      int p = partition.partition();
      if (stored[p] > end.get(partition) || stored[p] < start.get(partition)) {
        return false;
      }
    }
    return true;
  }

  private void pollLoop() {
    try {
      while (running) {
        var records = consumer.poll(Duration.ofMillis(200));
        long[] read = new long[partitions.size()];
        for (TopicPartition partition : partitions) {
          read[partition.partition()] = consumer.position(partition);
        }
        if (records.isEmpty() && Arrays.equals(read, positions)) {
          continue;
        }
        try (WriteBatch batch = new WriteBatch()) {
          for (ConsumerRecord<String, byte[]> record : records) {
            if (record.key() != null && record.value() != null) {
              batch.put(versionKey(record.key(), record.offset()), value(record));
            }
          }
          batch.put(POSITIONS, encode(read));
          db.write(writes, batch);
        }
        synchronized (lock) {
          positions = read;
          lock.notifyAll();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException | RocksDBException e) {
      LOG.error("the history index stopped reading {}", topics.events().name(), e);
      failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
      synchronized (lock) {
        lock.notifyAll();
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /** How far the index has read: the offset it will read next in every partition. */
  public ListVersion position() {
    synchronized (lock) {
      return new ListVersion(positions.clone());
    }
  }

  /**
   * Waits until the index has read everything below {@code version}, which must be a version the
   * log holds: older than where the index began is {@link TooOldResourceVersionException}.
   */
  public void awaitReadPast(ListVersion version, Duration timeout) {
    for (int p = 0; p < from.length; p++) {
      if (version.offset(p) < from[p]) {
        throw new TooOldResourceVersionException(
            version.toString(), new ListVersion(from.clone()).toString());
      }
    }
    synchronized (lock) {
      if (reached(version)) {
        return;
      }
    }
    ListVersion end = new ListVersion(LogEnd.of(admin, partitions, timeout));
    for (int p = 0; p < from.length; p++) {
      if (version.offset(p) > end.offset(p)) {
        throw new ApiException(
            Statuses.tooLargeResourceVersion(version.toString(), end.toString()));
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (!reached(version)) {
        if (failure != null) {
          throw new CacheUnavailableException("the history index failed", failure);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new CacheUnavailableException(
              "the history index did not reach " + version + " in " + timeout.toSeconds() + " s",
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

  private boolean reached(ListVersion version) {
    for (int p = 0; p < positions.length; p++) {
      if (positions[p] < version.offset(p)) {
        return false;
      }
    }
    return true;
  }

  /** The object's last version below {@code version}, unless that version deleted it. */
  public Optional<ObjectVersion> at(ResourceKey key, ListVersion version) {
    int partition = key.partition(partitions.size());
    byte[] prefix = objectPrefix(key.toString());
    try (RocksIterator it = db.newIterator()) {
      return lastBelow(it, prefix, partition, version.offset(partition)).filter(v -> !deleted(v));
    }
  }

  /**
   * Every object of {@code resource} (in {@code namespace}, or all namespaces when it is null) that
   * existed at {@code version}, in key order, each at its last version below it.
   */
  public List<ObjectVersion> list(
      String resource, String group, String namespace, ListVersion version) {
    String typePrefix =
        resource
            + "."
            + (group == null ? "" : group)
            + "/"
            + (namespace == null ? "" : namespace + "/");
    byte[] prefix = typePrefix.getBytes(StandardCharsets.UTF_8);
    List<ObjectVersion> found = new ArrayList<>();
    try (RocksIterator it = db.newIterator()) {
      it.seek(prefix);
      while (it.isValid() && startsWith(it.key(), prefix)) {
        byte[] key = it.key();
        int end = indexOfZero(key);
        byte[] object = Arrays.copyOf(key, end + 1);
        int partition =
            ResourceKey.parse(new String(key, 0, end, StandardCharsets.UTF_8))
                .partition(partitions.size());
        lastBelow(it, object, partition, version.offset(partition))
            .filter(v -> !deleted(v))
            .ifPresent(found::add);
        byte[] next = Arrays.copyOf(object, object.length + 1);
        next[object.length] = (byte) 0xff;
        it.seek(next);
      }
    }
    return found;
  }

  /** Every version of one object the log holds, oldest first (re-creations included). */
  public List<ObjectVersion> versions(ResourceKey key) {
    int partition = key.partition(partitions.size());
    byte[] prefix = objectPrefix(key.toString());
    List<ObjectVersion> found = new ArrayList<>();
    try (RocksIterator it = db.newIterator()) {
      for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
        found.add(version(partition, it.key(), it.value()));
      }
    }
    return found;
  }

  private Optional<ObjectVersion> lastBelow(
      RocksIterator it, byte[] objectPrefix, int partition, long below) {
    if (below <= 0) {
      return Optional.empty();
    }
    byte[] target = Arrays.copyOf(objectPrefix, objectPrefix.length + Long.BYTES);
    ByteBuffer.wrap(target, objectPrefix.length, Long.BYTES).putLong(below - 1);
    it.seekForPrev(target);
    if (!it.isValid() || !startsWith(it.key(), objectPrefix)) {
      return Optional.empty();
    }
    return Optional.of(version(partition, it.key(), it.value()));
  }

  private ObjectVersion version(int partition, byte[] key, byte[] value) {
    long offset = ByteBuffer.wrap(key, key.length - Long.BYTES, Long.BYTES).getLong();
    long timestamp = ByteBuffer.wrap(value, 0, TIMESTAMP_BYTES).getLong();
    ResourceEvent event =
        events.deserialize(
            topics.events().name(), Arrays.copyOfRange(value, TIMESTAMP_BYTES, value.length));
    return new ObjectVersion(Instant.ofEpochMilli(timestamp), partition, offset, event);
  }

  private static boolean deleted(ObjectVersion version) {
    return version.event().getType() == io.streamplane.log.EventType.DELETED;
  }

  private static byte[] objectPrefix(String resourceKey) {
    byte[] key = resourceKey.getBytes(StandardCharsets.UTF_8);
    return Arrays.copyOf(key, key.length + 1);
  }

  private static byte[] versionKey(String resourceKey, long offset) {
    byte[] prefix = objectPrefix(resourceKey);
    byte[] key = Arrays.copyOf(prefix, prefix.length + Long.BYTES);
    ByteBuffer.wrap(key, prefix.length, Long.BYTES).putLong(offset);
    return key;
  }

  private static byte[] value(ConsumerRecord<String, byte[]> record) {
    byte[] value = new byte[TIMESTAMP_BYTES + record.value().length];
    ByteBuffer.wrap(value).putLong(record.timestamp()).put(record.value());
    return value;
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static int indexOfZero(byte[] key) {
    for (int i = 0; i < key.length; i++) {
      if (key[i] == 0) {
        return i;
      }
    }
    throw new IllegalStateException("not a version key");
  }

  private static byte[] encode(long[] offsets) {
    ByteBuffer buffer = ByteBuffer.allocate(offsets.length * Long.BYTES);
    Stream.of(offsets).flatMapToLong(Arrays::stream).forEach(buffer::putLong);
    return buffer.array();
  }

  private static long[] decode(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    long[] offsets = new long[bytes.length / Long.BYTES];
    ByteBuffer.wrap(bytes).asLongBuffer().get(offsets);
    return offsets;
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
    db.close();
    writes.close();
    options.close();
  }
}
