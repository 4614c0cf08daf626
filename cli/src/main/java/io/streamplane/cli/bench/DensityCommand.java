package io.streamplane.cli.bench;

import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.density.DensityScenario;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "density",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Create D Deployments of R replicas and follow their pods through a watch until all are"
          + " Running: pods/s, and pod startup latency (creationTimestamp to the watch showing"
          + " Running, as Kubernetes' SLI) as p50/p90/p99/max. Deletes its namespace afterwards."
    })
final class DensityCommand extends ScenarioCommand {

  @Option(
      names = "--deployments",
      paramLabel = "D",
      defaultValue = "10",
      description = "Deployments (default: ${DEFAULT-VALUE}).")
  int deployments;

  @Option(
      names = "--replicas",
      paramLabel = "R",
      defaultValue = "10",
      description = "Replicas each (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description =
          "Namespace to use (default: a new bench-density-<id>); an existing one is not deleted.")
  String namespace;

  @Option(
      names = "--image",
      paramLabel = "IMAGE",
      defaultValue = "nginx",
      description = "Container image (default: ${DEFAULT-VALUE}).")
  String image;

  @Option(
      names = "--cpu-request",
      paramLabel = "QUANTITY",
      description = "CPU request of the container, e.g. 10m (default: no requests).")
  String cpuRequest;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "10m",
      converter = DurationConverter.class,
      description = "Give up waiting for all pods Running after this (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(names = "--keep", description = "Keep the namespace and its Deployments afterwards.")
  boolean keep;

  @Option(
      names = "--target",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "p99 pod startup latency to stay under, e.g. 5s (Kubernetes' SLO).")
  Duration target;

  @Override
  Scenario scenario() {
    return new DensityScenario(
        new DensityScenario.Options(
            deployments, replicas, namespace, image, cpuRequest, timeout, keep, target));
  }
}
