package io.streamplane.cli.bench;

import io.streamplane.bench.chaos.ChaosRun;
import io.streamplane.bench.chaos.ProcessCluster;
import io.streamplane.bench.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Start a multi-process control plane (3 Kafka brokers, every role as its own process), run"
          + " a workload of ConfigMap compare-and-sets, rollouts, scales, creates and deletes"
          + " while killing (kill -9, then restarting) and pausing (SIGSTOP/SIGCONT) random"
          + " processes, then check: acknowledged writes lost, per-object linearizability, watch"
          + " gaps, duplicate pods, pods beyond maxSurge, over-committed nodes; measure recovery"
          + " after each fault and failover of the controllers and schedulers."
    })
final class ChaosCommand implements Callable<Integer> {

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,@%+-]+");

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      defaultValue = "15m",
      description = "How long faults are injected (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(
      names = "--fault-interval",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      defaultValue = "7s",
      description =
          "Mean time between faults; each varies by half either way (default: ${DEFAULT-VALUE}).")
  Duration faultInterval;

  @Option(
      names = "--cluster-kills",
      defaultValue = "2",
      description =
          "Times every process is killed at once and restarted, spread evenly over the run"
              + " (default: ${DEFAULT-VALUE}).")
  int clusterKills;

  @Option(
      names = "--clients",
      defaultValue = "4",
      description = "Register clients (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--registers",
      defaultValue = "6",
      description = "ConfigMaps the register clients share (default: ${DEFAULT-VALUE}).")
  int registers;

  @Option(
      names = "--deployments",
      defaultValue = "3",
      description = "Deployments rolled out and scaled (default: ${DEFAULT-VALUE}).")
  int deployments;

  @Option(
      names = "--replicas",
      defaultValue = "3",
      description =
          "Their replicas; scales go between this and one less (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--brokers",
      defaultValue = "3",
      description = "Kafka brokers (default: ${DEFAULT-VALUE}).")
  int brokers;

  @Option(
      names = "--gateways",
      defaultValue = "2",
      description = "Gateways (default: ${DEFAULT-VALUE}).")
  int gateways;

  @Option(
      names = "--stores",
      defaultValue = "2",
      description = "Stores (default: ${DEFAULT-VALUE}).")
  int stores;

  @Option(
      names = "--controllers",
      defaultValue = "2",
      description = "Controllers instances (default: ${DEFAULT-VALUE}).")
  int controllers;

  @Option(
      names = "--schedulers",
      defaultValue = "2",
      description = "Schedulers, each with a binder (default: ${DEFAULT-VALUE}).")
  int schedulers;

  @Option(
      names = "--nodes",
      defaultValue = "4",
      description = "Simulated nodes, in one process (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--node-cpu",
      defaultValue = "2",
      description = "CPU of each node (default: ${DEFAULT-VALUE}).")
  String nodeCpu;

  @Option(
      names = "--partitions",
      defaultValue = "6",
      description = "Partitions of commands, events and results (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(
      names = "--port-base",
      defaultValue = "26000",
      description =
          "Brokers listen from this port, their quorum from +10, gateways from +100, the other"
              + " roles' metrics from +200 (default: ${DEFAULT-VALUE}).")
  int portBase;

  @Option(
      names = "--run-dir",
      paramLabel = "DIR",
      description = "Where the processes keep data and logs (default: a new temporary directory).")
  Path runDir;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of the fault choices (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--keep", description = "Keep the run directory (data, logs) afterwards.")
  boolean keep;

  @Option(
      names = "--output",
      paramLabel = "DIR",
      defaultValue = "bench/reports",
      description = "Where <name>.md and <name>.svg are written (default: ${DEFAULT-VALUE}).")
  Path output;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      defaultValue = "chaos",
      description = "Base name of the report files (default: ${DEFAULT-VALUE}).")
  String name;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the results as JSON to FILE.")
  Path json;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (gateways < 1 || brokers < 1 || controllers < 1 || schedulers < 1 || stores < 1) {
      System.err.println("streamplane bench chaos: every role needs at least one instance.");
      return 2;
    }
    Path dir = runDir != null ? runDir : Files.createTempDirectory("streamplane-chaos-");
    ProcessCluster.Layout layout =
        new ProcessCluster.Layout(
            dir.toAbsolutePath(),
            portBase,
            "chaos",
            partitions,
            brokers,
            gateways,
            stores,
            controllers,
            schedulers,
            nodes,
            nodeCpu);
    ChaosRun run =
        new ChaosRun(
            new ChaosRun.Options(
                layout,
                duration,
                faultInterval,
                clusterKills,
                clients,
                registers,
                deployments,
                replicas,
                seed,
                keep),
            commandLine(),
            System.err);
    Report report = run.run();
    List<Path> written = report.write(output, name, json);
    System.out.println(report.summary().strip());
    System.out.println();
    written.forEach(p -> System.out.println("wrote " + p));
    if (!report.failures().isEmpty()) {
      System.out.println(report.failures().size() + " violations or problems; see the report.");
    }
    return report.failed() ? 1 : 0;
  }

  private String commandLine() {
    List<String> args = spec.commandLine().getParseResult().originalArgs();
    return "./streamplane "
        + args.stream()
            .map(a -> PLAIN.matcher(a).matches() ? a : "'" + a.replace("'", "'\\''") + "'")
            .collect(Collectors.joining(" "));
  }
}
