package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.latency.LatencyScenario;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "latency",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Create N small objects, then update each (PUT with its resourceVersion), then delete"
          + " each, from C concurrent clients: per verb p50/p90/p99/max latency and requests/s."
    })
final class LatencyCommand extends ScenarioCommand {

  @Option(
      names = "--count",
      paramLabel = "N",
      defaultValue = "1000",
      description = "Objects (default: ${DEFAULT-VALUE}).")
  int count;

  @Option(
      names = "--clients",
      paramLabel = "C",
      defaultValue = "1",
      description =
          "Concurrent clients; 1 sends one request after another (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--kind",
      paramLabel = "KIND",
      defaultValue = "configmaps",
      description = "configmaps or secrets (default: ${DEFAULT-VALUE}).")
  String kind;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description =
          "Namespace to use (default: a new bench-latency-<id>); an existing one is not deleted.")
  String namespace;

  @Option(names = "--keep", description = "Keep the namespace afterwards.")
  boolean keep;

  @Option(
      names = "--target",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "p99 latency every verb should stay under, e.g. 1s (Kubernetes' SLO).")
  Duration target;

  @Option(
      names = "--profile",
      paramLabel = "PID",
      description =
          "The cluster's JVM, on this machine: break each phase's CPU per request down by hop"
              + " (gateway, store, broker, ...) and stage (JSON, admission, Avro, commit, ...),"
              + " from its threads' CPU times and a Flight Recorder recording started with jcmd.")
  Long profile;

  @Override
  Scenario scenario() {
    return new LatencyScenario(
        new LatencyScenario.Options(count, clients, kind, namespace, keep, target, profile));
  }
}
