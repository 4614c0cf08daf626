package io.streamplane.bench.scheduler;

import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.scheduler.framework.NodeInfo;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.ScheduleResult;
import io.streamplane.scheduler.framework.Scheduler;
import io.streamplane.scheduler.framework.SchedulerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Micro-benchmark of {@link Scheduler#schedule}: how many scheduling decisions per second one
 * thread makes over 500, 1,000 and 5,000 nodes, and the latency of each decision.
 *
 * <p>Each round starts from empty nodes and schedules the same pending pods one after another,
 * adding every placed pod to its node's requested resources before the next decision, as a
 * scheduler with an up-to-date cache would. Five seconds of unmeasured rounds warm the JIT first,
 * and one more unmeasured round precedes each cluster size. Writes {@code scheduler.md} and {@code
 * scheduler.svg} to the output directory.
 *
 * <p>Arguments: {@code [--nodes 500,1000,5000] [--pods 5000] [--rounds 10] [--out bench/reports]}.
 * It is a measurement, not a test: nothing here asserts on timing.
 */
public final class SchedulerBenchmark {

  private static final long CLUSTER_SEED = 42;
  private static final double WARM_UP_SECONDS = 5;

  /** The measurements for one cluster size. */
  record Result(
      int nodes,
      int feasibleNodesToFind,
      double[] decisionsPerSecond,
      long p50Nanos,
      long p99Nanos,
      int scheduled,
      int unschedulable) {

    double medianDecisionsPerSecond() {
      double[] sorted = decisionsPerSecond.clone();
      Arrays.sort(sorted);
      int n = sorted.length;
      return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
  }

  private SchedulerBenchmark() {}

  public static void main(String[] args) throws IOException {
    Map<String, String> options = options(args);
    int[] sizes =
        Arrays.stream(options.getOrDefault("nodes", "500,1000,5000").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    int podCount = Integer.parseInt(options.getOrDefault("pods", "5000"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "10"));
    Path out = Path.of(options.getOrDefault("out", "bench/reports"));

    int maxNodes = Arrays.stream(sizes).max().orElseThrow();
    List<Node> allNodes = SyntheticCluster.nodes(maxNodes, CLUSTER_SEED);
    List<Pod> pods = SyntheticCluster.pods(podCount, CLUSTER_SEED + 1);
    SchedulerConfig config = SchedulerConfig.defaults();
    System.out.printf(
        "scheduler benchmark: %d nodes generated, %d pending pods, %d rounds per size%n",
        maxNodes, podCount, rounds);

    long started = System.nanoTime();
    // Let the JIT compile the whole cycle before the first measured size.
    List<Node> warmUpNodes = allNodes.subList(0, Math.min(1000, maxNodes));
    int warmUpRounds = 0;
    while (seconds(started) < WARM_UP_SECONDS) {
      round(warmUpNodes, pods, config, -100 - warmUpRounds++, new long[pods.size()]);
    }
    System.out.printf(
        "[%5.1fs] JIT warm-up: %d rounds over %d nodes%n",
        seconds(started), warmUpRounds, warmUpNodes.size());
    List<Result> results = new ArrayList<>();
    for (int size : sizes) {
      List<Node> nodes = allNodes.subList(0, size);
      System.out.printf(
          "[%5.1fs] %d nodes: warm-up round (%d feasible nodes to find per decision)%n",
          seconds(started), size, config.numFeasibleNodesToFind(size));
      round(nodes, pods, config, -1, new long[pods.size()]);

      double[] throughput = new double[rounds];
      long[] latencies = new long[rounds * pods.size()];
      int scheduled = 0;
      for (int r = 0; r < rounds; r++) {
        long[] roundLatencies = new long[pods.size()];
        RoundOutcome outcome = round(nodes, pods, config, r, roundLatencies);
        scheduled = outcome.placed();
        throughput[r] = pods.size() / (outcome.elapsedNanos() / 1e9);
        System.arraycopy(roundLatencies, 0, latencies, r * pods.size(), pods.size());
        System.out.printf(
            "[%5.1fs] %d nodes: round %d/%d %,.0f decisions/s (%d placed, %d unschedulable)%n",
            seconds(started),
            size,
            r + 1,
            rounds,
            throughput[r],
            scheduled,
            pods.size() - scheduled);
      }
      Arrays.sort(latencies);
      results.add(
          new Result(
              size,
              config.numFeasibleNodesToFind(size),
              throughput,
              percentile(latencies, 50),
              percentile(latencies, 99),
              scheduled,
              pods.size() - scheduled));
    }

    String command =
        "mvn -B -q -pl bench -am package -DskipTests && java -cp"
            + " \"bench/target/streamplane-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*\""
            + " io.streamplane.bench.scheduler.SchedulerBenchmark"
            + (args.length == 0 ? "" : " " + String.join(" ", args));
    SchedulerReport.write(out, results, podCount, rounds, command);
    System.out.printf(
        "[%5.1fs] wrote %s and %s%n",
        seconds(started), out.resolve("scheduler.md"), out.resolve("scheduler.svg"));
  }

  private record RoundOutcome(int placed, long elapsedNanos) {}

  /**
   * Schedules every pod once on fresh nodes; the elapsed time covers the decisions and the node
   * updates, not building the nodes.
   */
  private static RoundOutcome round(
      List<Node> nodes, List<Pod> pods, SchedulerConfig config, int round, long[] latencies) {
    List<NodeInfo> infos = new ArrayList<>(nodes.size());
    Map<String, Integer> index = new HashMap<>();
    for (Node node : nodes) {
      index.put(node.getMetadata().getName(), infos.size());
      infos.add(NodeInfo.of(node));
    }
    int placed = 0;
    long start = System.nanoTime();
    for (int i = 0; i < pods.size(); i++) {
      Pod pod = pods.get(i);
      long seed = (long) round * 1_000_003L + i;
      long t0 = System.nanoTime();
      ScheduleResult result = Scheduler.schedule(pod, infos, config, seed);
      latencies[i] = System.nanoTime() - t0;
      if (result.scheduled()) {
        int at = index.get(result.nodeName());
        infos.set(at, infos.get(at).withPod(PodRequests.of(pod)));
        placed++;
      }
    }
    return new RoundOutcome(placed, System.nanoTime() - start);
  }

  private static long percentile(long[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(rank, sorted.length - 1))];
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "usage: SchedulerBenchmark [--nodes 500,1000,5000] [--pods 5000] [--rounds 10]"
                + " [--out bench/reports]");
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
