package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.bench.chaos.Ledger.Outcome;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.measure.Progress;
import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.recovery.LagSampler;
import io.streamplane.bench.recovery.LagTimeline;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.Report;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.topics.TopicLayout;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A chaos run from start to report: starts a {@link ProcessCluster}, runs the {@link Workload}
 * while the {@link FaultInjector} kills and pauses its processes, lets the cluster converge,
 * measures {@link Failover} of the controllers and the schedulers, reads the log and runs the
 * checks ({@link ChaosChecks}, {@link PodSampler}, the binders' node usage), and writes it all up.
 */
public final class ChaosRun {

  /** What to run. */
  public record Options(
      ProcessCluster.Layout layout,
      Duration duration,
      Duration faultInterval,
      int clusterKills,
      int registerClients,
      int registers,
      int deployments,
      int replicas,
      long seed,
      boolean keep) {}

  private static final String NAMESPACE = "chaos";
  private static final String FAILOVER_NAMESPACE = "chaos-failover";
  private static final long SLOW_FAULT = 10_000_000_000L;

  private final Options options;
  private final String command;
  private final PrintStream log;

  public ChaosRun(Options options, String command, PrintStream log) {
    this.options = options;
    this.command = command;
    this.log = log;
  }

  /** {@code count} moments spread evenly over the run, neither at its start nor at its end. */
  static List<Duration> clusterKillTimes(Duration duration, int count) {
    List<Duration> times = new ArrayList<>();
    for (int k = 1; k <= count; k++) {
      times.add(duration.multipliedBy(k).dividedBy(count + 1));
    }
    return times;
  }

  /** Runs it all; the report's failures list every violation found. */
  public Report run() throws Exception {
    Instant startedAt = Instant.now();
    long started = System.nanoTime();
    ProcessCluster.Layout layout = options.layout();
    List<String> failures = new ArrayList<>();
    try (ProcessCluster cluster = ProcessCluster.start(layout, log)) {
      KubeClient admin = ChaosApi.client(cluster.apiServers().get(0), cluster.identity());
      for (String ns : List.of(NAMESPACE, FAILOVER_NAMESPACE)) {
        ObjectNode body = KubeClient.JSON.createObjectNode();
        body.put("apiVersion", "v1").put("kind", "Namespace").putObject("metadata").put("name", ns);
        KubeClient.Response r = admin.post("/api/v1/namespaces", body);
        if (!r.ok()) {
          throw new IOException("cannot create namespace " + ns + ": " + r.message());
        }
      }
      Ledger ledger = new Ledger(System.nanoTime());
      Workload workload =
          new Workload(
              new Workload.Shape(
                  NAMESPACE,
                  options.registerClients(),
                  options.registers(),
                  options.deployments(),
                  options.replicas()),
              cluster.apiServers(),
              cluster.identity(),
              ledger);
      FaultInjector faults =
          new FaultInjector(
              cluster,
              ledger,
              options.faultInterval(),
              NAMESPACE,
              layout.partitions(),
              clusterKillTimes(options.duration(), options.clusterKills()),
              options.seed());
      WatchRecorder watch =
          new WatchRecorder(
              cluster.apiServers(),
              cluster.identity(),
              "/api/v1/namespaces/" + NAMESPACE + "/configmaps");
      PodSampler pods = new PodSampler(ledger);
      String[] phase = {"chaos"};
      List<Failover.Round> rounds = new ArrayList<>();
      List<String> duplicates;
      Workloads workloads;
      List<String> notConverged = new ArrayList<>();
      LagTimeline lag = new LagTimeline();
      try (LagSampler lagSampler =
              new LagSampler(cluster.bootstrapServers(), cluster::scrape, lag, ledger::now);
          Progress progress =
              Progress.start(
                  () ->
                      new Progress.Status(
                          phase[0],
                          faults.injected(),
                          0,
                          "faults",
                          String.format(
                              Locale.ROOT,
                              "ops %,d (acknowledged writes %,d)  watch events %,d  faulted: %s",
                              ledger.size(),
                              workload.acknowledgedWrites(),
                              watch.count(),
                              faults.faulted())))) {
        watch.start();
        lagSampler.start();
        pods.start(
            cluster.apiServers().get(cluster.apiServers().size() - 1),
            cluster.identity(),
            NAMESPACE);
        workload.start();
        faults.start();
        Thread.sleep(options.duration().toMillis());
        phase[0] = "stopping faults";
        faults.close();
        phase[0] = "stopping clients";
        workload.close();
        phase[0] = "converging";
        notConverged.addAll(converge(admin));
        // Bookmarks come every 5 s; a few of them let the watch catch up with the last writes.
        Thread.sleep(20_000);
        try {
          duplicates = PodSampler.duplicates(admin, NAMESPACE);
        } catch (IOException e) {
          duplicates = List.of("could not list pods and ReplicaSets: " + e);
        }
        workloads = workloads(admin, pods);
        watch.close();
        pods.close();
        phase[0] = "failover";
        Failover failover = new Failover(cluster, FAILOVER_NAMESPACE, layout.partitions());
        for (String role : List.of("controllers", "scheduler")) {
          for (int i = -1; i < 2; i++) {
            String victim = i < 0 ? null : role + "-" + i;
            try {
              rounds.add(failover.measure(role, victim));
            } catch (IOException | IllegalStateException e) {
              // IllegalStateException: the victim is not running (a restart that failed).
              failures.add("failover round of " + role + " (" + victim + "): " + e.getMessage());
              if (victim != null && !cluster.alive(victim)) {
                cluster.restart(victim);
              }
            }
            if (victim != null) {
              // The killed instance, restarted, rejoins before the next round.
              Thread.sleep(30_000);
            }
          }
        }
        phase[0] = "checking";
      }
      log.println("chaos: reading the log");
      TopicLayout topics =
          new TopicLayout(
              layout.cluster(),
              layout.partitions(),
              layout.partitions(),
              3,
              (short) Math.min(3, layout.brokers()));
      LogHistory history = LogHistory.read(cluster.bootstrapServers(), topics, NAMESPACE);
      List<Ledger.Op> ops = ledger.ops();
      ops.sort(Comparator.comparingLong(Ledger.Op::invoked));
      List<String> lost = ChaosChecks.lostWrites(ops, history);
      ChaosChecks.Linearizability lin =
          ChaosChecks.linearizability(ops, history, options.registers());
      ChaosChecks.WatchFindings watched = ChaosChecks.watch(watch, history, NAMESPACE);
      List<String> surge =
          PodSampler.beyondSurge(pods.samples(), ops, pods.versions(), options.replicas(), 1);
      List<String> api;
      try {
        api =
            ChaosChecks.apiAgainstLog(cluster.apiServers(), cluster.identity(), history, NAMESPACE);
      } catch (IOException e) {
        api = List.of("could not read the objects back: " + e);
      }
      List<FaultInjector.Fault> faultList = faults.faults();
      faultList.sort(Comparator.comparingInt(FaultInjector.Fault::id));

      lost.forEach(l -> failures.add("acknowledged write lost: " + l));
      lin.verdicts()
          .forEach(
              (name, v) -> {
                if (!v.linearizable()) {
                  failures.add(
                      "not linearizable: "
                          + name
                          + " ("
                          + v.operations()
                          + " operations; longest linearizable prefix "
                          + v.longestPrefix().size()
                          + ", ending "
                          + tail(v.longestPrefix())
                          + ")");
                }
              });
      watched.gaps().forEach(g -> failures.add("watch gap: " + g));
      watched.duplicates().forEach(g -> failures.add("watch duplicate: " + g));
      watched.reorders().forEach(g -> failures.add("watch reordering: " + g));
      watched.unknown().forEach(g -> failures.add("watch event not in the log: " + g));
      duplicates.forEach(d -> failures.add("duplicate pods: " + d));
      workloads.jobs().findings().forEach(j -> failures.add("job pods miscounted: " + j));
      workloads.ordinals().forEach(o -> failures.add("statefulset ordinal duplicated: " + o));
      workloads.daemonPods().forEach(d -> failures.add("daemonset pods per node: " + d));
      surge.forEach(s -> failures.add("pods beyond replicas + maxSurge: " + s));
      history
          .overCommits()
          .forEach(
              o ->
                  failures.add(
                      "over-committed node "
                          + o.node()
                          + " at node-usage offset "
                          + o.offset()
                          + ": "
                          + o.allocated()
                          + " of "
                          + o.allocatable()));
      api.forEach(a -> failures.add("API differs from the log: " + a));
      notConverged.forEach(n -> failures.add("did not converge: " + n));
      faults.errors().forEach(e -> failures.add("fault injection: " + e));
      faultList.stream()
          .filter(f -> f.recovered() < 0)
          .forEach(
              f ->
                  failures.add(
                      "fault "
                          + f.id()
                          + " ("
                          + f.type()
                          + " "
                          + f.target()
                          + "): not recovered within 120 s; no acknowledged write through "
                          + String.join(", ", f.slowest())));

      Duration took = Duration.ofNanos(System.nanoTime() - started);
      Report report =
          report(
              startedAt,
              took,
              cluster,
              ops,
              faultList,
              lost,
              lin,
              watched,
              pods,
              duplicates,
              workloads,
              surge,
              history,
              api,
              rounds,
              lag,
              failures);
      if (!options.keep()) {
        cluster.close();
        delete(layout.runDir());
      }
      return report;
    }
  }

  private static String tail(List<RegisterChecker.Op> prefix) {
    return prefix.isEmpty() ? "-" : prefix.get(prefix.size() - 1).toString();
  }

  /**
   * The Jobs not yet finished, and the DaemonSet and StatefulSet while their pods are not all at
   * the current template, ready, and as many as wanted.
   */
  private static List<String> workloadsPending(KubeClient client) throws InterruptedException {
    List<String> pending = new ArrayList<>();
    try {
      for (JsonNode job : items(client, "/apis/batch/v1/namespaces/" + NAMESPACE + "/jobs")) {
        boolean finished = false;
        for (JsonNode c : job.at("/status/conditions")) {
          finished |=
              (c.path("type").asText().equals("Complete")
                      || c.path("type").asText().equals("Failed"))
                  && c.path("status").asText().equals("True");
        }
        if (!finished) {
          pending.add("job " + job.at("/metadata/name").asText() + " " + job.path("status"));
        }
      }
      String apps = "/apis/apps/v1/namespaces/" + NAMESPACE;
      JsonNode ds = client.get(apps + "/daemonsets/" + Workload.DAEMON_SET).body();
      JsonNode dss = ds == null ? null : ds.path("status");
      if (dss == null
          || dss.path("observedGeneration").asLong() < ds.at("/metadata/generation").asLong()
          || dss.path("updatedNumberScheduled").asInt(-1)
              != dss.path("desiredNumberScheduled").asInt()
          || dss.path("numberAvailable").asInt(-1) != dss.path("desiredNumberScheduled").asInt()) {
        pending.add("daemonset " + dss);
      }
      JsonNode sts = client.get(apps + "/statefulsets/" + Workload.STATEFUL_SET).body();
      JsonNode stss = sts == null ? null : sts.path("status");
      int want = sts == null ? -1 : sts.at("/spec/replicas").asInt();
      if (stss == null
          || stss.path("observedGeneration").asLong() < sts.at("/metadata/generation").asLong()
          || stss.path("replicas").asInt(-1) != want
          || stss.path("readyReplicas").asInt(-1) != want) {
        pending.add("statefulset " + stss);
      }
    } catch (IOException e) {
      pending.add("workloads (" + e + ")");
    }
    return pending;
  }

  /** What the Job, StatefulSet and DaemonSet checks found. */
  record Workloads(
      ChaosChecks.JobCounts jobs, int jobCount, List<String> ordinals, List<String> daemonPods) {}

  /** The Job, StatefulSet and DaemonSet checks, after convergence. */
  private static Workloads workloads(KubeClient client, PodSampler sampler)
      throws InterruptedException {
    List<String> ordinals = new ArrayList<>(sampler.ordinalDuplicates());
    try {
      List<JsonNode> jobs = items(client, "/apis/batch/v1/namespaces/" + NAMESPACE + "/jobs");
      List<JsonNode> pods = items(client, "/api/v1/namespaces/" + NAMESPACE + "/pods");
      List<JsonNode> nodes = items(client, "/api/v1/nodes");
      JsonNode set =
          client
              .get(
                  "/apis/apps/v1/namespaces/"
                      + NAMESPACE
                      + "/statefulsets/"
                      + Workload.STATEFUL_SET)
              .body();
      ordinals.addAll(
          ChaosChecks.statefulOrdinals(
              pods, Workload.STATEFUL_SET, set == null ? 0 : set.at("/spec/replicas").asInt()));
      return new Workloads(
          ChaosChecks.jobCounts(jobs, sampler.jobSucceeded(), sampler.jobFailed()),
          jobs.size(),
          ordinals,
          ChaosChecks.daemonPodsPerNode(nodes, pods, Workload.DAEMON_SET));
    } catch (IOException e) {
      return new Workloads(
          new ChaosChecks.JobCounts(0, 0, List.of("could not list: " + e)), 0, ordinals, List.of());
    }
  }

  private static List<JsonNode> items(KubeClient client, String path)
      throws IOException, InterruptedException {
    KubeClient.Response r = client.get(path);
    if (!r.ok() || r.body() == null) {
      throw new IOException(path + ": " + r.status());
    }
    List<JsonNode> items = new ArrayList<>();
    r.body().path("items").forEach(items::add);
    return items;
  }

  /** Waits until every web Deployment has all its replicas updated and available. */
  private List<String> converge(KubeClient client) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    List<String> pending = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      pending.clear();
      for (int i = 0; i < options.deployments(); i++) {
        String name = Workload.web(i);
        try {
          KubeClient.Response r =
              client.get("/apis/apps/v1/namespaces/" + NAMESPACE + "/deployments/" + name);
          JsonNode d = r.body();
          if (!r.ok() || d == null) {
            pending.add(name + " (" + r.status() + ")");
            continue;
          }
          int want = d.at("/spec/replicas").asInt();
          JsonNode s = d.path("status");
          boolean done =
              s.path("observedGeneration").asLong() >= d.at("/metadata/generation").asLong()
                  && s.path("updatedReplicas").asInt() == want
                  && s.path("replicas").asInt() == want
                  && s.path("availableReplicas").asInt() == want;
          if (!done) {
            pending.add(name + " " + s);
          }
        } catch (IOException e) {
          pending.add(name + " (" + e + ")");
        }
      }
      pending.addAll(workloadsPending(client));
      if (pending.isEmpty()) {
        return List.of();
      }
      Thread.sleep(1_000);
    }
    return new ArrayList<>(pending);
  }

  private Report report(
      Instant startedAt,
      Duration took,
      ProcessCluster cluster,
      List<Ledger.Op> ops,
      List<FaultInjector.Fault> faults,
      List<String> lost,
      ChaosChecks.Linearizability lin,
      ChaosChecks.WatchFindings watched,
      PodSampler pods,
      List<String> duplicates,
      Workloads workloads,
      List<String> surge,
      LogHistory history,
      List<String> api,
      List<Failover.Round> rounds,
      LagTimeline lag,
      List<String> failures) {
    ProcessCluster.Layout layout = options.layout();
    long acknowledged = ops.stream().filter(o -> o.isWrite() && o.outcome() == Outcome.OK).count();
    long unknown = ops.stream().filter(o -> o.outcome() == Outcome.UNKNOWN).count();
    long kills = faults.stream().filter(f -> f.type().equals("kill")).count();
    long killAll = faults.stream().filter(f -> f.type().equals("kill-all")).count();
    double[] recovery =
        faults.stream()
            .filter(f -> f.recovered() >= 0)
            .mapToDouble(f -> (f.recovered() - f.injected()) / 1e9)
            .toArray();
    double[] firstWrite = faults.stream().mapToDouble(f -> firstWrite(ops, f)).toArray();

    StringBuilder summary = new StringBuilder();
    summary.append(
        String.format(
            Locale.ROOT,
            "%d faults in %s (%d kill -9 and restart, %d SIGSTOP/SIGCONT, %d kill -9 of every"
                + " process at once) on %d processes; %,d operations, %,d acknowledged writes, %,d"
                + " with an unknown outcome.\n\n",
            faults.size(),
            Markdown.seconds(options.duration().toMillis() / 1000.0),
            kills,
            faults.size() - kills - killAll,
            killAll,
            cluster.instances().size(),
            ops.size(),
            acknowledged,
            unknown));
    summary.append(
        Markdown.table(
            List.of("check", "result"),
            "lr",
            List.of(
                List.of("acknowledged writes lost", Integer.toString(lost.size())),
                List.of(
                    "registers not linearizable", lin.failed() + " of " + lin.verdicts().size()),
                List.of(
                    "watch anomalies (gap, duplicate, reordering, unknown event)",
                    Integer.toString(watched.anomalies())),
                List.of("duplicate pods after convergence", Integer.toString(duplicates.size())),
                List.of(
                    "Job pods counted twice / lost",
                    workloads.jobs().countedTwice() + " / " + workloads.jobs().lost()),
                List.of(
                    "StatefulSet ordinals duplicated",
                    Integer.toString(workloads.ordinals().size())),
                List.of(
                    "DaemonSet pods per node ≠ 1", Integer.toString(workloads.daemonPods().size())),
                List.of(
                    "moments with pods beyond replicas + maxSurge", Integer.toString(surge.size())),
                List.of(
                    "over-committed node records", Integer.toString(history.overCommits().size())),
                List.of("objects the API serves unlike the log", Integer.toString(api.size())),
                List.of(
                    "recovery after a fault (all gateways write all partitions), p50 / max",
                    seconds(percentile(recovery, 0.5)) + " / " + seconds(percentile(recovery, 1))),
                List.of(
                    "controllers failover (slowest partition), max over kills",
                    seconds(maxOf(rounds, "controllers"))),
                List.of(
                    "scheduler failover (slowest partition), max over kills",
                    seconds(maxOf(rounds, "scheduler"))))));

    StringBuilder body = new StringBuilder();
    body.append("## The cluster\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "Every process separate, on this machine: %d Kafka brokers (KRaft, each also a"
                    + " quorum voter; topics replicated %d ways, `min.insync.replicas=2`), %d"
                    + " gateways, %d stores, %d controllers, %d schedulers (each with a binder),"
                    + " and %d simulated nodes of %s CPU in one `nodes` process; %d partitions."
                    + " The faults' targets: %s.\n\n",
                layout.brokers(),
                Math.min(3, layout.brokers()),
                layout.gateways(),
                layout.stores(),
                layout.controllers(),
                layout.schedulers(),
                layout.nodes(),
                layout.nodeCpu(),
                layout.partitions(),
                String.join(
                    ", ", cluster.instances().stream().map(Cluster.Instance::name).toList())));
    body.append("## The workload\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "%d register clients on %d ConfigMaps (reads; PUTs with the resourceVersion last"
                    + " read; deletes with a resourceVersion precondition; creates; every value"
                    + " written once), and a Deployment client: rollouts (a new image) and scales"
                    + " between %d and %d replicas of %d `web` Deployments (RollingUpdate, maxSurge"
                    + " 1, maxUnavailable 0, 500m CPU per pod), creates and deletes of `churn`"
                    + " Deployments; a workloads client: a Job of 3 completions (2 at a time, pods"
                    + " that run 3 s) every few seconds, template changes of the `agent` DaemonSet,"
                    + " scales of the `db` StatefulSet between 2 and 3 and deletes of its pods."
                    + " Each client sends to one gateway and moves to the other after"
                    + " an unknown outcome. A watch on the ConfigMaps stays open throughout and"
                    + " resumes from its last bookmark on another gateway when cut.\n\n",
                options.registerClients(),
                options.registers(),
                options.replicas() - 1,
                options.replicas(),
                options.deployments()));
    Map<String, long[]> byKind = new TreeMap<>();
    for (Ledger.Op o : ops) {
      long[] c = byKind.computeIfAbsent(o.kind(), k -> new long[3]);
      c[o.outcome().ordinal()]++;
    }
    List<List<String>> kindRows = new ArrayList<>();
    byKind.forEach(
        (kind, c) ->
            kindRows.add(
                List.of(
                    kind,
                    Long.toString(c[0] + c[1] + c[2]),
                    Long.toString(c[0]),
                    Long.toString(c[1]),
                    Long.toString(c[2]))));
    body.append(
            Markdown.table(
                List.of("operation", "sent", "2xx", "4xx", "unknown outcome"), "lrrrr", kindRows))
        .append('\n');

    body.append("## Checks\n\n");
    body.append(
        String.format(
            Locale.ROOT,
            "- **Acknowledged writes lost: %d.** Every create and update answered 2xx must be in"
                + " `events` with the resourceVersion it was answered with (and, for ConfigMaps,"
                + " the value written); every delete answered 2xx must be followed by a DELETED"
                + " event right after the version it named. %,d events read from the log.\n",
            lost.size(),
            history.events()));
    body.append(
        String.format(
            Locale.ROOT,
            "- **Linearizability: %d of %d registers not linearizable.** Each ConfigMap's"
                + " history (%,d operations) checked as a single register with resourceVersion"
                + " preconditions by a Wing-Gong search with Lowe's memo (`RegisterChecker`). %d"
                + " operations with an unknown outcome were found in the log and checked as"
                + " never completed; %d others (not in the log, or unanswered reads) left out.\n",
            lin.failed(),
            lin.verdicts().size(),
            lin.checked(),
            lin.resolved(),
            lin.dropped()));
    body.append(
        String.format(
            Locale.ROOT,
            "- **Watch: %d gaps, %d duplicates, %d reorderings, %d events not in the log.** %,d"
                + " events over %d connections (%d new lists after 410); %d events sent again"
                + " after a resume from a bookmark older than them, as asked.\n",
            watched.gaps().size(),
            watched.duplicates().size(),
            watched.reorders().size(),
            watched.unknown().size(),
            watched.events(),
            watched.segments(),
            watched.relists(),
            watched.redelivered()));
    body.append(
        String.format(
            Locale.ROOT,
            "- **Duplicate pods after convergence: %d.** Live pods per ReplicaSet against its"
                + " replicas, once every `web` Deployment had all replicas updated and"
                + " available.\n",
            duplicates.size()));
    body.append(
        String.format(
            Locale.ROOT,
            "- **Job pods counted twice / lost: %d / %d.** Each of the %d Jobs' succeeded and"
                + " failed counts against the pods a watch saw succeed and fail (or go before"
                + " succeeding), once every Job had finished.\n",
            workloads.jobs().countedTwice(),
            workloads.jobs().lost(),
            workloads.jobCount()));
    body.append(
        String.format(
            Locale.ROOT,
            "- **StatefulSet ordinals duplicated: %d.** Moments two live pods of `%s` held one"
                + " ordinal (after every pod event), and, after convergence, ordinals held twice or"
                + " outside its replicas.\n",
            workloads.ordinals().size(),
            Workload.STATEFUL_SET));
    body.append(
        String.format(
            Locale.ROOT,
            "- **DaemonSet pods per node ≠ 1: %d.** Ready nodes without exactly one live pod of"
                + " `%s`, after convergence.\n",
            workloads.daemonPods().size(),
            Workload.DAEMON_SET));
    body.append(
        String.format(
            Locale.ROOT,
            "- **Pods beyond replicas + maxSurge: %d moments.** Live pods of each `web`"
                + " Deployment counted after every pod event of a watch (%,d changes of a count;"
                + " %d new lists); the bound takes the highest replicas asked in the 30 s before,"
                + " or in any version from the one the Deployment's status last reported acting on"
                + " (observedGeneration): a controller behind the Deployment still acts on that"
                + " one.\n",
            surge.size(),
            pods.samples().size(),
            pods.relists()));
    body.append(
        String.format(
            Locale.ROOT,
            "- **Over-committed nodes: %d.** Every record the binders wrote to `node-usage`"
                + " (%,d), its allocated requests against the node's allocatable.\n",
            history.overCommits().size(),
            history.nodeUsageRecords()));
    body.append(
        String.format(
            Locale.ROOT,
            "- **API against the log: %d differences.** Each ConfigMap and Deployment of the"
                + " run, read from every gateway at the end, against its last event.\n\n",
            api.size()));

    body.append("## Failover\n\n")
        .append(
            "Two instances of a role; one killed with SIGKILL, and at once one new object created"
                + " in every partition (a Deployment for the controllers, an unscheduled pod for"
                + " the schedulers); per partition, the time until it was acted on (ReplicaSet"
                + " created, pod bound). The surviving instance takes the dead one's partitions"
                + " when the group coordinator expires its session (`session.timeout.ms` 10 s);"
                + " standby replicas would shorten only the restore of state that follows,"
                + " which for these small stores is not the larger part.\n\n");
    List<List<String>> foRows = new ArrayList<>();
    for (Failover.Round r : rounds) {
      foRows.add(
          List.of(
              r.role(),
              r.killed() == null ? "none (baseline)" : r.killed(),
              seconds(r.median()),
              seconds(r.max()),
              Arrays.stream(r.seconds())
                  .mapToObj(s -> String.format(Locale.ROOT, "%.1f", s))
                  .reduce((a, b) -> a + " " + b)
                  .orElse("")));
    }
    body.append(
            Markdown.table(
                List.of("role", "killed", "median", "slowest partition", "per partition (s)"),
                "llrrl",
                foRows))
        .append('\n');

    body.append("## Faults\n\n");
    Map<String, List<FaultInjector.Fault>> byRole = new TreeMap<>();
    faults.forEach(
        f -> byRole.computeIfAbsent(f.type() + " " + f.role(), k -> new ArrayList<>()).add(f));
    List<List<String>> roleRows = new ArrayList<>();
    byRole.forEach(
        (k, list) -> {
          double[] rec =
              list.stream()
                  .filter(f -> f.recovered() >= 0)
                  .mapToDouble(f -> (f.recovered() - f.injected()) / 1e9)
                  .toArray();
          double[] fw = list.stream().mapToDouble(f -> firstWrite(ops, f)).toArray();
          roleRows.add(
              List.of(
                  k,
                  Integer.toString(list.size()),
                  seconds(percentile(rec, 0.5)),
                  seconds(percentile(rec, 1)),
                  seconds(percentile(fw, 0.5)),
                  seconds(percentile(fw, 1))));
        });
    body.append(
            "Recovery: from the fault to the moment every gateway had written to every partition"
                + " (probe writes every 0.5 s once the process was back). First write: from the"
                + " fault to the first acknowledged write of the workload sent after it. Written"
                + " last: the (gateway, partition) pairs whose first write after the fault was"
                + " answered last, or, for a fault that did not recover, those with none.\n\n")
        .append(
            Markdown.table(
                List.of(
                    "fault",
                    "count",
                    "recovery p50",
                    "recovery max",
                    "first write p50",
                    "first write max"),
                "lrrrrr",
                roleRows))
        .append("\n<details><summary>Every fault</summary>\n\n");
    List<List<String>> faultRows = new ArrayList<>();
    for (FaultInjector.Fault f : faults) {
      faultRows.add(
          List.of(
              Integer.toString(f.id()),
              String.format(Locale.ROOT, "%.1f", f.injected() / 1e9),
              f.type(),
              f.target(),
              f.ended() < 0
                  ? "-"
                  : String.format(Locale.ROOT, "%.1f", (f.ended() - f.injected()) / 1e9),
              f.recovered() < 0
                  ? "not within 120 s"
                  : String.format(Locale.ROOT, "%.1f", (f.recovered() - f.injected()) / 1e9),
              seconds(firstWrite(ops, f)),
              String.join(", ", f.slowest())));
    }
    body.append(
            Markdown.table(
                List.of(
                    "#",
                    "at (s)",
                    "fault",
                    "target",
                    "down (s)",
                    "recovered (s)",
                    "first write",
                    "written last (or never)"),
                "rrllrrrl",
                faultRows))
        .append("\n</details>\n\n");
    List<FaultInjector.Fault> slow =
        faults.stream()
            .filter(f -> f.recovered() < 0 || f.recovered() - f.injected() > SLOW_FAULT)
            .toList();
    if (!slow.isEmpty()) {
      body.append("## What held the slow faults up\n\n")
          .append(
              "Faults not recovered within 10 s: the (gateway, partition) pairs written last (or"
                  + " never), and, from the fault to its recovery (or 120 s), the partitions that"
                  + " lagged longest in a row, in seconds after the fault: against each consumer"
                  + " group's committed offsets, and behind a transaction left open (end offset"
                  + " − last stable offset), both read from the brokers every 2 s.\n\n");
      for (FaultInjector.Fault f : slow) {
        long until = f.recovered() >= 0 ? f.recovered() : f.injected() + 120_000_000_000L;
        body.append(
            String.format(
                Locale.ROOT,
                "- **Fault %d** (%s %s, %s): written last: %s.\n  Committed: %s.\n  Open"
                    + " transactions: %s.\n",
                f.id(),
                f.type(),
                f.target(),
                f.recovered() < 0
                    ? "not recovered"
                    : seconds((f.recovered() - f.injected()) / 1e9) + " to recover",
                String.join(", ", f.slowest()),
                lagging(lag, LagTimeline.View.COMMITTED, f.injected(), until),
                lagging(lag, LagTimeline.View.UNSTABLE, f.injected(), until)));
      }
      body.append('\n');
    }
    if (!failures.isEmpty()) {
      body.append("## Violations and problems, in full\n\n");
      failures.stream().limit(200).forEach(f -> body.append("- ").append(f).append('\n'));
      if (failures.size() > 200) {
        body.append("- ... and ").append(failures.size() - 200).append(" more\n");
      }
      body.append('\n');
    }

    SvgFigure figure = new SvgFigure("Chaos run: operations and faults");
    TimeSeries okPerSecond = new TimeSeries("acknowledged writes/s");
    TimeSeries unknownPerSecond = new TimeSeries("unknown outcomes/s");
    TimeSeries faultSeries = new TimeSeries("faults injected (cumulative)");
    long end = ops.stream().mapToLong(Ledger.Op::completed).max().orElse(0);
    int buckets = (int) (end / 5_000_000_000L) + 1;
    long[] ok = new long[buckets];
    long[] unk = new long[buckets];
    for (Ledger.Op o : ops) {
      int b = (int) Math.min(buckets - 1, o.completed() / 5_000_000_000L);
      if (o.outcome() == Outcome.UNKNOWN) {
        unk[b]++;
      } else if (o.isWrite() && o.outcome() == Outcome.OK) {
        ok[b]++;
      }
    }
    for (int b = 0; b < buckets; b++) {
      okPerSecond.add(b * 5.0, ok[b] / 5.0);
      unknownPerSecond.add(b * 5.0, unk[b] / 5.0);
    }
    int cumulative = 0;
    for (FaultInjector.Fault f : faults) {
      faultSeries.add(f.injected() / 1e9, ++cumulative);
    }
    figure.timeSeries("Workload (5 s buckets)", "ops/s", List.of(okPerSecond, unknownPerSecond));
    figure.timeSeries("Faults", "faults", List.of(faultSeries));
    if (recovery.length > 0) {
      figure.histogram("Recovery after a fault", "s", recovery, 20);
    }

    Map<String, Object> results = new LinkedHashMap<>();
    results.put("faults", faults.size());
    results.put("kills", kills);
    results.put("operations", ops.size());
    results.put("acknowledgedWrites", acknowledged);
    results.put("unknownOutcomes", unknown);
    results.put("lostWrites", lost.size());
    results.put("nonLinearizableRegisters", lin.failed());
    results.put("watchAnomalies", watched.anomalies());
    results.put("duplicatePods", duplicates.size());
    results.put("jobPodsCountedTwice", workloads.jobs().countedTwice());
    results.put("jobPodsLost", workloads.jobs().lost());
    results.put("statefulSetOrdinalsDuplicated", workloads.ordinals().size());
    results.put("daemonSetNodesWithoutOnePod", workloads.daemonPods().size());
    results.put("beyondSurge", surge.size());
    results.put("overCommits", history.overCommits().size());
    results.put("apiDifferences", api.size());
    results.put("recoverySecondsP50", percentile(recovery, 0.5));
    results.put("recoverySecondsMax", percentile(recovery, 1));
    results.put("failover", rounds);
    results.put("faultList", faults);
    return new Report(
        "chaos",
        "Chaos: kill -9 and SIGSTOP on a multi-process control plane",
        command,
        String.join(", ", cluster.apiServers()) + " (Kafka " + cluster.bootstrapServers() + ")",
        startedAt,
        took,
        summary.toString(),
        body.toString(),
        figure,
        List.of(),
        failures,
        List.of(),
        "the roles run as separate processes; the lag of their applications is above, for the"
            + " slow faults",
        results);
  }

  private static String lagging(LagTimeline lag, LagTimeline.View view, long from, long to) {
    List<String> top =
        lag.lagging(view, from, to).stream().limit(3).map(LagTimeline.Lagging::describe).toList();
    return top.isEmpty() ? "none seen" : String.join("; ", top);
  }

  private static double firstWrite(List<Ledger.Op> ops, FaultInjector.Fault f) {
    return ops.stream()
        .filter(o -> o.isWrite() && o.outcome() == Outcome.OK && o.invoked() >= f.injected())
        .mapToDouble(o -> (o.completed() - f.injected()) / 1e9)
        .min()
        .orElse(Double.NaN);
  }

  private static double maxOf(List<Failover.Round> rounds, String role) {
    return rounds.stream()
        .filter(r -> r.role().equals(role) && r.killed() != null)
        .mapToDouble(Failover.Round::max)
        .max()
        .orElse(Double.NaN);
  }

  private static double percentile(double[] values, double q) {
    double[] v = Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(q * v.length) - 1;
    return v[Math.max(0, Math.min(v.length - 1, i))];
  }

  private static String seconds(double s) {
    return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.1f s", s);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Left for the user to remove.
    }
  }
}
