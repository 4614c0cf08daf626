package io.streamplane.controller;

import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.log.ResourceCommand;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.Topic;
import io.streamplane.topics.Topics;
import java.nio.file.Path;

/**
 * Runs the controllers against a Kafka cluster. Instances with the same cluster name share the work
 * by partitions of owners, namespaces and nodes; when one dies, the others take its partitions
 * over.
 */
public final class ControllersApp {

  private ControllersApp() {}

  /**
   * The application id, which names the consumer group, the internal topics and the state
   * directories. It carries the generation of the topology's state layout: a new generation starts
   * with no committed offsets and rebuilds its stores from the start of {@code events}, which holds
   * every change forever, instead of meeting a layout it cannot read.
   */
  public static String applicationId(Topics topics) {
    return topics.layout().cluster() + "-controllers-" + GENERATION;
  }

  /** Generation 2: keyed by owner and namespace index (generation 1 was keyed by namespace). */
  static final int GENERATION = 2;

  public static StreamsApp start(Topics topics, String bootstrapServers, Path stateDir) {
    return start(topics, NodeLifecycleConfig.defaults(), bootstrapServers, stateDir);
  }

  public static StreamsApp start(
      Topics topics, NodeLifecycleConfig nodeLifecycle, String bootstrapServers, Path stateDir) {
    return start(topics, nodeLifecycle, topics.controllerRequests(), bootstrapServers, stateDir);
  }

  /**
   * The controllers writing to {@code writesTo}: {@code commands} for a plane that runs no gateway
   * to execute their requests (their writes then skip admission).
   */
  public static StreamsApp start(
      Topics topics,
      NodeLifecycleConfig nodeLifecycle,
      Topic<String, ResourceCommand> writesTo,
      String bootstrapServers,
      Path stateDir) {
    return StreamsApp.start(
        applicationId(topics),
        ControllersTopology.buildTopology(topics, nodeLifecycle, writesTo),
        bootstrapServers,
        stateDir);
  }
}
