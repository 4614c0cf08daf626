package io.streamplane.store;

import io.streamplane.streams.StreamsApp;
import io.streamplane.streams.StreamsSettings;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs the store topology against a Kafka cluster. Several instances with the same cluster name
 * split the {@code commands} partitions between them; each partition has one writer of events.
 */
public final class StoreApp {

  private StoreApp() {}

  public static String applicationId(Topics topics) {
    return topics.layout().cluster() + "-store";
  }

  /**
   * The changelog topic Kafka Streams keeps for the store's {@code objects}: the live state, one
   * record per change of a key (the key's {@code ResourceEvent}, a tombstone when it was removed),
   * partitioned as {@code commands}. What {@code streamplane replay --verify} compares the log
   * with.
   */
  public static String objectsChangelog(Topics topics) {
    return applicationId(topics) + "-" + StoreTopology.OBJECTS + "-changelog";
  }

  /** Every write waits for the store's transaction: it commits every 5 ms rather than 20. */
  static final Duration COMMIT_INTERVAL = Duration.ofMillis(5);

  public static StreamsApp start(Topics topics, String bootstrapServers, Path stateDir) {
    return StreamsApp.start(
        StoreTopology.buildTopology(topics),
        StreamsSettings.exactlyOnce(
            applicationId(topics), bootstrapServers, stateDir, COMMIT_INTERVAL));
  }
}
