package io.streamplane.cli.bench;

import io.streamplane.bench.recovery.RecoveryBenchmark;
import io.streamplane.bench.report.Report;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "recovery",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Kill -9 a control plane mid-rollout and time its recovery: the whole `up` (its process"
          + " group), each role of the multi-process cluster alone, or one of its 3 brokers;"
          + " restart it and measure restart → ready, ready → first acknowledged write, ready →"
          + " every pod Running; check that every acknowledged write is there, exactly N pods"
          + " and one ReplicaSet, no node over-committed; record each Kafka application's lag"
          + " all along to explain where the time went."
    })
final class RecoveryCommand implements Callable<Integer> {

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=,@%+-]+");

  @Option(
      names = "--scenarios",
      split = ",",
      paramLabel = "NAME",
      defaultValue = "up-none,up,none,gateway,store,controllers,scheduler,nodes,broker",
      description =
          "What to kill, comma-separated: up, gateway, store, controllers, scheduler, nodes,"
              + " broker; up-none and none kill nothing, the same rollout on up and on the"
              + " multi-process cluster as an anchor (default: all).")
  List<String> scenarios;

  @Option(
      names = "--pods",
      split = ",",
      paramLabel = "N",
      defaultValue = "200",
      description =
          "Replicas of the Deployment; several run one after another, e.g. 200,1000"
              + " (default: ${DEFAULT-VALUE}).")
  List<Integer> pods;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description = "Runs of each scenario and pod count (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--nodes",
      defaultValue = "20",
      description = "Simulated nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--node-cpu",
      defaultValue = "4",
      description = "CPU of each node (default: ${DEFAULT-VALUE}).")
  String nodeCpu;

  @Option(
      names = "--cpu-request",
      paramLabel = "QUANTITY",
      defaultValue = "50m",
      description = "CPU each pod requests (default: ${DEFAULT-VALUE}).")
  String cpuRequest;

  @Option(
      names = "--kill-after",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      defaultValue = "8s",
      description = "From the Deployment's create to the kill (default: ${DEFAULT-VALUE}).")
  Duration killAfter;

  @Option(
      names = "--down",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      defaultValue = "1s",
      description = "From the kill to the restart (default: ${DEFAULT-VALUE}).")
  Duration down;

  @Option(
      names = "--writers",
      defaultValue = "4",
      description = "Clients creating ConfigMaps until ready (default: ${DEFAULT-VALUE}).")
  int writers;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      defaultValue = "5m",
      description =
          "How long each wait of a run may take: for ready after the restart, for a write and for"
              + " every pod Running after ready (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--port-base",
      defaultValue = "27000",
      description =
          "The multi-process cluster's brokers listen from this port, their quorum from +10, its"
              + " gateway at +100, the other roles' metrics from +200; up's broker at +300 and"
              + " its API at +301 (default: ${DEFAULT-VALUE}).")
  int portBase;

  @Option(
      names = "--service-cidr",
      paramLabel = "CIDR",
      description = "Passed to up, whose DNS and proxy take addresses in it (default: up's).")
  String serviceCidr;

  @Option(
      names = "--run-dir",
      paramLabel = "DIR",
      description = "Where the clusters keep data and logs (default: a new temporary directory).")
  Path runDir;

  @Option(
      names = "--keep",
      description = "Keep the run directory and each run's namespace afterwards.")
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
      defaultValue = "recovery",
      description = "Base name of the report files (default: ${DEFAULT-VALUE}).")
  String name;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the results as JSON to FILE.")
  Path json;

  @Spec CommandSpec spec;

  /** How long a stopped benchmark may take to write the report of the runs it finished. */
  private static final Duration REPORT_ON_STOP = Duration.ofMinutes(2);

  @Override
  public Integer call() throws Exception {
    List<String> unknown = new ArrayList<>(scenarios);
    unknown.removeAll(RecoveryBenchmark.SCENARIOS);
    if (!unknown.isEmpty()) {
      System.err.println(
          "streamplane bench recovery: unknown scenario "
              + unknown
              + "; the scenarios are "
              + String.join(", ", RecoveryBenchmark.SCENARIOS));
      return 2;
    }
    if (runs < 1 || nodes < 1 || writers < 0 || pods.stream().anyMatch(p -> p < 1)) {
      System.err.println(
          "streamplane bench recovery: --runs, --nodes and --pods must be at least 1, --writers"
              + " at least 0.");
      return 2;
    }
    RecoveryBenchmark benchmark =
        new RecoveryBenchmark(
            new RecoveryBenchmark.Options(
                List.copyOf(scenarios),
                List.copyOf(pods),
                runs,
                nodes,
                nodeCpu,
                cpuRequest,
                killAfter,
                down,
                writers,
                timeout,
                portBase,
                serviceCidr,
                runDir,
                keep),
            commandLine(),
            System.err);
    // Stopped (Ctrl-C, SIGTERM), the runs under way fail at once and the runs done so far are
    // still reported: the JVM waits for the report before it exits.
    CountDownLatch reported = new CountDownLatch(1);
    Thread awaitReport =
        new Thread(
            () -> {
              try {
                reported.await(REPORT_ON_STOP.toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "recovery-report-on-stop");
    Runtime.getRuntime().addShutdownHook(awaitReport);
    Report report;
    List<Path> written;
    try {
      report = benchmark.run();
      written = report.write(output, name, json);
    } finally {
      reported.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(awaitReport);
      } catch (IllegalStateException e) {
        // Stopping already: the hook returns at once now.
      }
    }
    System.out.println(report.summary().strip());
    System.out.println();
    report.targets().forEach(t -> System.out.println("Target " + t.verdict().replace("**", "")));
    written.forEach(p -> System.out.println("wrote " + p));
    if (!report.failures().isEmpty()) {
      System.out.println(report.failures().size() + " problems; see the report.");
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
