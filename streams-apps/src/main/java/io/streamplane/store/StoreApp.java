package io.streamplane.store;

import io.streamplane.streams.StreamsSettings;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Runs the store topology against a Kafka cluster. Several instances with the same cluster name
 * split the {@code commands} partitions between them; each partition has one writer of events.
 */
public final class StoreApp implements AutoCloseable {

  private final KafkaStreams streams;

  private StoreApp(KafkaStreams streams) {
    this.streams = streams;
  }

  public static String applicationId(Topics topics) {
    return topics.layout().cluster() + "-store";
  }

  public static StoreApp start(Topics topics, String bootstrapServers, Path stateDir) {
    KafkaStreams streams =
        new KafkaStreams(
            StoreTopology.buildTopology(topics),
            StreamsSettings.exactlyOnce(applicationId(topics), bootstrapServers, stateDir));
    streams.start();
    return new StoreApp(streams);
  }

  public KafkaStreams.State state() {
    return streams.state();
  }

  @Override
  public void close() {
    streams.close(Duration.ofSeconds(30));
  }
}
