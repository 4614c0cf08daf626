package io.streamplane.streams;

import io.streamplane.metrics.KafkaConsumerLag;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Streamplane Kafka Streams application (the store, the controllers, ...) with the
 * shared settings of {@link StreamsSettings}. Instances with the same application id split the
 * partitions between them. While it runs, its consumer lag per partition is among the process's
 * metrics ({@link KafkaConsumerLag}, labelled with the application id).
 */
public final class StreamsApp implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StreamsApp.class);

  /**
   * Written in the application's state directory when it stops cleanly, removed when it starts: its
   * absence at a start means the last run was killed.
   */
  static final String STOPPED_CLEANLY = "streamplane-stopped-cleanly";

  private final KafkaStreams streams;
  private final KafkaConsumerLag.Tracked lag;
  private final Path directory;

  private StreamsApp(KafkaStreams streams, KafkaConsumerLag.Tracked lag, Path directory) {
    this.streams = streams;
    this.lag = lag;
    this.directory = directory;
  }

  public static StreamsApp start(
      String applicationId, Topology topology, String bootstrapServers, Path stateDir) {
    return start(topology, StreamsSettings.exactlyOnce(applicationId, bootstrapServers, stateDir));
  }

  /** Starts {@code topology} with {@code settings} (see {@link StreamsSettings}). */
  public static StreamsApp start(Topology topology, java.util.Properties settings) {
    String applicationId = settings.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
    Path directory =
        Path.of(settings.getProperty(StreamsConfig.STATE_DIR_CONFIG)).resolve(applicationId);
    discardStateOfUncleanStop(directory);
    KafkaStreams streams = new KafkaStreams(topology, settings);
    streams.setUncaughtExceptionHandler(StreamsApp::onThreadDeath);
    KafkaConsumerLag.Tracked lag = KafkaConsumerLag.track(applicationId, streams::metrics);
    streams.start();
    return new StreamsApp(streams, lag, directory);
  }

  /**
   * What becomes of an application whose stream thread died of {@code failure}. A transaction the
   * broker ended under the thread is transient: when a broker dies, a commit can outlast the
   * transaction timeout while leaders move, the coordinator aborts the transaction, and the commit
   * that arrives after gets {@code INVALID_TXN_STATE} (under transaction version 2, where an abort
   * bumps the epoch), which the producer treats as fatal. Nothing of that transaction was
   * committed, so the thread is replaced: its tasks start again from their committed offsets and
   * restored stores. Anything else (a record this build cannot read, a bug) stops the application,
   * as it would fail the same way again.
   */
  static StreamThreadExceptionResponse onThreadDeath(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InvalidTxnStateException
          || cause instanceof InvalidProducerEpochException
          || cause instanceof ProducerFencedException
          || cause instanceof RetriableException) {
        log.warn("a stream thread died of a transient error; replacing it", failure);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
      }
    }
    log.error("a stream thread died; stopping the application", failure);
    return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
  }

  /**
   * After a kill, exactly-once Streams cannot tell a store's committed writes from those of the
   * transaction that was aborted, so it wipes every task's stores and restores them from their
   * changelogs — one task after another, first while the instance is built, then again as each task
   * is assigned: about a quarter of a second per task on the 2-core machine, half a minute for the
   * controllers. Removing the task directories at once does the same work in milliseconds. The
   * process metadata stays, so the instance keeps its process id, and with it its producers'
   * transactional ids: their first transaction fences the killed instance's and aborts what it left
   * open.
   */
  static void discardStateOfUncleanStop(Path directory) {
    Path marker = directory.resolve(STOPPED_CLEANLY);
    try {
      if (Files.deleteIfExists(marker) || !Files.isDirectory(directory)) {
        return;
      }
      List<Path> tasks;
      try (Stream<Path> entries = Files.list(directory)) {
        tasks =
            entries
                .filter(p -> TASK_DIRECTORY.matcher(p.getFileName().toString()).matches())
                .toList();
      }
      for (Path task : tasks) {
        deleteTree(task);
      }
      if (!tasks.isEmpty()) {
        log.info(
            "{}: the last run did not stop cleanly; discarded the state of its {} tasks, which"
                + " are restored from their changelogs",
            directory.getFileName(),
            tasks.size());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear the state left in " + directory, e);
    }
  }

  /** Kafka Streams' task directories: {@code <subtopology>_<partition>}. */
  private static final Pattern TASK_DIRECTORY = Pattern.compile("\\d+_\\d+");

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  public KafkaStreams.State state() {
    return streams.state();
  }

  /** How many tasks (partitions of the app's sub-topologies) this instance runs now. */
  public int activeTasks() {
    return streams.metadataForLocalThreads().stream().mapToInt(t -> t.activeTasks().size()).sum();
  }

  @Override
  public void close() {
    lag.close();
    // A static member that stops on purpose leaves the group, so its partitions move to the other
    // instances at once; only a crash leaves them waiting for its return (or its session's end).
    boolean stopped =
        streams.close(
            CloseOptions.timeout(Duration.ofSeconds(30))
                .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
    if (stopped && streams.state() == KafkaStreams.State.NOT_RUNNING) {
      try {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(STOPPED_CLEANLY), "");
      } catch (IOException e) {
        log.warn("cannot mark {} as stopped cleanly: {}", directory, e.toString());
      }
    } else {
      log.warn(
          "{} did not stop cleanly (closed within the timeout: {}, state {}); its next start"
              + " discards its state",
          directory.getFileName(),
          stopped,
          streams.state());
    }
  }
}
