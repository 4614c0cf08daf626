package io.streamplane.cli.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every bench scenario takes: where the cluster is and where the report goes. */
public final class BenchOptions {

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "The kubeconfig of the cluster to load (default: $KUBECONFIG, else"
              + " ./.streamplane/kubeconfig, else ~/.kube/config).")
  Path kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description = "The kubeconfig context to use (default: its current context).")
  String context;

  @Option(
      names = "--output",
      paramLabel = "DIR",
      defaultValue = "bench/reports",
      description = "Where <name>.md and <name>.svg are written (default: ${DEFAULT-VALUE}).")
  Path output;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description = "Base name of the report files (default: the scenario's name).")
  String name;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the results as JSON to FILE.")
  Path json;
}
