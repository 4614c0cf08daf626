package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.schema.objects.ResourceKey;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Injects a fault every few seconds (the interval varies by half either way) until stopped:
 *
 * <ul>
 *   <li><b>kill</b>: SIGKILL to a random instance (a role instance or a broker), and a restart of
 *       it one to three seconds later;
 *   <li><b>pause</b>: SIGSTOP for two to six seconds, then SIGCONT: a long GC pause, or a process
 *       cut off from the network that comes back with its sockets and sessions still open;
 *   <li><b>kill-all</b>, at the moments given: once the faults under way have ended, SIGKILL to
 *       every process at once, brokers included (a power cut of the whole cluster, as a kill -9 of
 *       {@code up} is), and a restart of all one to three seconds later, brokers first.
 * </ul>
 *
 * Faults overlap, within limits that keep the cluster able to serve: at most one broker faulted at
 * a time (the topics' {@code min.insync.replicas} is 2 of 3), and at least one instance of every
 * role that has several untouched. A broker counts as faulted until its fault has recovered,
 * another instance until it has been back for 15 s and serves (a gateway answers {@code /readyz}),
 * or its fault has recovered, if sooner. Each fault is measured: when it was injected, when the
 * instance was back (restarted or resumed), and when every gateway could write to every partition
 * again: one prober per gateway writes a probe ConfigMap per partition in turn, every half second,
 * all run long, and the fault has recovered when each (gateway, partition) pair has had a write
 * sent after the instance was back acknowledged.
 */
public final class FaultInjector implements AutoCloseable {

  /**
   * One injected fault; times in nanoseconds since the run started, -1 when it did not happen.
   * {@code slowest}: the (gateway, partition) pairs written last after it, or never within the
   * limit when it did not recover.
   */
  public record Fault(
      int id,
      String type,
      String target,
      String role,
      long injected,
      long ended,
      long recovered,
      List<String> slowest) {}

  private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(120);
  private static final Duration RELEASE_AFTER = Duration.ofSeconds(15);

  private final Cluster cluster;
  private final Ledger ledger;
  private final Duration interval;
  private final String namespace;
  private final List<String> probeNames;
  private final Random random;
  private final Set<String> faulted = new HashSet<>();
  private final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();
  private final List<Thread> running = new ArrayList<>();
  private final AtomicInteger ids = new AtomicInteger();
  private final List<String> errors = new ArrayList<>();
  private final List<List<long[]>> probeWrites = new ArrayList<>();
  private final List<Thread> probers = new ArrayList<>();
  private final List<Duration> clusterKills;
  private final Thread thread;
  private volatile boolean stopping;
  private volatile boolean probeStop;

  public FaultInjector(
      Cluster cluster,
      Ledger ledger,
      Duration interval,
      String namespace,
      int partitions,
      List<Duration> clusterKills,
      long seed) {
    this.cluster = cluster;
    this.clusterKills = List.copyOf(clusterKills);
    this.ledger = ledger;
    this.interval = interval;
    this.namespace = namespace;
    this.probeNames = probeNames(namespace, partitions);
    this.random = new Random(seed);
    this.thread = new Thread(this::loop, "chaos-faults");
  }

  /** ConfigMap names in {@code namespace}, one per partition of the log. */
  static List<String> probeNames(String namespace, int partitions) {
    String[] names = new String[partitions];
    int found = 0;
    for (int i = 0; found < partitions; i++) {
      String name = "probe-" + i;
      int p = new ResourceKey("configmaps", "", namespace, name).partition(partitions);
      if (names[p] == null) {
        names[p] = name;
        found++;
      }
    }
    return List.of(names);
  }

  /** Creates the probe ConfigMaps and starts injecting. */
  public void start() throws IOException, InterruptedException {
    KubeClient client = ChaosApi.client(cluster.apiServers().get(0), cluster.identity());
    for (String name : probeNames) {
      KubeClient.Response r =
          client.post("/api/v1/namespaces/" + namespace + "/configmaps", probe(name, "0"));
      if (!r.ok()) {
        throw new IOException("cannot create " + name + ": " + r.message());
      }
    }
    for (int g = 0; g < cluster.apiServers().size(); g++) {
      for (int p = 0; p < probeNames.size(); p++) {
        probeWrites.add(new ArrayList<>());
      }
      int gateway = g;
      Thread prober = new Thread(() -> probeLoop(gateway), "chaos-probe-" + g);
      prober.setDaemon(true);
      probers.add(prober);
      prober.start();
    }
    thread.start();
  }

  public List<Fault> faults() {
    return new ArrayList<>(faults);
  }

  public int injected() {
    return ids.get();
  }

  public synchronized List<String> errors() {
    return new ArrayList<>(errors);
  }

  /** Instances down, paused, or back but not yet recovered, right now. */
  public synchronized Set<String> faulted() {
    return new HashSet<>(faulted);
  }

  private void loop() {
    int nextClusterKill = 0;
    while (!stopping) {
      long millis = interval.toMillis();
      sleep(millis / 2 + (long) (random.nextDouble() * millis));
      if (stopping) {
        return;
      }
      if (nextClusterKill < clusterKills.size()
          && ledger.now() >= clusterKills.get(nextClusterKill).toNanos()) {
        nextClusterKill++;
        killAll();
        continue;
      }
      Cluster.Instance target = pick();
      if (target == null) {
        continue;
      }
      boolean kill = random.nextDouble() < 0.6;
      long downMillis = kill ? 1_000 + random.nextInt(2_000) : 2_000 + random.nextInt(4_000);
      int id = ids.incrementAndGet();
      Thread t = new Thread(() -> inject(id, kill, target, downMillis), "chaos-fault-" + id);
      synchronized (this) {
        running.add(t);
      }
      t.start();
    }
  }

  /**
   * Waits for the faults under way to end, then kills every process, restarts them all and measures
   * the recovery as for one instance, on this thread: no other fault overlaps it.
   */
  private void killAll() {
    List<Thread> under;
    synchronized (this) {
      under = new ArrayList<>(running);
    }
    try {
      for (Thread t : under) {
        t.join();
      }
    } catch (InterruptedException e) {
      stopping = true;
      return;
    }
    List<Cluster.Instance> all = cluster.instances();
    synchronized (this) {
      all.forEach(i -> faulted.add(i.name()));
    }
    int id = ids.incrementAndGet();
    long injected = ledger.now();
    long ended = -1;
    long recovered = -1;
    List<String> slowest = List.of();
    try {
      for (Cluster.Instance i : all) {
        cluster.kill(i.name());
      }
      Thread.sleep(1_000 + random.nextInt(2_000));
      for (Cluster.Instance i : all) {
        if (i.role().equals("kafka")) {
          cluster.restart(i.name());
        }
      }
      for (Cluster.Instance i : all) {
        if (!i.role().equals("kafka")) {
          cluster.restart(i.name());
        }
      }
      ended = ledger.now();
      recovered = probe(ended, null);
      slowest = slowestPairs(ended);
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        errors.add("fault " + id + " (the whole cluster): " + e);
      }
    } catch (InterruptedException e) {
      stopping = true;
    } finally {
      faults.add(
          new Fault(id, "kill-all", "cluster", "cluster", injected, ended, recovered, slowest));
      synchronized (this) {
        all.forEach(i -> faulted.remove(i.name()));
      }
    }
  }

  private synchronized Cluster.Instance pick() {
    List<Cluster.Instance> all = cluster.instances();
    List<Cluster.Instance> candidates = new ArrayList<>();
    for (Cluster.Instance i : all) {
      if (faulted.contains(i.name())) {
        continue;
      }
      long sameRole = all.stream().filter(o -> o.role().equals(i.role())).count();
      long sameRoleFaulted =
          all.stream().filter(o -> o.role().equals(i.role()) && faulted.contains(o.name())).count();
      if (sameRole > 1 && sameRoleFaulted + 1 >= sameRole) {
        continue;
      }
      // A broker back from a fault rejoins the in-sync replicas only after catching up; until
      // its fault has recovered, another broker down would leave partitions below
      // min.insync.replicas.
      if (i.role().equals("kafka") && sameRoleFaulted > 0) {
        continue;
      }
      candidates.add(i);
    }
    if (candidates.isEmpty()) {
      return null;
    }
    Cluster.Instance chosen = candidates.get(random.nextInt(candidates.size()));
    faulted.add(chosen.name());
    return chosen;
  }

  private void inject(int id, boolean kill, Cluster.Instance target, long downMillis) {
    long injected = ledger.now();
    long ended = -1;
    long recovered = -1;
    List<String> slowest = List.of();
    try {
      if (kill) {
        cluster.kill(target.name());
      } else {
        cluster.pause(target.name());
      }
      Thread.sleep(downMillis);
      if (kill) {
        cluster.restart(target.name());
      } else {
        cluster.resume(target.name());
      }
      ended = ledger.now();
      recovered = probe(ended, target);
      slowest = slowestPairs(ended);
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        errors.add("fault " + id + " (" + target.name() + "): " + e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      faults.add(
          new Fault(
              id,
              kill ? "kill" : "pause",
              target.name(),
              target.role(),
              injected,
              ended,
              recovered,
              slowest));
      synchronized (this) {
        faulted.remove(target.name());
      }
    }
  }

  /**
   * Waits until every gateway has written every probe ConfigMap with a write sent at or after
   * {@code since}; answers when the last of those writes was answered, or -1 past the limit. {@code
   * target}, when not null, is released once it serves again, before its fault recovers.
   */
  private long probe(long since, Cluster.Instance target) throws InterruptedException {
    long deadline = ledger.now() + RECOVERY_LIMIT.toNanos();
    while (ledger.now() < deadline) {
      long recovered = recoveredSince(since);
      if (recovered >= 0) {
        return recovered;
      }
      if (target != null
          && !target.role().equals("kafka")
          && ledger.now() - since > RELEASE_AFTER.toNanos()
          && cluster.serving(target.name())) {
        // Back for a while: it may be the target of the next fault while this one recovers.
        synchronized (this) {
          faulted.remove(target.name());
        }
      }
      Thread.sleep(250);
    }
    return -1;
  }

  /**
   * The (gateway, partition) pairs that had no write sent at or after {@code since} answered, or,
   * when every pair had one, those whose first such write was answered last.
   */
  private List<String> slowestPairs(long since) {
    List<String> missing = new ArrayList<>();
    List<String> last = new ArrayList<>();
    long latest = -1;
    for (int i = 0; i < probeWrites.size(); i++) {
      long first = firstAnsweredSince(probeWrites.get(i), since);
      String pair = "gateway-" + i / probeNames.size() + " partition " + i % probeNames.size();
      if (first < 0) {
        missing.add(pair);
      } else if (first > latest) {
        latest = first;
        last.clear();
        last.add(pair);
      } else if (first == latest) {
        last.add(pair);
      }
    }
    return missing.isEmpty() ? last : missing;
  }

  private static long firstAnsweredSince(List<long[]> pair, long since) {
    synchronized (pair) {
      for (long[] write : pair) {
        if (write[0] >= since) {
          return write[1];
        }
      }
    }
    return -1;
  }

  /** When every (gateway, partition) pair had a write sent at or after {@code since} answered. */
  private long recoveredSince(long since) {
    long last = -1;
    for (List<long[]> pair : probeWrites) {
      long first = firstAnsweredSince(pair, since);
      if (first < 0) {
        return -1;
      }
      last = Math.max(last, first);
    }
    return last;
  }

  /**
   * One gateway's prober: writes each probe ConfigMap in turn, without a precondition, every half
   * second, and records each acknowledged write's send and answer times.
   */
  private void probeLoop(int gateway) {
    KubeClient client = ChaosApi.client(cluster.apiServers().get(gateway), cluster.identity());
    long round = 0;
    while (!probeStop) {
      round++;
      for (int p = 0; p < probeNames.size() && !probeStop; p++) {
        String name = probeNames.get(p);
        long invoked = ledger.now();
        try {
          KubeClient.Response r =
              client.put(
                  "/api/v1/namespaces/" + namespace + "/configmaps/" + name,
                  probe(name, gateway + "-" + round));
          if (r.ok()) {
            List<long[]> pair = probeWrites.get(gateway * probeNames.size() + p);
            synchronized (pair) {
              pair.add(new long[] {invoked, ledger.now()});
            }
          }
        } catch (IOException e) {
          // The gateway is down or cut off: the pair stays unrecovered.
        } catch (InterruptedException e) {
          return;
        }
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private ObjectNode probe(String name, String value) {
    ObjectNode cm = KubeClient.JSON.createObjectNode();
    cm.put("apiVersion", "v1").put("kind", "ConfigMap");
    cm.putObject("metadata").put("name", name).put("namespace", namespace);
    cm.putObject("data").put("v", value);
    return cm;
  }

  private void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      stopping = true;
    }
  }

  /** Stops injecting and waits for the faults under way to end (instances back, probes done). */
  @Override
  public void close() {
    stopping = true;
    thread.interrupt();
    try {
      thread.join(10_000);
      List<Thread> all;
      synchronized (this) {
        all = new ArrayList<>(running);
      }
      // The probers keep writing until the last fault has recovered.
      for (Thread t : all) {
        t.join(RECOVERY_LIMIT.toMillis() + 30_000);
      }
      probeStop = true;
      for (Thread t : probers) {
        t.join(60_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
