package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.cli.replay.ReplayScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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

  @Mixin KafkaOptions kafka;

  @Override
  Scenario scenario() {
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be positive");
    }
    return new ReplayScenario(
        new ReplayScenario.Options(kafka.bootstrapServers, kafka.cluster, runs));
  }
}
