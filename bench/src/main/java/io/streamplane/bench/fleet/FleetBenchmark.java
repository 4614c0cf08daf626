package io.streamplane.bench.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.node.NodeFleet;
import io.streamplane.node.NodeOptions;
import io.streamplane.node.RuntimeChoice;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The acceptance, measured: N simulated nodes in one process register and heartbeat without
 * errors against a real control plane.
 *
 * <p>Per fleet size, a fresh {@link ControlPlane} (broker, topics, controllers with the node
 * lifecycle controller's 40 s grace period, binder, scheduler, store, gateway — what {@code
 * streamplane up} runs) starts in this JVM, then a {@link NodeFleet} of N {@link
 * RuntimeChoice#SIMULATED} nodes named {@code sim-0..} in the same JVM. Everything is read through
 * the gateway, as a user would:
 *
 * <ol>
 *   <li><b>Registration</b>: time from the fleet's start until listing {@code /api/v1/nodes} shows
 *       all N Nodes with Ready=True, and until all N Leases exist.
 *   <li><b>Steady window</b> ({@code --window} seconds): Lease renewals counted on a watch
 *       (MODIFIED events whose renewTime is in the window), the fleet's failed requests ({@link
 *       NodeFleet#errors}), every node listed without Ready=True at any sample (so a node the
 *       lifecycle controller marked Unknown counts), the process's CPU and heap.
 *   <li><b>Deployment</b>: a Deployment of {@code --replicas} nginx replicas without requests is
 *       POSTed; time until its status says they are all available.
 * </ol>
 *
 * <p>Writes {@code fleet.md} and {@code fleet.svg}. Exits with status 1 (after writing the report)
 * when any node failed a request, was not Ready at a sample, or a phase timed out.
 *
 * <p>Arguments: {@code [--nodes 200,1000] [--window 120] [--replicas 50] [--registration-timeout
 * 300] [--deployment-timeout 300] [--out bench/reports]}.
 */
public final class FleetBenchmark {

  static final String PREFIX = "sim-";
  private static final Duration SAMPLE_INTERVAL = Duration.ofSeconds(5);
  private static final Duration REGISTRATION_POLL = Duration.ofSeconds(2);
  private static final Duration DEPLOYMENT_POLL = Duration.ofMillis(500);
  private static final String DEPLOYMENT = "fifty";

  /** What one fleet size measured; times are NaN when the phase did not complete. */
  record Result(
      int nodes,
      double controlPlaneStartSeconds,
      double fleetCountersSeconds,
      double allReadySeconds,
      double allLeasesSeconds,
      double windowSeconds,
      long renewals,
      int minRenewalsPerNode,
      int maxRenewalsPerNode,
      int samples,
      List<String> notReady,
      long fleetErrors,
      double cpuCoresAverage,
      long heapMaxUsedMiB,
      long heapAfterGcMiB,
      int replicas,
      double deploymentSeconds,
      List<String> failures) {

    double renewalsPerSecond() {
      return windowSeconds > 0 ? renewals / windowSeconds : 0;
    }
  }

  private FleetBenchmark() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    int[] sizes =
        Arrays.stream(options.getOrDefault("nodes", "200,1000").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    Duration window = Duration.ofSeconds(Long.parseLong(options.getOrDefault("window", "120")));
    int replicas = Integer.parseInt(options.getOrDefault("replicas", "50"));
    Duration registrationTimeout =
        Duration.ofSeconds(Long.parseLong(options.getOrDefault("registration-timeout", "300")));
    Duration deploymentTimeout =
        Duration.ofSeconds(Long.parseLong(options.getOrDefault("deployment-timeout", "300")));
    Path out = Path.of(options.getOrDefault("out", "bench/reports"));
    String loadBefore = loadAverage();

    long started = System.nanoTime();
    List<Result> results = new ArrayList<>();
    for (int size : sizes) {
      Run run = new Run(size, window, replicas, registrationTimeout, deploymentTimeout, started);
      Result result = run.measure();
      results.add(result);
      log(
          started,
          "%,d nodes: %s",
          size,
          result.failures().isEmpty() ? "passed" : "FAILED: " + result.failures());
    }

    String command =
        "mvn -B -q -pl bench -am package -DskipTests && java -cp"
            + " \"bench/target/streamplane-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*\""
            + " io.streamplane.bench.fleet.FleetBenchmark"
            + (args.length == 0 ? "" : " " + String.join(" ", args));
    FleetReport.write(out, results, window, replicas, command, loadBefore, loadAverage());
    log(started, "wrote %s and %s", out.resolve("fleet.md"), out.resolve("fleet.svg"));
    boolean failed = results.stream().anyMatch(r -> !r.failures().isEmpty());
    if (failed) {
      System.err.println("fleet benchmark: FAILED, see " + out.resolve("fleet.md"));
    }
    System.exit(failed ? 1 : 0);
  }

  /** One fleet size against its own control plane. */
  private static final class Run {
    private final int size;
    private final Duration window;
    private final int replicas;
    private final Duration registrationTimeout;
    private final Duration deploymentTimeout;
    private final long benchStarted;
    private final List<String> failures = new ArrayList<>();
    private final TreeSet<String> notReady = new TreeSet<>();
    private int samples;
    private long heapMaxUsed;

    Run(
        int size,
        Duration window,
        int replicas,
        Duration registrationTimeout,
        Duration deploymentTimeout,
        long benchStarted) {
      this.size = size;
      this.window = window;
      this.replicas = replicas;
      this.registrationTimeout = registrationTimeout;
      this.deploymentTimeout = deploymentTimeout;
      this.benchStarted = benchStarted;
    }

    Result measure() throws Exception {
      log(benchStarted, "%,d nodes: starting the control plane", size);
      long t0 = System.nanoTime();
      try (ControlPlane plane = ControlPlane.start("fleetbench" + size)) {
        double controlPlaneStart = seconds(t0);
        log(
            benchStarted,
            "%,d nodes: control plane up in %.1f s (broker %s, gateway %s)",
            size,
            controlPlaneStart,
            plane.bootstrapServers(),
            plane.apiServer());
        ApiClient api = new ApiClient(plane.apiServer());
        RuntimeChoice runtime = RuntimeChoice.SIMULATED;
        long fleetStart = System.nanoTime();
        try (NodeFleet fleet =
            NodeFleet.start(
                plane.apiServer(),
                plane.bootstrapServers(),
                plane.topics().bindings(),
                NodeFleet.numbered(PREFIX, size, NodeOptions.defaults(PREFIX + "0"), false),
                runtime.factory(plane.stateDir().resolve("pods")),
                runtime.kubelet())) {
          double[] registration = register(api, fleet, fleetStart);
          if (!failures.isEmpty()) {
            return result(controlPlaneStart, registration, null, 0, 0, 0, Double.NaN, fleet);
          }
          Steady steady = steady(api, fleet);
          double deployment = deploy(api, fleet);
          long errors = fleet.errors();
          if (errors > 0) {
            failures.add(errors + " failed requests of the fleet");
          }
          if (!notReady.isEmpty()) {
            failures.add(notReady.size() + " nodes not Ready at a sample: " + first(notReady));
          }
          return result(
              controlPlaneStart,
              registration,
              steady,
              steady.cpuCores,
              heapMaxUsed >> 20,
              steady.heapAfterGc >> 20,
              deployment,
              fleet);
        }
      }
    }

    private Result result(
        double controlPlaneStart,
        double[] registration,
        Steady steady,
        double cpuCores,
        long heapMaxMiB,
        long heapAfterGcMiB,
        double deployment,
        NodeFleet fleet) {
      return new Result(
          size,
          controlPlaneStart,
          registration[0],
          registration[1],
          registration[2],
          steady == null ? 0 : steady.seconds,
          steady == null ? 0 : steady.renewals,
          steady == null ? 0 : steady.minPerNode,
          steady == null ? 0 : steady.maxPerNode,
          samples,
          List.copyOf(notReady),
          fleet.errors(),
          cpuCores,
          heapMaxMiB,
          heapAfterGcMiB,
          replicas,
          deployment,
          List.copyOf(failures));
    }

    /**
     * Polls until the API lists all nodes Ready and all Leases; returns the seconds since the
     * fleet's start until the fleet's own counter, the Nodes and the Leases were complete.
     */
    private double[] register(ApiClient api, NodeFleet fleet, long fleetStart) throws Exception {
      double counters = Double.NaN;
      double ready = Double.NaN;
      double leases = Double.NaN;
      long lastLog = 0;
      while (Double.isNaN(ready) || Double.isNaN(leases)) {
        if (Double.isNaN(counters) && fleet.registered() == size) {
          counters = seconds(fleetStart);
        }
        int readyNodes = Double.isNaN(ready) ? readyNodes(api).size() : size;
        if (Double.isNaN(ready) && readyNodes == size) {
          ready = seconds(fleetStart);
        }
        int heldLeases = Double.isNaN(leases) ? leases(api) : size;
        if (Double.isNaN(leases) && heldLeases == size) {
          leases = seconds(fleetStart);
        }
        if (System.nanoTime() - lastLog > SAMPLE_INTERVAL.toNanos()
            || (!Double.isNaN(ready) && !Double.isNaN(leases))) {
          lastLog = System.nanoTime();
          log(
              benchStarted,
              "%,d nodes: registration %.1f s: fleet registered %,d, API: %,d Ready, %,d Leases,"
                  + " fleet errors %d",
              size,
              seconds(fleetStart),
              fleet.registered(),
              readyNodes,
              heldLeases,
              fleet.errors());
        }
        if (seconds(fleetStart) > registrationTimeout.toSeconds()) {
          failures.add(
              String.format(
                  "after %d s only %,d of %,d Nodes Ready and %,d Leases",
                  registrationTimeout.toSeconds(), readyNodes, size, heldLeases));
          break;
        }
        if (Double.isNaN(ready) || Double.isNaN(leases)) {
          Thread.sleep(REGISTRATION_POLL.toMillis());
        }
      }
      if (Double.isNaN(counters) && fleet.registered() == size) {
        counters = seconds(fleetStart);
      }
      return new double[] {counters, ready, leases};
    }

    private record Steady(
        double seconds,
        long renewals,
        int minPerNode,
        int maxPerNode,
        double cpuCores,
        long heapAfterGc) {}

    /** The steady window: lease renewals on a watch, and a sample of every node every 5 s. */
    private Steady steady(ApiClient api, NodeFleet fleet) throws Exception {
      Instant from = Instant.now();
      Instant until = from.plus(window);
      long cpuBefore = cpuNanos();
      long start = System.nanoTime();
      long errorsBefore = fleet.errors();
      try (LeaseWatch watch =
          LeaseWatch.start(
              api,
              PREFIX,
              from,
              until,
              window.plus(deploymentTimeout).plusMinutes(5).toSeconds())) {
        while (Instant.now().isBefore(until)) {
          Thread.sleep(
              Math.max(
                  0,
                  Math.min(
                      SAMPLE_INTERVAL.toMillis(),
                      Duration.between(Instant.now(), until).toMillis())));
          sample(api);
          double elapsed = seconds(start);
          log(
              benchStarted,
              "%,d nodes: window %3.0f/%d s: %,d lease renewals (%.1f/s), fleet errors %d,"
                  + " not Ready %d, heap %,d MiB, cpu %.2f cores",
              size,
              elapsed,
              window.toSeconds(),
              watch.total(),
              watch.total() / elapsed,
              fleet.errors() - errorsBefore,
              notReady.size(),
              usedHeap() >> 20,
              (cpuNanos() - cpuBefore) / 1e9 / elapsed);
        }
        double seconds = seconds(start);
        double cpuCores = (cpuNanos() - cpuBefore) / 1e9 / seconds;
        // Renewals made just before the window's end may still be on their way.
        Thread.sleep(2000);
        Map<String, Integer> perNode = watch.perNode();
        if (watch.failure() != null) {
          failures.add(watch.failure());
        }
        int min = size;
        int max = 0;
        for (int i = 0; i < size; i++) {
          int count = perNode.getOrDefault(PREFIX + i, 0);
          min = Math.min(min, count);
          max = Math.max(max, count);
        }
        long renewals = perNode.values().stream().mapToLong(Integer::longValue).sum();
        if (min == 0) {
          failures.add("a node's Lease was not renewed at all during the window");
        }
        System.gc();
        long heapAfterGc = usedHeap();
        log(
            benchStarted,
            "%,d nodes: window done: %,d renewals in %.0f s = %.1f/s (per node %d-%d),"
                + " heap after GC %,d MiB",
            size,
            renewals,
            window.toSeconds() * 1.0,
            renewals / (double) window.toSeconds(),
            min,
            max,
            heapAfterGc >> 20);
        return new Steady(window.toSeconds(), renewals, min, max, cpuCores, heapAfterGc);
      }
    }

    /** POSTs the Deployment and polls it until all replicas are available; seconds or NaN. */
    private double deploy(ApiClient api, NodeFleet fleet) throws Exception {
      String path = "/apis/apps/v1/namespaces/default/deployments";
      long start = System.nanoTime();
      api.post(path, deployment(DEPLOYMENT, replicas));
      long lastSample = System.nanoTime();
      while (true) {
        JsonNode status = api.get(path + "/" + DEPLOYMENT).path("status");
        int available = status.path("availableReplicas").asInt();
        if (available >= replicas) {
          double seconds = seconds(start);
          sample(api);
          log(
              benchStarted,
              "%,d nodes: deployment: %d/%d available after %.1f s",
              size,
              available,
              replicas,
              seconds);
          return seconds;
        }
        if (seconds(start) > deploymentTimeout.toSeconds()) {
          failures.add(
              String.format(
                  "the Deployment had %d of %d replicas available after %d s",
                  available, replicas, deploymentTimeout.toSeconds()));
          return Double.NaN;
        }
        if (System.nanoTime() - lastSample > SAMPLE_INTERVAL.toNanos()) {
          lastSample = System.nanoTime();
          sample(api);
          log(
              benchStarted,
              "%,d nodes: deployment %.1f s: %d updated, %d ready, %d available; fleet errors %d,"
                  + " not Ready %d",
              size,
              seconds(start),
              status.path("updatedReplicas").asInt(),
              status.path("readyReplicas").asInt(),
              available,
              fleet.errors(),
              notReady.size());
        }
        Thread.sleep(DEPLOYMENT_POLL.toMillis());
      }
    }

    /** Lists the Nodes once: each fleet node not listed with Ready=True is not Ready. */
    private void sample(ApiClient api) throws Exception {
      List<String> ready = readyNodes(api);
      samples++;
      TreeSet<String> readySet = new TreeSet<>(ready);
      for (int i = 0; i < size; i++) {
        if (!readySet.contains(PREFIX + i)) {
          notReady.add(PREFIX + i);
        }
      }
      heapMaxUsed = Math.max(heapMaxUsed, usedHeap());
    }

    /** The fleet's nodes the API lists with Ready=True. */
    private static List<String> readyNodes(ApiClient api) throws Exception {
      List<String> ready = new ArrayList<>();
      for (JsonNode node : api.get("/api/v1/nodes").path("items")) {
        String name = node.at("/metadata/name").asText();
        if (name.startsWith(PREFIX) && condition(node, "Ready").equals("True")) {
          ready.add(name);
        }
      }
      return ready;
    }

    /** How many fleet nodes hold a Lease with a renew time. */
    private static int leases(ApiClient api) throws Exception {
      int held = 0;
      for (JsonNode lease :
          api.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases").path("items")) {
        if (lease.at("/spec/holderIdentity").asText().startsWith(PREFIX)
            && lease.at("/spec/renewTime").isTextual()) {
          held++;
        }
      }
      return held;
    }
  }

  private static String condition(JsonNode object, String type) {
    for (JsonNode condition : object.at("/status/conditions")) {
      if (type.equals(condition.path("type").asText())) {
        return condition.path("status").asText();
      }
    }
    return "";
  }

  private static String deployment(String name, int replicas) {
    return """
        {"apiVersion":"apps/v1","kind":"Deployment",
         "metadata":{"name":"%s","namespace":"default"},
         "spec":{"replicas":%d,"selector":{"matchLabels":{"app":"%s"}},
           "template":{"metadata":{"labels":{"app":"%s"}},
             "spec":{"containers":[{"name":"nginx","image":"nginx:1.14.2"}]}}}}
        """
        .formatted(name, replicas, name, name);
  }

  private static String first(TreeSet<String> names) {
    List<String> some = new ArrayList<>(names).subList(0, Math.min(10, names.size()));
    return String.join(", ", some) + (names.size() > 10 ? ", ..." : "");
  }

  private static long cpuNanos() {
    return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  private static long usedHeap() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static void log(long started, String format, Object... args) {
    System.out.printf("[%6.1fs] %s%n", seconds(started), String.format(format, args));
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "usage: FleetBenchmark [--nodes 200,1000] [--window 120] [--replicas 50]"
                + " [--registration-timeout 300] [--deployment-timeout 300] [--out bench/reports]");
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
