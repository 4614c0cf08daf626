package io.streamplane.scheduler;

import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.Topics;
import java.nio.file.Path;

/**
 * Runs a scheduler and a binder against a Kafka cluster. Schedulers of one cluster share the pod
 * partitions; binders share the node partitions. Any number of either may run.
 */
public final class SchedulerApp {

  private SchedulerApp() {}

  public static String schedulerApplicationId(Topics topics, SchedulerConfig config) {
    return topics.layout().cluster() + "-scheduler-" + config.schedulerName();
  }

  public static String binderApplicationId(Topics topics) {
    return topics.layout().cluster() + "-binder";
  }

  public static StreamsApp startScheduler(
      Topics topics,
      SchedulerConfig config,
      String schedulerId,
      String bootstrapServers,
      Path stateDir) {
    return StreamsApp.start(
        schedulerApplicationId(topics, config),
        SchedulerTopology.scheduler(topics, config, schedulerId),
        bootstrapServers,
        stateDir);
  }

  public static StreamsApp startBinder(Topics topics, String bootstrapServers, Path stateDir) {
    return StreamsApp.start(
        binderApplicationId(topics), SchedulerTopology.binder(topics), bootstrapServers, stateDir);
  }
}
