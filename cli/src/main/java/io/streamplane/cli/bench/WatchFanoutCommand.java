package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.fanout.WatchFanoutScenario;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "watch-fanout",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Open W watches on the ConfigMaps of a namespace, create N ConfigMaps, and measure each"
          + " event's delivery lag (arrival at a watcher minus the create's answer): p50/p99/max."
    })
final class WatchFanoutCommand extends ScenarioCommand {

  @Option(
      names = "--watchers",
      paramLabel = "W",
      defaultValue = "10",
      description = "Watches (default: ${DEFAULT-VALUE}).")
  int watchers;

  @Option(
      names = "--writes",
      paramLabel = "N",
      defaultValue = "100",
      description = "ConfigMaps created (default: ${DEFAULT-VALUE}).")
  int writes;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description =
          "Namespace to use (default: a new bench-watch-fanout-<id>); an existing one is not"
              + " deleted.")
  String namespace;

  @Option(names = "--keep", description = "Keep the namespace afterwards.")
  boolean keep;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description =
          "Wait this long after the last create for missing events (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--target",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "p99 delivery lag to stay under, e.g. 100ms.")
  Duration target;

  @Override
  Scenario scenario() {
    return new WatchFanoutScenario(
        new WatchFanoutScenario.Options(watchers, writes, namespace, keep, timeout, target));
  }
}
