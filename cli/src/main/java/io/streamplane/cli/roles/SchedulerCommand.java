package io.streamplane.cli.roles;

import io.streamplane.scheduler.SchedulerApp;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane scheduler}: a scheduler (and, unless told otherwise, a binder) against any
 * Kafka cluster. Start several: schedulers share the pending pods, binders the nodes, and no node
 * is ever over-committed.
 */
@Command(
    name = "scheduler",
    mixinStandardHelpOptions = true,
    description = "Run a scheduler and a binder against a Kafka cluster.")
public final class SchedulerCommand implements Callable<Integer> {

  @Mixin ClusterOptions cluster;

  @Mixin MetricsOptions metrics;

  @Option(
      names = "--config",
      description =
          "A KubeSchedulerConfiguration YAML (profile, score weights, percentageOfNodesToScore,"
              + " NodeResourcesFit scoringStrategy).")
  Path config;

  @Option(
      names = "--state-dir",
      defaultValue = ".streamplane/state-scheduler",
      description = "Local RocksDB state (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(names = "--no-binder", description = "Run only the scheduler; binders run elsewhere.")
  boolean withoutBinder;

  @Option(
      names = "--no-scheduler",
      description = "Run only the binder; schedulers run elsewhere (with --no-binder).")
  boolean withoutScheduler;

  @Override
  public Integer call() throws Exception {
    if (withoutBinder && withoutScheduler) {
      System.err.println(
          "streamplane scheduler: --no-binder and --no-scheduler leave nothing to run.");
      return 2;
    }
    SchedulerConfig schedulerConfig =
        config == null
            ? SchedulerConfig.defaults()
            : SchedulerConfig.parse(Files.readString(config));
    List<AutoCloseable> running = new ArrayList<>(List.of(metrics.start("scheduler")));
    KafkaSchemaCatalog catalog = cluster.catalog();
    Topics topics = new Topics(cluster.layout(), catalog);
    running.add(catalog);
    if (!withoutScheduler) {
      running.add(
          SchedulerApp.startScheduler(
              topics,
              schedulerConfig,
              "scheduler-" + UUID.randomUUID().toString().substring(0, 8),
              cluster.bootstrapServers,
              stateDir.resolve("scheduler").toAbsolutePath()));
    }
    if (!withoutBinder) {
      running.add(
          SchedulerApp.startBinder(
              topics, cluster.bootstrapServers, stateDir.resolve("binder").toAbsolutePath()));
    }
    System.out.println(
        "scheduler: "
            + (withoutScheduler
                ? "binder"
                : schedulerConfig.schedulerName() + (withoutBinder ? "" : " and binder"))
            + " running against "
            + cluster.bootstrapServers
            + ". Ctrl-C to stop.");
    Roles.runUntilStopped(running.toArray(AutoCloseable[]::new));
    return 0;
  }
}
