package io.streamplane.controller;

import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.Topics;
import java.nio.file.Path;

/**
 * Runs the controllers against a Kafka cluster. Instances with the same cluster name share the work
 * by namespace partitions; when one dies, the others take its partitions over.
 */
public final class ControllersApp {

  private ControllersApp() {}

  public static String applicationId(Topics topics) {
    return topics.layout().cluster() + "-controllers";
  }

  public static StreamsApp start(Topics topics, String bootstrapServers, Path stateDir) {
    return start(topics, NodeLifecycleConfig.defaults(), bootstrapServers, stateDir);
  }

  public static StreamsApp start(
      Topics topics, NodeLifecycleConfig nodeLifecycle, String bootstrapServers, Path stateDir) {
    return StreamsApp.start(
        applicationId(topics),
        ControllersTopology.buildTopology(topics, nodeLifecycle),
        bootstrapServers,
        stateDir);
  }
}
