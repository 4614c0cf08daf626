package io.streamplane.streams;

import io.streamplane.metrics.KafkaConsumerLag;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

/**
 * One running Streamplane Kafka Streams application (the store, the controllers, ...) with the
 * shared settings of {@link StreamsSettings}. Instances with the same application id split the
 * partitions between them. While it runs, its consumer lag per partition is among the process's
 * metrics ({@link KafkaConsumerLag}, labelled with the application id).
 */
public final class StreamsApp implements AutoCloseable {

  private final KafkaStreams streams;
  private final KafkaConsumerLag.Tracked lag;

  private StreamsApp(KafkaStreams streams, KafkaConsumerLag.Tracked lag) {
    this.streams = streams;
    this.lag = lag;
  }

  public static StreamsApp start(
      String applicationId, Topology topology, String bootstrapServers, Path stateDir) {
    return start(topology, StreamsSettings.exactlyOnce(applicationId, bootstrapServers, stateDir));
  }

  /** Starts {@code topology} with {@code settings} (see {@link StreamsSettings}). */
  public static StreamsApp start(Topology topology, java.util.Properties settings) {
    String applicationId = settings.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
    KafkaStreams streams = new KafkaStreams(topology, settings);
    KafkaConsumerLag.Tracked lag = KafkaConsumerLag.track(applicationId, streams::metrics);
    streams.start();
    return new StreamsApp(streams, lag);
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
    streams.close(
        CloseOptions.timeout(Duration.ofSeconds(30))
            .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
  }
}
