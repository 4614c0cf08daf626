package io.streamplane.cli.replay;

import io.streamplane.bench.measure.Progress;
import io.streamplane.cli.history.TimeBound;
import io.streamplane.cli.replay.whatif.WhatIfReplay;
import io.streamplane.cli.roles.ClusterOptions;
import io.streamplane.cli.up.Kubeconfig;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code streamplane replay}: the cluster rebuilt from its log. {@code --verify} checks that {@code
 * events}, and {@code commands} through the store's logic, rebuild the live state byte for byte
 * ({@link Verification}); {@code --until TIME} or {@code --resource-version RV} rebuilds the
 * cluster as it was at that cut, printed, or served as a read-only Kubernetes API with {@code
 * --serve}. Reads the log directly; it needs a Kafka bootstrap address, not a gateway.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
      "Rebuild the cluster's state from its log, as it is now or as it was at any past moment.",
      "--verify: rebuild every object from events and from commands (through the store's logic)"
          + " and compare both, byte for byte, with the store's live state; exit 1 on any"
          + " difference.",
      "--until TIME or --resource-version RV: the whole cluster as it was then, printed, or"
          + " served read-only to kubectl with --serve.",
      "--scheduler-config FILE [--from T1] [--until T2]: the pods bound in that window replayed"
          + " through another scheduler configuration, with a report of how placements differ."
    })
public final class ReplayCommand implements Callable<Integer> {

  /** Machine output formats. */
  enum Output {
    json,
    yaml
  }

  @Mixin ClusterOptions cluster;

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--verify",
      description =
          "Rebuild every object from events and from commands and compare both with the live"
              + " state (the store's objects changelog). Exit 1 on any difference.")
  boolean verify;

  @Option(
      names = "--until",
      paramLabel = "TIME",
      description =
          "The cluster as it was at this time: ISO-8601 (2026-01-02T03:04:05Z) or a duration ago"
              + " (30m, 1h, 2d).")
  String until;

  @Option(
      names = "--resource-version",
      paramLabel = "RV",
      description =
          "The cluster as it was at this list resourceVersion (L<offset>.<offset>..., one offset"
              + " per partition of events, as a list answered it).")
  String resourceVersion;

  @Option(
      names = "--serve",
      description =
          "With --until or --resource-version: serve that state as a read-only Kubernetes API"
              + " and write a kubeconfig for it, until stopped.")
  boolean serve;

  @Option(
      names = "--port",
      defaultValue = "6444",
      description = "Port of the read-only API with --serve (default: ${DEFAULT-VALUE}; 0: any).")
  int port;

  @Option(
      names = "--kubeconfig",
      defaultValue = ".streamplane/replay.kubeconfig",
      description = "Where --serve writes its kubeconfig (default: ${DEFAULT-VALUE}).")
  Path kubeconfig;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "json or yaml: the state at the cut as a List of whole objects.")
  Output output;

  @Option(
      names = "--scheduler-config",
      paramLabel = "FILE",
      description =
          "What-if scheduling: replay the pods bound from --from to --until through a scheduler"
              + " built from this KubeSchedulerConfiguration, and report how placements differ"
              + " from what happened (docs/what-if.md).")
  Path schedulerConfig;

  @Option(
      names = "--from",
      paramLabel = "TIME",
      description =
          "With --scheduler-config: where the window starts (default: the start of the log).")
  String from;

  @Option(
      names = "--report-dir",
      paramLabel = "DIR",
      defaultValue = "bench/reports",
      description =
          "With --scheduler-config: where <name>.md and <name>.svg go (default: ${DEFAULT-VALUE}).")
  Path reportDir;

  @Option(
      names = "--name",
      defaultValue = "what-if",
      description = "With --scheduler-config: the report's base name (default: ${DEFAULT-VALUE}).")
  String name;

  @Option(
      names = "--differences",
      defaultValue = "10",
      description = "How many differences --verify shows with a diff (default: ${DEFAULT-VALUE}).")
  int differences;

  @Override
  public Integer call() throws IOException {
    CommandLine cmd = spec.commandLine();
    if (schedulerConfig != null) {
      if (verify || serve || resourceVersion != null) {
        throw new CommandLine.ParameterException(
            cmd, "--scheduler-config replays a window (--from, --until) and nothing else");
      }
      return new WhatIfReplay(cluster, schedulerConfig, from, until, reportDir, name).run(cmd);
    }
    boolean atCut = until != null || resourceVersion != null;
    if (until != null && resourceVersion != null) {
      throw new CommandLine.ParameterException(
          cmd, "--until and --resource-version name a cut each: give one");
    }
    if (verify == atCut) {
      throw new CommandLine.ParameterException(
          cmd, "give one of --verify, --until TIME or --resource-version RV");
    }
    if (serve && !atCut) {
      throw new CommandLine.ParameterException(
          cmd, "--serve serves the state at --until or --resource-version");
    }
    Instant untilTime;
    try {
      untilTime = until == null ? null : TimeBound.parse(until, Instant.now());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
    }
    try {
      return run(untilTime);
    } catch (IllegalStateException | KafkaException e) {
      cmd.getErr().println("replay: " + e.getMessage());
      cmd.getErr().flush();
      return 2;
    }
  }

  private int run(Instant untilTime) throws IOException {
    CommandLine cmd = spec.commandLine();
    try (KafkaSchemaCatalog catalog = cluster.catalog()) {
      Topics topics = new Topics(cluster.layout(), catalog);
      if (verify) {
        return new Verification(
                cluster.bootstrapServers, topics, StoreApp.objectsChangelog(topics), differences)
            .run(cmd.getOut());
      }
      PastCut cut;
      try (LogReader reader = new LogReader(cluster.bootstrapServers)) {
        String events = topics.events().name();
        long[] ends = reader.ends(events);
        cut =
            untilTime != null
                ? PastCut.at(untilTime, reader.firstOffsetsAfter(events, untilTime, ends))
                : PastCut.of(resourceVersion, ends);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
      }
      return serve ? serve(topics, cut) : print(topics, cut);
    }
  }

  private int print(Topics topics, PastCut cut) {
    PrintWriter out = cmd().getOut();
    PrintWriter err = cmd().getErr();
    Folded folded = fold(cluster.bootstrapServers, topics, cut.offsets());
    TreeMap<String, KeyState> state = folded.state();
    ReplayRate rate = folded.rate();
    ClusterView view = new ClusterView(ResourceRegistry.kubernetes());
    if (output != null) {
      out.print(view.list(state, cut.version().toString(), output == Output.yaml));
    } else {
      out.print(view.table(state));
    }
    out.flush();
    err.println(
        "the cluster as it was at "
            + cut.describe()
            + ": "
            + state.size()
            + " objects ("
            + Verification.byKind(state)
            + ")");
    err.println(rate.line("events"));
    err.flush();
    return 0;
  }

  /** The state at a cut of {@code events} and how fast the replay went. */
  record Folded(TreeMap<String, KeyState> state, ReplayRate rate) {}

  /**
   * Every object as it was at {@code cut} (one offset per partition of {@code events}): the log
   * read on every core, the last record of each key kept as bytes, and only those decoded; with a
   * progress bar.
   */
  static Folded fold(String bootstrapServers, Topics topics, long[] cut) {
    List<EventFold> shares = Collections.synchronizedList(new ArrayList<>());
    try (LogReader reader = new LogReader(bootstrapServers);
        Progress progress =
            Progress.start(
                () -> Progress.Status.of("events", reader.read(), reader.total(), "records"))) {
      ReplayRate rate = ReplayRate.start(reader);
      reader.read(
          topics.events().name(),
          cut,
          LogReader.THREADS,
          thread -> {
            EventFold share = new EventFold();
            shares.add(share);
            return (p, o, t, k, v) -> share.add(p, o, k, v);
          });
      TreeMap<String, KeyState> state = EventFold.union(shares).state(new EventDecoder(topics));
      rate.stop(reader);
      return new Folded(state, rate);
    }
  }

  private int serve(Topics topics, PastCut cut) throws IOException {
    PrintWriter out = cmd().getOut();
    String reason =
        "this API serves the cluster as it was at " + cut.describe() + " and is read-only";
    CountDownLatch stopped = new CountDownLatch(1);
    try (GatewayServer gateway =
        GatewayServer.startReadOnly(
            cluster.bootstrapServers, topics, "127.0.0.1", port, cut.offsets(), reason)) {
      Kubeconfig.write(kubeconfig, gateway.url(), cluster.cluster + "-replay");
      out.println("serving the cluster as it was at " + cut.describe());
      out.println("read-only Kubernetes API: " + gateway.url());
      out.println("kubectl --kubeconfig " + kubeconfig + " get pods -A");
      out.println("Ctrl-C to stop.");
      out.flush();
      Thread hook = new Thread(stopped::countDown, "streamplane-replay-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Runtime.getRuntime().removeShutdownHook(hook);
        Thread.currentThread().interrupt();
      }
    }
    return 0;
  }

  private CommandLine cmd() {
    return spec.commandLine();
  }
}
