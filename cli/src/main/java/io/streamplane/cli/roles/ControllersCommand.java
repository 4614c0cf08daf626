package io.streamplane.cli.roles;

import io.streamplane.controller.ControllersApp;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane controllers}: the Deployment, ReplicaSet, garbage-collector, namespace and
 * node lifecycle controllers against any Kafka cluster. A second instance takes half the namespace
 * and node partitions, and all of them when the first dies.
 */
@Command(
    name = "controllers",
    mixinStandardHelpOptions = true,
    description =
        "Run the controllers (deployments, replicasets, GC, namespaces, node lifecycle) against Kafka.")
public final class ControllersCommand implements Callable<Integer> {

  @Mixin ClusterOptions cluster;

  @Mixin NodeLifecycleOptions nodeLifecycle;

  @Mixin MetricsOptions metrics;

  @Option(
      names = "--state-dir",
      defaultValue = ".streamplane/state-controllers",
      description = "Local RocksDB state (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Override
  public Integer call() throws Exception {
    AutoCloseable metricsServer = metrics.start("controllers");
    KafkaSchemaCatalog catalog = cluster.catalog();
    StreamsApp controllers =
        ControllersApp.start(
            new Topics(cluster.layout(), catalog),
            nodeLifecycle.config(),
            cluster.bootstrapServers,
            stateDir.toAbsolutePath());
    System.out.println(
        "controllers: running against " + cluster.bootstrapServers + ". Ctrl-C to stop.");
    Roles.runUntilStopped(metricsServer, catalog, controllers);
    return 0;
  }
}
