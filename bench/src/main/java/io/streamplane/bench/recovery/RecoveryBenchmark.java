package io.streamplane.bench.recovery;

import io.streamplane.bench.chaos.ProcessCluster;
import io.streamplane.bench.measure.Progress;
import io.streamplane.bench.report.Report;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Recovery after kill -9, scenario after scenario: the whole {@code streamplane up} (a fresh one
 * per run, killed as a process group and started again on the same directories), and each role
 * alone or one broker of the multi-process cluster (one cluster for all of them, a namespace per
 * run). Each run is a {@link RecoveryRun}; the report puts the medians and worsts beside the
 * targets and explains each run's time with the lag it recorded.
 */
public final class RecoveryBenchmark {

  /**
   * Every scenario: what is killed. {@code up-none} and {@code none} kill nothing: the same rollout
   * on {@code up} and on the multi-process cluster, the anchor of the others' figures (with "ready"
   * the moment the kill would have come).
   */
  public static final List<String> SCENARIOS =
      List.of(
          "up-none",
          "up",
          "none",
          "gateway",
          "store",
          "controllers",
          "scheduler",
          "nodes",
          "broker");

  /** Whether a scenario is an anchor that kills nothing. */
  static boolean killsNothing(String scenario) {
    return scenario.equals("none") || scenario.equals("up-none");
  }

  /** Whether a scenario runs on {@code up} rather than on the multi-process cluster. */
  static boolean onUp(String scenario) {
    return scenario.startsWith("up");
  }

  /** What to run. */
  public record Options(
      List<String> scenarios,
      List<Integer> pods,
      int runs,
      int nodes,
      String nodeCpu,
      String cpuRequest,
      Duration killAfter,
      Duration down,
      int writers,
      Duration timeout,
      int portBase,
      String serviceCidr,
      Path runDir,
      boolean keep) {}

  private final Options options;
  private final String command;
  private final PrintStream log;

  public RecoveryBenchmark(Options options, String command, PrintStream log) {
    this.options = options;
    this.command = command;
    this.log = log;
  }

  /**
   * The (scenario, pods) pairs in the order they run: every run of {@code up} first, then the
   * others by pods. The multi-process cluster, once started, stays up until the end; its JVMs at
   * rest would otherwise share the two cores with the {@code up} runs after it (a 1,000-pod {@code
   * up} run behind it took 115 s to run its pods again instead of 71 s).
   */
  static List<Map.Entry<String, Integer>> order(List<String> scenarios, List<Integer> pods) {
    List<Map.Entry<String, Integer>> order = new ArrayList<>();
    for (int p : pods) {
      scenarios.stream().filter(RecoveryBenchmark::onUp).forEach(s -> order.add(Map.entry(s, p)));
    }
    for (int p : pods) {
      scenarios.stream().filter(s -> !onUp(s)).forEach(s -> order.add(Map.entry(s, p)));
    }
    return order;
  }

  public Report run() throws Exception {
    Instant startedAt = Instant.now();
    long started = System.nanoTime();
    Path dir =
        options.runDir() != null
            ? options.runDir().toAbsolutePath()
            : Files.createTempDirectory("streamplane-recovery-");
    List<RunResult> results = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    Map<String, String> clusters = new LinkedHashMap<>();
    int total = options.scenarios().size() * options.pods().size() * options.runs();
    String[] phase = {"starting"};
    RecoveryRun[] current = {null};
    RoleCluster roles = null;
    try (Progress progress =
        Progress.start(
            () ->
                new Progress.Status(
                    phase[0],
                    results.size(),
                    total,
                    "runs",
                    current[0] == null ? "" : "Running " + current[0].running()))) {
      for (Map.Entry<String, Integer> next : order(options.scenarios(), options.pods())) {
        String scenario = next.getKey();
        int pods = next.getValue();
        for (int run = 1; run <= options.runs(); run++) {
          String label =
              String.format(
                  Locale.ROOT, "%s, %d pods, run %d/%d", scenario, pods, run, options.runs());
          RecoveryRun.Settings settings =
              new RecoveryRun.Settings(
                  pods,
                  options.killAfter(),
                  options.down(),
                  options.writers(),
                  options.timeout(),
                  options.cpuRequest(),
                  options.keep());
          int before = results.size();
          try {
            if (onUp(scenario)) {
              phase[0] = label + ": starting up";
              try (UpCluster up =
                  UpCluster.start(
                      new UpCluster.Settings(
                          dir.resolve(scenario + "-" + pods + "-" + run),
                          options.nodes(),
                          options.nodeCpu(),
                          options.portBase() + 300,
                          options.portBase() + 301,
                          options.serviceCidr()),
                      log)) {
                clusters.putIfAbsent("up", up.description());
                current[0] = new RecoveryRun(up, settings, p -> phase[0] = label + ": " + p);
                results.add(
                    current[0].run(scenario, scenario.equals("up") ? UpCluster.VICTIM : null, run));
              }
            } else {
              if (roles == null) {
                phase[0] = label + ": starting the multi-process cluster";
                roles = RoleCluster.start(layout(dir.resolve("cluster")), log);
              }
              clusters.putIfAbsent("roles", roles.description());
              current[0] = new RecoveryRun(roles, settings, p -> phase[0] = label + ": " + p);
              results.add(current[0].run(scenario, RoleCluster.victim(scenario), run));
            }
          } catch (Exception e) {
            failures.add(label + " failed: " + e);
            log.println("recovery: " + label + " failed: " + e);
            if (roles != null && RoleCluster.victim(scenario) != null) {
              try {
                roles.ensureRunning(RoleCluster.victim(scenario));
              } catch (IOException | RuntimeException again) {
                failures.add(label + ": could not start the victim again: " + again);
              }
            }
          } finally {
            current[0] = null;
          }
          if (results.size() > before) {
            RunResult last = results.get(results.size() - 1);
            log.println(
                String.format(
                    Locale.ROOT,
                    "recovery: %s: restart → ready %.1f s, → first write %.1f s, → all Running"
                        + " %.1f s, checks %s",
                    label,
                    last.ready(),
                    last.firstWrite(),
                    last.allRunning(),
                    last.verdict() == null ? "not run" : last.verdict().ok() ? "held" : "failed"));
          }
        }
      }
      phase[0] = "writing the report";
    } finally {
      if (roles != null) {
        roles.close();
      }
    }
    for (RunResult r : results) {
      r.problems().forEach(p -> failures.add(r.scenario() + " run " + r.run() + ": " + p));
      if (r.verdict() != null && !r.verdict().ok()) {
        r.verdict()
            .problems()
            .forEach(p -> failures.add(r.scenario() + " run " + r.run() + ": " + p));
      }
    }
    if (!options.keep()) {
      delete(dir);
    }
    String timeout = options.timeout().toSeconds() + " s";
    StringBuilder body = new StringBuilder("## What was measured\n\n");
    body.append(
        String.format(
            Locale.ROOT,
            "Each run: a Deployment of N replicas (one container, %s CPU requested) on %d"
                + " simulated nodes of %s CPU, and %d clients creating ConfigMaps one after"
                + " another; %s after the Deployment's create, mid-rollout, SIGKILL of the"
                + " process (for `up`, its whole process group), and its start again %s later"
                + " with the same command line and directories. Then: **restart → ready** (`up`"
                + " and a gateway: `/readyz` answers 200; a broker: it listens and is back in"
                + " the in-sync replicas of all its partitions; another role: its `/metrics`"
                + " reports a consumer lag again for each Kafka application it reported before"
                + " the kill); **ready → first write**: one writer per partition of the log"
                + " creates ConfigMaps of its partition from ready on, the first acknowledged"
                + " of them; **ready → every partition written**: the last partition's first;"
                + " **ready → all pods Running**: the pod list, read every 1 s (2 s above 300"
                + " pods). Checks, 5 s later: every ConfigMap whose create was answered 2xx"
                + " is listed, exactly N live pods and one ReplicaSet, and no node's live pods"
                + " request more CPU, memory or pods than it can allocate. Lag is sampled all"
                + " along: every process's `/metrics` each second, the broker's offsets every"
                + " two.\n\n",
            options.cpuRequest() == null ? "no" : options.cpuRequest(),
            options.nodes(),
            options.nodeCpu(),
            options.writers(),
            options.killAfter().toSeconds() + " s",
            options.down().toMillis() / 1000.0 + " s"));
    clusters.forEach((k, v) -> body.append("- ").append(capitalize(v)).append(".\n"));
    body.append('\n').append(RecoveryReport.runs(results));
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("rows", RecoverySummary.rows(results));
    json.put("runs", results);
    return new Report(
        "recovery",
        "Recovery after kill -9",
        command,
        String.join("; ", clusters.values()),
        startedAt,
        Duration.ofNanos(System.nanoTime() - started),
        RecoveryReport.summary(results, timeout),
        body.toString(),
        RecoveryReport.figure(results),
        RecoverySummary.targets(results),
        failures,
        List.of(),
        "each run restarts what it measures, so no counter spans a run; the lag each run"
            + " recorded is above",
        json);
  }

  private ProcessCluster.Layout layout(Path dir) {
    return new ProcessCluster.Layout(
        dir, options.portBase(), "sp", 6, 3, 1, 1, 1, 1, options.nodes(), options.nodeCpu());
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Left for the user to remove.
    }
  }
}
