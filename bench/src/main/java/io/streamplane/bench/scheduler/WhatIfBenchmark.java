package io.streamplane.bench.scheduler;

import io.streamplane.api.Node;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.scheduler.framework.NodeInfo;
import io.streamplane.scheduler.framework.ScheduleResult;
import io.streamplane.scheduler.framework.Scheduler;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.scheduler.framework.ScoringStrategy;
import io.streamplane.scheduler.whatif.LogChange;
import io.streamplane.scheduler.whatif.WhatIfResult;
import io.streamplane.scheduler.whatif.WhatIfSimulation;
import io.streamplane.scheduler.whatif.WhatIfWindow;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Speed of {@link WhatIfSimulation#run}: decisions per second replaying a window of pods bound on a
 * synthetic cluster (the scheduler benchmark's nodes and pods) through a MostAllocated profile.
 *
 * <p>The window is made once: each pod is placed by the default profile (what "really" happened)
 * over the evolving cluster, and after the first half every new binding is followed by the release
 * of the oldest pod still running, so the window has deletions as a real one does. Then the what-if
 * runs are timed, after five seconds of unmeasured runs for the JIT.
 *
 * <p>Arguments: {@code [--nodes 1000] [--pods 10000] [--runs 5]}. It prints its figures, per
 * wall-clock second and per second of the thread's CPU time (what one free core would give on a
 * shared machine); it is a measurement, not a test.
 */
public final class WhatIfBenchmark {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private WhatIfBenchmark() {}

  public static void main(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    int nodeCount = Integer.parseInt(options.getOrDefault("nodes", "1000"));
    int podCount = Integer.parseInt(options.getOrDefault("pods", "10000"));
    int runs = Integer.parseInt(options.getOrDefault("runs", "5"));

    WhatIfWindow window = window(nodeCount, podCount);
    SchedulerConfig packing =
        SchedulerConfig.defaults()
            .withScoringStrategy(ScoringStrategy.of(ScoringStrategy.Type.MostAllocated));
    System.out.printf(
        Locale.ROOT,
        "what-if benchmark: %,d nodes, %,d pods bound in the window, %,d changes%n",
        nodeCount,
        podCount,
        window.changes().size());

    long warmUp = System.nanoTime();
    while (System.nanoTime() - warmUp < 5_000_000_000L) {
      WhatIfSimulation.run(window, packing);
    }
    double[] rates = new double[runs];
    double[] cpuRates = new double[runs];
    WhatIfResult result = null;
    for (int r = 0; r < runs; r++) {
      long started = System.nanoTime();
      long cpuStarted = THREADS.getCurrentThreadCpuTime();
      result = WhatIfSimulation.run(window, packing);
      double seconds = (System.nanoTime() - started) / 1e9;
      double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpuStarted) / 1e9;
      rates[r] = result.decisions() / seconds;
      cpuRates[r] = result.decisions() / cpuSeconds;
      System.out.printf(
          Locale.ROOT,
          "run %d: %,d decisions in %.3f s (%.3f s of CPU) = %,.0f decisions/s (%,.0f per CPU"
              + " second)%n",
          r + 1,
          result.decisions(),
          seconds,
          cpuSeconds,
          rates[r],
          cpuRates[r]);
    }
    Arrays.sort(rates);
    Arrays.sort(cpuRates);
    System.out.printf(
        Locale.ROOT,
        "median %,.0f decisions/s (min %,.0f, max %,.0f), %,.0f per CPU second; placed differently %,d of %,d;"
            + " nodes used %d really, %d in the what-if; unschedulable %d%n",
        rates[runs / 2],
        rates[0],
        rates[runs - 1],
        cpuRates[runs / 2],
        result.placedDifferently(),
        result.podsInWindow(),
        result.nodesUsedReal(),
        result.nodesUsedWhatIf(),
        result.unschedulableAfter());
  }

  static WhatIfWindow window(int nodeCount, int podCount) {
    List<Node> nodes = SyntheticCluster.nodes(nodeCount, 42);
    List<Pod> pods = SyntheticCluster.pods(podCount, 43);
    SchedulerConfig real = SchedulerConfig.defaults();
    List<NodeInfo> view = new ArrayList<>();
    Map<String, Integer> index = new HashMap<>();
    for (Node n : nodes) {
      index.put(n.getMetadata().getName(), view.size());
      view.add(NodeInfo.of(n));
    }
    List<LogChange> changes = new ArrayList<>();
    Deque<Object[]> running = new ArrayDeque<>();
    for (int p = 0; p < pods.size(); p++) {
      String name = "pod-" + p;
      Pod pod =
          Pod.newBuilder(pods.get(p))
              .setMetadata(ObjectMeta.newBuilder().setName(name).setNamespace("default").build())
              .build();
      String key = "pods./default/" + name;
      ScheduleResult placed = Scheduler.schedule(pod, view, real, p);
      if (!placed.scheduled()) {
        continue;
      }
      int i = index.get(placed.nodeName());
      view.set(i, view.get(i).withPod(placed.requests()));
      changes.add(new LogChange.PodBound(key, pod, placed.nodeName(), true));
      running.add(new Object[] {key, i, placed});
      if (p >= pods.size() / 2) {
        Object[] oldest = running.poll();
        int o = (int) oldest[1];
        view.set(o, view.get(o).withoutPod(((ScheduleResult) oldest[2]).requests()));
        changes.add(new LogChange.PodReleased((String) oldest[0]));
      }
    }
    return new WhatIfWindow(nodes, List.of(), changes, List.of());
  }
}
