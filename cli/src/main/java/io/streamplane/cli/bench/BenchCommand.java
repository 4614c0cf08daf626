package io.streamplane.cli.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code streamplane bench}: a Kubernetes API load generator. Each scenario runs against the
 * cluster of a kubeconfig (Streamplane's or any Kubernetes cluster), shows its progress on stderr
 * and writes a Markdown report with an SVG chart; see docs/bench.md.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Load a Kubernetes API server (Streamplane's or any other) and report what it measured:"
          + " <output>/<name>.md with an SVG chart, and optionally JSON. Exit status 1 when the"
          + " run had problems or missed its --target.",
      "See docs/bench.md for what each scenario measures."
    },
    subcommands = {
      DensityCommand.class,
      LatencyCommand.class,
      ChurnCommand.class,
      IdleCommand.class,
      WatchFanoutCommand.class,
      EndpointsCommand.class,
      PastReadsCommand.class,
      ReplayBenchCommand.class,
      ChaosCommand.class,
      RecoveryCommand.class,
      CommandLine.HelpCommand.class
    })
public final class BenchCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
