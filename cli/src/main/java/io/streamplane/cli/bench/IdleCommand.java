package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.idle.IdleScenario;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "idle",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Record what a Streamplane cluster at rest writes to Kafka: records per second per topic"
          + " (its log, the Streams apps' internal topics, offsets and transactions), and the"
          + " commands and events of the window by verb, resource and actor, so that anything"
          + " besides Lease renewals shows. Needs the cluster's Kafka; sends nothing."
    })
final class IdleCommand extends ScenarioCommand {

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description = "Length of the window (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Mixin KafkaOptions kafka;

  @Option(
      names = "--pid",
      paramLabel = "PID",
      description = "Also report this process's CPU over the window, as %% of one core.")
  Long pid;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description = "How often end offsets are sampled for the chart (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(
      names = "--target",
      paramLabel = "RATE",
      description = "Commands other than Lease renewals per second to stay under, e.g. 0.")
  Double target;

  @Option(
      names = "--profile",
      description =
          "Break the --pid process's CPU down by hop (gateway, store, broker, ...) and stage, from"
              + " its threads' CPU times and a Flight Recorder recording started with jcmd.")
  boolean profile;

  @Override
  Scenario scenario() {
    if (duration.isZero() || duration.isNegative() || interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("--duration and --interval must be positive");
    }
    return new IdleScenario(
        new IdleScenario.Options(
            duration, kafka.bootstrapServers, kafka.cluster, pid, interval, target, profile));
  }
}
