package io.streamplane.streams;

import io.streamplane.kafka.KafkaClientSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndFailExceptionHandler;

/**
 * The Kafka Streams settings every Streamplane app runs with: exactly_once_v2, tuned for latency as
 * measured on the development machines (DESIGN.md: commit.interval.ms=20, linger 0, retry backoff 5
 * ms give one hop p50 ≈ 23 ms instead of ≈ 85 ms with the defaults).
 */
public final class StreamsSettings {

  private StreamsSettings() {}

  public static Properties exactlyOnce(
      String applicationId, String bootstrapServers, Path stateDir) {
    return exactlyOnce(applicationId, bootstrapServers, stateDir, Duration.ofMillis(20));
  }

  /**
   * The same, committing every {@code commitInterval}. A thread checks its commit interval after
   * each poll, so the poll waits at most as long: otherwise a record arriving just after a check
   * waits for the next poll to return (up to 100 ms on a quiet app) before its transaction commits.
   * The store, which every write waits for, runs with 5 ms.
   */
  public static Properties exactlyOnce(
      String applicationId, String bootstrapServers, Path stateDir, Duration commitInterval) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    KafkaClientSettings.applyTo(props);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitInterval.toMillis());
    props.put(StreamsConfig.POLL_MS_CONFIG, Math.min(100, commitInterval.toMillis()));
    props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 0);
    props.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), 5);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // A record this build cannot decode (a newer envelope whose schema it cannot find, a kind it
    // does not know, bytes that are not Streamplane's) stops the task with the reason in the log:
    // skipping it would lose a command or an event for good, and the log is the database. During
    // an upgrade the newer instances take the stopped partitions over (docs/deploy.md).
    props.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        LogAndFailExceptionHandler.class);
    // Under exactly-once a task's committed offsets are fetched with require_stable: the fetch
    // waits while a transaction holds offsets of the group, a killed instance's among them. The
    // default lets it block the thread, and every other task of it, for a minute; after 10 s the
    // task's start is retried in the thread's next iteration instead, while the others commit.
    props.put(
        StreamsConfig.mainConsumerPrefix(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG), 10_000);
    // After a crash every task restores its stores from their changelogs, and a task's restore
    // ends only when a fetch of its changelogs returns: the broker holds a fetch that finds nothing
    // new (a changelog restored to its end, or empty) for fetch.max.wait.ms, 500 ms by default,
    // once per task. The restore consumer fetches only while tasks restore (no standby replicas).
    props.put(StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 10);
    // A crashed instance leaves the group only when its session expires; 10 s instead of the
    // default 45 s bounds how long its partitions wait for a successor (or for itself, restarted).
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 3_000);
    // Static membership: the instance is named after its state directory, which no two running
    // instances share, so an instance restarted after a crash takes its own partitions back at
    // once instead of waiting for its former self's session to expire and a rebalance.
    props.put(
        StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
        applicationId + "-" + instanceName(stateDir));
    return props;
  }

  /** A stable name for the instance that keeps {@code stateDir}: a hash of its absolute path. */
  static String instanceName(Path stateDir) {
    return Integer.toHexString(stateDir.toAbsolutePath().normalize().toString().hashCode());
  }
}
