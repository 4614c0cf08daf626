package io.streamplane.cli.replay;

import io.streamplane.kafka.KafkaClientSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads whole partitions of a topic as raw bytes, read_committed, from their beginning up to a cut
 * (per partition, the first offset not read), as fast as one consumer fetches: large polls and
 * fetches, no deserialization. What the records mean is the caller's business ({@link Sink}).
 *
 * <p>The counters ({@link #read()}, {@link #total()}, {@link #bytes()}) are safe to read from
 * another thread, for a progress line. Offsets are counted, so a transaction's commit marker counts
 * as a record read.
 */
final class LogReader implements AutoCloseable {

  /** Told every record below the cut, in offset order per partition. */
  interface Sink {
    void accept(int partition, long offset, long timestamp, byte[] key, byte[] value);
  }

  /** Readers a replay runs at once: one per core. */
  static final int THREADS = Runtime.getRuntime().availableProcessors();

  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

  private final Properties props;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final AtomicLong read = new AtomicLong();
  private final AtomicLong total = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  LogReader(String bootstrapServers) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "streamplane-replay");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 20_000);
    props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024 * 1024);
    props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024);
    props.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 4 * 1024 * 1024);
    // CRCs are checked by the broker when records are written; the reader trusts them.
    props.put(ConsumerConfig.CHECK_CRCS_CONFIG, false);
    this.props = props;
    this.consumer = newConsumer();
  }

  /** The number of partitions of {@code topic}; fails if the topic does not exist. */
  int partitions(String topic) {
    List<PartitionInfo> partitions = consumer.partitionsFor(topic, METADATA_TIMEOUT);
    if (partitions == null || partitions.isEmpty()) {
      throw new IllegalStateException("topic " + topic + " does not exist");
    }
    return partitions.size();
  }

  /** Each partition's end for a read_committed reader now: its last stable offset. */
  long[] ends(String topic) {
    List<TopicPartition> tps = assigned(topic);
    Map<TopicPartition, Long> ends = consumer.endOffsets(tps, METADATA_TIMEOUT);
    long[] offsets = new long[tps.size()];
    ends.forEach((tp, offset) -> offsets[tp.partition()] = offset);
    return offsets;
  }

  /**
   * Per partition, the first offset stamped after {@code time} (or {@code ends}' offset when no
   * record is): everything before it is the log as it was at {@code time}, as a prefix of each
   * partition, even where producers' clocks put a later record's stamp before an earlier one's.
   */
  long[] firstOffsetsAfter(String topic, Instant time, long[] ends) {
    Map<TopicPartition, Long> query = new HashMap<>();
    for (TopicPartition tp : topicPartitions(topic)) {
      query.put(tp, time.toEpochMilli() + 1);
    }
    Map<TopicPartition, OffsetAndTimestamp> found =
        consumer.offsetsForTimes(query, METADATA_TIMEOUT);
    long[] cut = ends.clone();
    found.forEach(
        (tp, at) -> {
          if (at != null) {
            cut[tp.partition()] = Math.min(at.offset(), ends[tp.partition()]);
          }
        });
    return cut;
  }

  /** Reads every partition of {@code topic} from its beginning to {@code until}, exclusive. */
  void read(String topic, long[] until, Sink sink) {
    read(topic, until, 1, thread -> sink);
  }

  /**
   * Reads as {@link #read(String, long[], Sink)} does, with the partitions dealt out to {@code
   * threads} consumers of their own, each handing its records to its own sink ({@code sinks} is
   * asked once per thread, on the calling thread, before any record is read). Parsing records is
   * most of a read's cost, and this spreads it over the cores; a sink sees whole partitions, in
   * offset order.
   */
  void read(String topic, long[] until, int threads, IntFunction<Sink> sinks) {
    List<TopicPartition> tps = assigned(topic);
    Map<TopicPartition, Long> beginnings = consumer.beginningOffsets(tps, METADATA_TIMEOUT);
    List<List<TopicPartition>> shares = new ArrayList<>();
    for (int t = 0; t < Math.max(1, Math.min(threads, tps.size())); t++) {
      shares.add(new ArrayList<>());
    }
    for (TopicPartition tp : tps) {
      long from = beginnings.get(tp);
      if (from < until[tp.partition()]) {
        shares.get(tp.partition() % shares.size()).add(tp);
        total.addAndGet(until[tp.partition()] - from);
      }
    }
    List<Thread> workers = new ArrayList<>();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    for (int t = 0; t < shares.size(); t++) {
      List<TopicPartition> share = shares.get(t);
      Sink sink = sinks.apply(t);
      Runnable work = () -> readShare(share, beginnings, until, sink);
      if (t == shares.size() - 1) {
        work.run();
      } else {
        Thread worker =
            new Thread(
                () -> {
                  try {
                    work.run();
                  } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "replay-reader-" + t);
        worker.start();
        workers.add(worker);
      }
    }
    for (Thread worker : workers) {
      try {
        worker.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while reading " + topic, e);
      }
    }
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  private void readShare(
      List<TopicPartition> share, Map<TopicPartition, Long> beginnings, long[] until, Sink sink) {
    if (share.isEmpty()) {
      return;
    }
    try (KafkaConsumer<byte[], byte[]> reader = newConsumer()) {
      List<TopicPartition> open = new ArrayList<>(share);
      reader.assign(open);
      for (TopicPartition tp : open) {
        reader.seek(tp, beginnings.get(tp));
      }
      long[] done = new long[until.length];
      for (TopicPartition tp : open) {
        done[tp.partition()] = beginnings.get(tp);
      }
      while (!open.isEmpty()) {
        ConsumerRecords<byte[], byte[]> records = reader.poll(POLL);
        long size = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
          int p = record.partition();
          if (record.offset() < until[p]) {
            sink.accept(p, record.offset(), record.timestamp(), record.key(), record.value());
            size +=
                Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
          }
        }
        bytes.addAndGet(size);
        List<TopicPartition> finished = new ArrayList<>();
        for (TopicPartition tp : open) {
          int p = tp.partition();
          long position = Math.min(reader.position(tp), until[p]);
          read.addAndGet(position - done[p]);
          done[p] = position;
          if (position >= until[p]) {
            finished.add(tp);
          }
        }
        if (!finished.isEmpty()) {
          open.removeAll(finished);
          reader.pause(finished);
        }
      }
    }
  }

  /** Offsets read so far, over every {@link #read} of this reader. */
  long read() {
    return read.get();
  }

  /** Offsets to read, over every {@link #read} started so far. */
  long total() {
    return total.get();
  }

  /** Key and value bytes of the records handed to sinks. */
  long bytes() {
    return bytes.get();
  }

  private KafkaConsumer<byte[], byte[]> newConsumer() {
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * The partitions of {@code topic}, assigned to the metadata consumer (which never polls), so that
   * it keeps the last stable offsets the broker tells it instead of warning that the partitions are
   * not its own.
   */
  private List<TopicPartition> assigned(String topic) {
    List<TopicPartition> tps = topicPartitions(topic);
    consumer.assign(tps);
    return tps;
  }

  private List<TopicPartition> topicPartitions(String topic) {
    int n = partitions(topic);
    List<TopicPartition> tps = new ArrayList<>(n);
    for (int p = 0; p < n; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    return tps;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
