package io.streamplane.store;

import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.Topics;
import java.nio.file.Path;

/**
 * Runs the store topology against a Kafka cluster. Several instances with the same cluster name
 * split the {@code commands} partitions between them; each partition has one writer of events.
 */
public final class StoreApp {

  private StoreApp() {}

  public static String applicationId(Topics topics) {
    return topics.layout().cluster() + "-store";
  }

  public static StreamsApp start(Topics topics, String bootstrapServers, Path stateDir) {
    return StreamsApp.start(
        applicationId(topics), StoreTopology.buildTopology(topics), bootstrapServers, stateDir);
  }
}
