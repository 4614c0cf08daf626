package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.churn.ChurnScenario;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "churn",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Scale D Deployments 0 -> R -> 0 -> ... for the duration (PATCH of the scale"
          + " subresource, as kubectl scale): scale request latency, pods created and deleted per"
          + " second, and how long each step takes to converge, seen through a pod watch."
    })
final class ChurnCommand extends ScenarioCommand {

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description = "Start scale steps for this long (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(
      names = "--deployments",
      paramLabel = "D",
      defaultValue = "5",
      description = "Deployments (default: ${DEFAULT-VALUE}).")
  int deployments;

  @Option(
      names = "--replicas",
      paramLabel = "R",
      defaultValue = "10",
      description = "Replicas each at the top of a step (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description =
          "Namespace to use (default: a new bench-churn-<id>); an existing one is not deleted.")
  String namespace;

  @Option(
      names = "--image",
      paramLabel = "IMAGE",
      defaultValue = "nginx",
      description = "Container image (default: ${DEFAULT-VALUE}).")
  String image;

  @Option(
      names = "--step-timeout",
      paramLabel = "DURATION",
      defaultValue = "5m",
      converter = DurationConverter.class,
      description = "Give up when a step has not converged after this (default: ${DEFAULT-VALUE}).")
  Duration stepTimeout;

  @Option(names = "--keep", description = "Keep the namespace and its Deployments afterwards.")
  boolean keep;

  @Option(
      names = "--target",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "p99 convergence time of a step to stay under, e.g. 30s.")
  Duration target;

  @Override
  Scenario scenario() {
    return new ChurnScenario(
        new ChurnScenario.Options(
            duration, deployments, replicas, namespace, image, stepTimeout, keep, target));
  }
}
