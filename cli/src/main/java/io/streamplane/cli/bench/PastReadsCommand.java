package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.past.PastReadsScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "past-reads",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Fill a Streamplane cluster's log to --events events (commands written straight to Kafka,"
          + " turned into events by the store: --pods pod creates, then rounds of updates), then"
          + " time reads of the past through the API: full lists of the pods at random past list"
          + " versions (resourceVersionMatch=Exact), one pod at a past version, and the history"
          + " of one pod (GET /history/...). Needs the cluster's Kafka."
    })
final class PastReadsCommand extends ScenarioCommand {

  @Option(
      names = "--events",
      defaultValue = "1000000",
      description = "Events to write in all (default: ${DEFAULT-VALUE}).")
  long events;

  @Option(
      names = "--pods",
      defaultValue = "10000",
      description = "Pods the events are about (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(
      names = "--samples",
      defaultValue = "30",
      description = "Reads of each kind to time (default: ${DEFAULT-VALUE}).")
  int samples;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of the random choice of versions and pods (default: ${DEFAULT-VALUE}).")
  long seed;

  @Mixin KafkaOptions kafka;

  @Override
  Scenario scenario() {
    if (pods < 1 || events < pods || samples < 1) {
      throw new IllegalArgumentException(
          "--pods and --samples must be positive and --events at least --pods");
    }
    return new PastReadsScenario(
        new PastReadsScenario.Options(
            kafka.bootstrapServers, kafka.cluster, events, pods, samples, seed));
  }
}
