package io.streamplane.controller;

import io.streamplane.streams.StreamsSettings;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Runs the controllers against a Kafka cluster. Instances with the same cluster name share the work
 * by namespace partitions; when one dies, the others take its partitions over.
 */
public final class ControllersApp implements AutoCloseable {

  private final KafkaStreams streams;

  private ControllersApp(KafkaStreams streams) {
    this.streams = streams;
  }

  public static String applicationId(Topics topics) {
    return topics.layout().cluster() + "-controllers";
  }

  public static ControllersApp start(Topics topics, String bootstrapServers, Path stateDir) {
    KafkaStreams streams =
        new KafkaStreams(
            ControllersTopology.buildTopology(topics),
            StreamsSettings.exactlyOnce(applicationId(topics), bootstrapServers, stateDir));
    streams.start();
    return new ControllersApp(streams);
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
    streams.close(Duration.ofSeconds(30));
  }
}
