package io.streamplane.cli.roles;

import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane store}: the store alone, against any Kafka cluster whose topics exist (run
 * {@code up} or create them first). More instances share the commands partitions.
 */
@Command(
    name = "store",
    mixinStandardHelpOptions = true,
    description = "Run the store (commands -> events) against a Kafka cluster.")
public final class StoreCommand implements Callable<Integer> {

  @Mixin ClusterOptions cluster;

  @Mixin MetricsOptions metrics;

  @Option(
      names = "--state-dir",
      defaultValue = ".streamplane/state-store",
      description = "Local RocksDB state (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Override
  public Integer call() throws Exception {
    AutoCloseable metricsServer = metrics.start("store");
    KafkaSchemaCatalog catalog = cluster.catalog();
    StreamsApp store =
        StoreApp.start(
            new Topics(cluster.layout(), catalog),
            cluster.bootstrapServers,
            stateDir.toAbsolutePath());
    System.out.println("store: running against " + cluster.bootstrapServers + ". Ctrl-C to stop.");
    Roles.runUntilStopped(metricsServer, catalog, store);
    return 0;
  }
}
