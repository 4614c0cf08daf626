package io.streamplane.bench.recovery;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.scenario.BenchNamespace;
import io.streamplane.bench.scenario.Workloads;
import io.streamplane.schema.objects.ResourceKey;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One run: a Deployment of {@code pods} replicas rolling out, a burst of ConfigMap creates, the
 * victim killed with SIGKILL {@code killAfter} into the rollout and started again {@code down}
 * later; then, timed on the harness's clock, the restart → ready, ready → the first acknowledged
 * write (one writer per partition of the log, each creating a new ConfigMap of its partition until
 * one is acknowledged) and → every partition written, and ready → every pod Running (the pod list
 * read every second or two); then the checks ({@link RecoveryChecks}), the lag the {@link
 * LagSampler} saw, and the victim's log since the restart ({@link StallSignatures}). Without a
 * victim nothing is killed, and "ready" is the moment the kill would have come.
 */
final class RecoveryRun {

  /** How a run goes. */
  record Settings(
      int pods,
      Duration killAfter,
      Duration down,
      int writers,
      Duration timeout,
      String cpuRequest,
      boolean keep) {}

  private static final String DEPLOYMENT = "web";

  private final RecoveryCluster cluster;
  private final Settings settings;
  private final Consumer<String> phase;
  private final List<String> problems = new ArrayList<>();
  private final AtomicInteger running = new AtomicInteger();

  RecoveryRun(RecoveryCluster cluster, Settings settings, Consumer<String> phase) {
    this.cluster = cluster;
    this.settings = settings;
    this.phase = phase;
  }

  /** Pods Running at the last look, for the progress line. */
  int running() {
    return running.get();
  }

  RunResult run(String scenario, String victim, int number) throws Exception {
    KubeClient api = cluster.admin();
    LagTimeline timeline = new LagTimeline();
    phase.accept("creating the workload");
    try (BenchNamespace ns =
            BenchNamespace.open(
                api, "recovery-" + scenario, null, settings.keep() || !cluster.reused());
        LagSampler sampler =
            new LagSampler(
                cluster.bootstrapServers(), cluster::scrape, timeline, System::nanoTime)) {
      sampler.start();
      String base = "/api/v1/namespaces/" + ns.name();
      KubeClient.Response created =
          api.post(
              "/apis/apps/v1/namespaces/" + ns.name() + "/deployments",
              Workloads.deployment(
                  DEPLOYMENT, settings.pods(), ns, "nginx", settings.cpuRequest()));
      if (!created.ok()) {
        throw new IOException("cannot create the Deployment: " + created.message());
      }
      Burst burst = new Burst(api, ns, settings.writers());
      burst.start();
      phase.accept("rolling out, kill in " + settings.killAfter().toSeconds() + " s");
      Thread.sleep(settings.killAfter().toMillis());
      int runningAtKill = countRunning(api, base);

      long killed = System.nanoTime();
      long restarted = killed;
      long ready = killed;
      if (victim != null) {
        phase.accept("killed " + victim);
        cluster.kill(victim);
        Thread.sleep(settings.down().toMillis());
        restarted = System.nanoTime();
        cluster.restart(victim);
        phase.accept("waiting for " + victim + " to be ready");
        ready = awaitReady(victim, restarted + settings.timeout().toNanos());
      }
      burst.stop();
      double firstWrite = Double.NaN;
      double everyPartition = Double.NaN;
      double allRunning = Double.NaN;
      TimeSeries runningSeries =
          new TimeSeries(scenario + ", " + settings.pods() + " pods, run " + number);
      if (ready < 0) {
        problems.add(victim + " was not ready within " + settings.timeout().toSeconds() + " s");
      } else {
        phase.accept("writing to every partition");
        long[] acked = probe(api, ns, ready, deadline(ready), burst);
        long first = Arrays.stream(acked).filter(a -> a >= 0).min().orElse(-1);
        boolean everyOne = Arrays.stream(acked).allMatch(a -> a >= 0);
        firstWrite = first < 0 ? Double.NaN : (first - ready) / 1e9;
        everyPartition =
            everyOne ? (Arrays.stream(acked).max().getAsLong() - ready) / 1e9 : Double.NaN;

        phase.accept("waiting for every pod Running");
        long interval = settings.pods() > 300 ? 2_000 : 1_000;
        long end = deadline(ready);
        while (System.nanoTime() < end) {
          long at = System.nanoTime();
          int n = countRunning(api, base);
          if (n >= 0) {
            runningSeries.add((at - killed) / 1e9, n);
            if (n >= settings.pods()) {
              allRunning = (at - ready) / 1e9;
              break;
            }
          }
          Thread.sleep(Math.max(0, interval - (System.nanoTime() - at) / 1_000_000));
        }
        if (Double.isNaN(allRunning)) {
          problems.add(
              "not every pod Running "
                  + settings.timeout().toSeconds()
                  + " s after ready ("
                  + running.get()
                  + " of "
                  + settings.pods()
                  + ")");
        }
      }

      phase.accept("checking");
      // Pods a controller made twice would be deleted again soon after; the checks come once the
      // controllers had a few seconds to act on everything they read.
      Thread.sleep(5_000);
      RecoveryChecks.Verdict verdict = check(api, ns.name(), burst.acknowledged());
      sampler.close();
      List<StallSignatures.Count> signatures = List.of();
      if (victim != null) {
        RecoveryCluster.LogStart log = cluster.log(victim);
        signatures = StallSignatures.count(StallSignatures.linesFrom(log.file(), log.offset()));
      }
      List<RunResult.LaggingView> lagging = new ArrayList<>();
      List<RunResult.AppsView> apps = new ArrayList<>();
      for (LagTimeline.View v : LagTimeline.View.values()) {
        lagging.add(new RunResult.LaggingView(v, timeline.lagging(v, killed)));
        apps.add(new RunResult.AppsView(v, timeline.apps(v, killed)));
      }
      List<TimeSeries> reported = timeline.perApp(LagTimeline.View.REPORTED, killed);
      List<TimeSeries> committed = timeline.perApp(LagTimeline.View.COMMITTED, killed);
      phase.accept("cleaning up");
      return new RunResult(
          scenario,
          settings.pods(),
          number,
          victim == null ? "nothing" : victim,
          runningAtKill,
          burst.acknowledgedBefore(killed),
          (restarted - killed) / 1e9,
          ready < 0 ? Double.NaN : (ready - restarted) / 1e9,
          firstWrite,
          everyPartition,
          allRunning,
          verdict,
          lagging,
          apps,
          signatures,
          runningSeries,
          reported,
          committed,
          List.copyOf(problems));
    }
  }

  /** When the restarted victim was first seen ready, or -1 if not before {@code deadline}. */
  private long awaitReady(String victim, long deadline) throws InterruptedException {
    while (System.nanoTime() < deadline) {
      if (cluster.ready(victim)) {
        return System.nanoTime();
      }
      Thread.sleep(100);
    }
    return -1;
  }

  private long deadline(long from) {
    return from + settings.timeout().toNanos();
  }

  /** Pods Running in the run's namespace, or -1 when the list failed. */
  private int countRunning(KubeClient api, String base) throws InterruptedException {
    try {
      KubeClient.Response r = api.get(base + "/pods");
      if (!r.ok() || r.body() == null) {
        return -1;
      }
      int n = RecoveryChecks.runningPods(r.body());
      running.set(n);
      return n;
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * One writer per partition of the log, each creating a ConfigMap of its partition until one is
   * acknowledged or {@code until}; answers each partition's acknowledgement time (-1: none).
   */
  private long[] probe(KubeClient api, BenchNamespace ns, long since, long until, Burst burst)
      throws InterruptedException {
    int partitions = cluster.partitions();
    long[] acked = new long[partitions];
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      acked[p] = -1;
      Thread t =
          new Thread(
              () -> {
                int candidate = 0;
                while (System.nanoTime() < until) {
                  String name;
                  do {
                    name = "probe-" + partition + "-" + candidate++;
                  } while (new ResourceKey("configmaps", "", ns.name(), name).partition(partitions)
                      != partition);
                  try {
                    KubeClient.Response r =
                        api.post(
                            "/api/v1/namespaces/" + ns.name() + "/configmaps",
                            Workloads.configMap(name, ns, "probe"));
                    if (r.ok()) {
                      acked[partition] = System.nanoTime();
                      burst.acknowledge(name);
                      return;
                    }
                  } catch (IOException e) {
                    // Not answered: another try with a new name.
                  } catch (InterruptedException e) {
                    return;
                  }
                  try {
                    Thread.sleep(100);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "recovery-probe-" + p);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join(Math.max(1, (until - System.nanoTime()) / 1_000_000 + 60_000));
    }
    return acked;
  }

  private RecoveryChecks.Verdict check(KubeClient api, String namespace, List<String> acknowledged)
      throws InterruptedException {
    try {
      JsonNode configMaps = list(api, "/api/v1/namespaces/" + namespace + "/configmaps");
      JsonNode pods = list(api, "/api/v1/namespaces/" + namespace + "/pods");
      JsonNode allPods = list(api, "/api/v1/pods");
      JsonNode replicaSets = list(api, "/apis/apps/v1/namespaces/" + namespace + "/replicasets");
      JsonNode nodes = list(api, "/api/v1/nodes");
      return new RecoveryChecks.Verdict(
          acknowledged.size(),
          RecoveryChecks.lost(acknowledged, configMaps),
          RecoveryChecks.livePods(pods),
          settings.pods(),
          RecoveryChecks.replicaSetsOf(replicaSets, DEPLOYMENT),
          RecoveryChecks.overCommitted(nodes, allPods));
    } catch (IOException e) {
      problems.add("could not read the objects to check: " + e.getMessage());
      return null;
    }
  }

  private static JsonNode list(KubeClient api, String path)
      throws IOException, InterruptedException {
    KubeClient.Response r = api.get(path);
    if (!r.ok() || r.body() == null) {
      throw new IOException("GET " + path + ": " + r.status() + " " + r.message());
    }
    return r.body();
  }

  /**
   * The burst of ConfigMap creates: {@code writers} clients, each creating one after another while
   * the run goes on, keeping every create answered 2xx (a create whose answer never came may or may
   * not be there, and is not counted).
   */
  static final class Burst {
    private final KubeClient api;
    private final BenchNamespace ns;
    private final int writers;
    private final List<String> acknowledged = new ArrayList<>();
    private final List<Long> acknowledgedAt = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    Burst(KubeClient api, BenchNamespace ns, int writers) {
      this.api = api;
      this.ns = ns;
      this.writers = writers;
    }

    void start() {
      for (int w = 0; w < writers; w++) {
        int writer = w;
        Thread t =
            new Thread(
                () -> {
                  for (int i = 0; !stopped; i++) {
                    String name = "burst-" + writer + "-" + i;
                    try {
                      KubeClient.Response r =
                          api.post(
                              "/api/v1/namespaces/" + ns.name() + "/configmaps",
                              Workloads.configMap(name, ns, Integer.toString(i)));
                      if (r.ok()) {
                        acknowledge(name);
                      } else {
                        Thread.sleep(100);
                      }
                    } catch (IOException e) {
                      try {
                        Thread.sleep(100);
                      } catch (InterruptedException ie) {
                        return;
                      }
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                },
                "recovery-burst-" + w);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    synchronized void acknowledge(String name) {
      acknowledged.add(name);
      acknowledgedAt.add(System.nanoTime());
    }

    synchronized List<String> acknowledged() {
      return List.copyOf(acknowledged);
    }

    /** Creates acknowledged before {@code nanos}. */
    synchronized int acknowledgedBefore(long nanos) {
      return (int) acknowledgedAt.stream().filter(t -> t < nanos).count();
    }

    /**
     * Stops sending; a request under way is left to finish (its answer, if it comes, still counts).
     */
    void stop() {
      stopped = true;
    }
  }
}
