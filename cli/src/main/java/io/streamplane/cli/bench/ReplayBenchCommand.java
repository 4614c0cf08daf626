package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.cli.replay.ReplayScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Replay a Streamplane cluster's whole events log into the state it describes, as"
          + " `streamplane replay --until` does, --runs times, and report events/s and MB/s."
          + " Needs the cluster's Kafka; writes nothing."
    })
final class ReplayBenchCommand extends ScenarioCommand {

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "How many times to replay the log (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--bootstrap-server",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:19092",
      description = "The cluster's Kafka (default: ${DEFAULT-VALUE}).")
  String bootstrapServers;

  @Option(
      names = "--cluster",
      paramLabel = "NAME",
      defaultValue = "sp",
      description = "Cluster name, the prefix of its topics (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Override
  Scenario scenario() {
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be positive");
    }
    return new ReplayScenario(new ReplayScenario.Options(bootstrapServers, cluster, runs));
  }
}
