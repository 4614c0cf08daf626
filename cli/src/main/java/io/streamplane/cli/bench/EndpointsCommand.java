package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.endpoints.EndpointsScenario;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "endpoints",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run N pods behind one headless Service and measure, per pod, pod Ready → its address"
          + " ready in an EndpointSlice → the cluster DNS answering it: p50/p99/max."
    })
final class EndpointsCommand extends ScenarioCommand {

  @Option(
      names = "--pods",
      paramLabel = "N",
      defaultValue = "100",
      description = "Pods behind the Service (default: ${DEFAULT-VALUE}).")
  int pods;

  @Option(
      names = "--image",
      paramLabel = "IMAGE",
      defaultValue = "nginx",
      description = "Container image (default: ${DEFAULT-VALUE}).")
  String image;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description =
          "Namespace to use (default: a new bench-endpoints-<id>); an existing one is not"
              + " deleted.")
  String namespace;

  @Option(names = "--keep", description = "Keep the namespace afterwards.")
  boolean keep;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description =
          "Give up this long after the Deployment is created (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--target",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "p99 of pod Ready → DNS answer to stay under, e.g. 1s.")
  Duration target;

  @Override
  Scenario scenario() {
    return new EndpointsScenario(
        new EndpointsScenario.Options(pods, image, namespace, keep, timeout, target));
  }
}
