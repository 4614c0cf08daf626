package io.streamplane.bench.scenario.density;

import static io.streamplane.bench.report.Markdown.ms;
import static io.streamplane.bench.report.Markdown.num;
import static io.streamplane.bench.report.Markdown.seconds;

import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.load.Watch;
import io.streamplane.bench.measure.LatencySummary;
import io.streamplane.bench.measure.Progress;
import io.streamplane.bench.measure.Sampler;
import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.bench.report.Target;
import io.streamplane.bench.scenario.BenchNamespace;
import io.streamplane.bench.scenario.Outcome;
import io.streamplane.bench.scenario.PodTracker;
import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.Workloads;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Pod density and startup: D Deployments of R replicas are created at once, and the pods are
 * followed through a watch started before the first create, until all D×R are Running.
 *
 * <p>Measured as Kubernetes' pod startup SLI: per pod, from its {@code creationTimestamp} to the
 * arrival of the first watch event showing it Running; also creation to scheduled (first event with
 * a node), and first seen to Running on the client's clock alone (millisecond precision, where
 * {@code creationTimestamp} has whole seconds). Throughput: pods Running per second, from the first
 * create request to the last pod Running.
 */
public final class DensityScenario implements Scenario {

  /**
   * @param target the p99 startup latency to stay under, or null
   */
  public record Options(
      int deployments,
      int replicas,
      String namespace,
      String image,
      String cpuRequest,
      Duration timeout,
      boolean keep,
      Duration target) {

    public Options {
      if (deployments < 1 || replicas < 1) {
        throw new IllegalArgumentException("--deployments and --replicas must be at least 1");
      }
    }
  }

  /** The figures of a run, for the JSON file. */
  public record Results(
      int deployments,
      int replicas,
      int expectedPods,
      int podsSeen,
      int podsScheduled,
      int podsRunning,
      double secondsToAllRunning,
      double podsPerSecond,
      LatencySummary startupMillis,
      LatencySummary scheduledMillis,
      LatencySummary scheduledToRunningMillis,
      LatencySummary seenToRunningMillis,
      LatencySummary deploymentCreateMillis,
      Map<String, Integer> podsPerNode,
      int watchResumes,
      int watchRelists,
      List<TimeSeries> series) {}

  private final Options options;

  public DensityScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "density";
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    int expected = options.deployments() * options.replicas();
    List<String> failures = new ArrayList<>();
    PodTracker pods = new PodTracker();
    TimeSeries seenSeries = new TimeSeries("created (seen)");
    TimeSeries scheduledSeries = new TimeSeries("scheduled");
    TimeSeries runningSeries = new TimeSeries("Running");
    List<Double> createMillis = new ArrayList<>();
    Instant start;
    Instant allRunning = null;
    int resumes;
    int relists;
    String fate;
    try (BenchNamespace ns =
        BenchNamespace.open(client, name(), options.namespace(), options.keep())) {
      String podsPath = "/api/v1/namespaces/" + ns.name() + "/pods";
      try (Watch watch = Watch.start(client, podsPath, ns.selector(), pods);
          Progress progress =
              Progress.start(
                  () ->
                      new Progress.Status(
                          "density",
                          pods.running(),
                          expected,
                          "pods Running",
                          "created " + pods.added() + ", scheduled " + pods.scheduled()))) {
        start = Instant.now();
        try (Sampler sampler =
            Sampler.every(
                Duration.ofMillis(500),
                t -> {
                  seenSeries.add(t, pods.added());
                  scheduledSeries.add(t, pods.scheduled());
                  runningSeries.add(t, pods.running());
                })) {
          String deployments = "/apis/apps/v1/namespaces/" + ns.name() + "/deployments";
          for (int i = 0; i < options.deployments(); i++) {
            KubeClient.Response answer =
                client.post(
                    deployments,
                    Workloads.deployment(
                        "density-" + i,
                        options.replicas(),
                        ns,
                        options.image(),
                        options.cpuRequest()));
            if (answer.status() != 201) {
              throw new IllegalStateException(
                  "creating Deployment density-"
                      + i
                      + ": "
                      + answer.status()
                      + " "
                      + answer.message());
            }
            createMillis.add(answer.nanos() / 1e6);
          }
          Instant deadline = start.plus(options.timeout());
          while (pods.running() < expected && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
          }
        }
        if (pods.running() < expected) {
          failures.add(
              String.format(
                  Locale.ROOT,
                  "timed out after %s: %d of %d pods Running (%d created, %d scheduled)",
                  seconds(options.timeout().toMillis() / 1000.0),
                  pods.running(),
                  expected,
                  pods.added(),
                  pods.scheduled()));
        } else {
          allRunning =
              pods.pods().stream()
                  .map(PodTracker.Pod::running)
                  .filter(Objects::nonNull)
                  .max(Instant::compareTo)
                  .orElse(null);
        }
        resumes = watch.resumes();
        relists = watch.relists();
        if (watch.errors() > 0) {
          failures.add("the pod watch failed " + watch.errors() + " times: " + watch.lastError());
        }
      }
      ns.close();
      fate = ns.fate();
    }
    return outcome(
        pods,
        start,
        allRunning,
        createMillis,
        failures,
        resumes,
        relists,
        fate,
        List.of(seenSeries, scheduledSeries, runningSeries));
  }

  private Outcome outcome(
      PodTracker tracker,
      Instant start,
      Instant allRunning,
      List<Double> createMillis,
      List<String> failures,
      int resumes,
      int relists,
      String fate,
      List<TimeSeries> series) {
    int expected = options.deployments() * options.replicas();
    List<PodTracker.Pod> pods = tracker.pods();
    double[] startup = PodTracker.millis(pods, PodTracker.Pod::created, PodTracker.Pod::running);
    double[] scheduled =
        PodTracker.millis(pods, PodTracker.Pod::created, PodTracker.Pod::scheduled);
    double[] scheduledToRunning =
        PodTracker.millis(pods, PodTracker.Pod::scheduled, PodTracker.Pod::running);
    double[] seenToRunning = PodTracker.millis(pods, PodTracker.Pod::seen, PodTracker.Pod::running);
    double allSeconds =
        allRunning == null ? Double.NaN : Duration.between(start, allRunning).toMillis() / 1000.0;
    double podsPerSecond = Double.isNaN(allSeconds) ? Double.NaN : expected / allSeconds;
    Map<String, Integer> perNode = new LinkedHashMap<>();
    pods.stream()
        .filter(p -> p.node() != null)
        .map(PodTracker.Pod::node)
        .sorted()
        .forEach(n -> perNode.merge(n, 1, Integer::sum));
    Results results =
        new Results(
            options.deployments(),
            options.replicas(),
            expected,
            tracker.added(),
            tracker.scheduled(),
            tracker.running(),
            allSeconds,
            podsPerSecond,
            LatencySummary.of(startup),
            LatencySummary.of(scheduled),
            LatencySummary.of(scheduledToRunning),
            LatencySummary.of(seenToRunning),
            LatencySummary.of(createMillis),
            perNode,
            resumes,
            relists,
            series);
    List<Target> targets = new ArrayList<>();
    if (options.target() != null) {
      targets.add(
          new Target(
              "p99 pod startup latency (created → Running)",
              options.target().toMillis(),
              results.startupMillis().count() == expected
                  ? results.startupMillis().p99()
                  : Double.NaN,
              "ms"));
    }
    String summary =
        String.format(
            Locale.ROOT,
            "%s of %s pods (%d Deployments × %d replicas) Running %s: %s pods/s. Pod startup"
                + " (created → Running): p50 %s, p90 %s, p99 %s, max %s.",
            num(tracker.running(), 0),
            num(expected, 0),
            options.deployments(),
            options.replicas(),
            Double.isNaN(allSeconds)
                ? "before the timeout ran out"
                : "after " + seconds(allSeconds),
            num(podsPerSecond, 1),
            ms(results.startupMillis().p50()),
            ms(results.startupMillis().p90()),
            ms(results.startupMillis().p99()),
            ms(results.startupMillis().max()));
    SvgFigure figure =
        new SvgFigure(
                String.format(
                    Locale.ROOT,
                    "density: %d Deployments × %d replicas",
                    options.deployments(),
                    options.replicas()))
            .histogram("Pod startup latency (created → Running, watch)", "ms", startup, 30)
            .cdf(
                "Cumulative share of pods",
                "ms",
                List.of(
                    new SvgFigure.Values("created → Running", startup),
                    new SvgFigure.Values("created → scheduled", scheduled),
                    new SvgFigure.Values("scheduled → Running", scheduledToRunning),
                    new SvgFigure.Values("seen → Running", seenToRunning)))
            .timeSeries("Pods over time (from the first create)", "pods", series);
    return new Outcome(
        "Pod density and startup latency",
        summary,
        body(results, fate),
        figure,
        targets,
        failures,
        results);
  }

  private String body(Results r, String fate) {
    StringBuilder md = new StringBuilder("## What was measured\n\n");
    md.append(
            String.format(
                Locale.ROOT,
                "%d Deployments of %d replicas each (image `%s`, %s) were created one after"
                    + " another through the API, after a watch on the run's pods had been opened."
                    + " Every time below is the arrival of a watch event on this client's clock,"
                    + " except `created`, the pod's `creationTimestamp` (server clock; whole"
                    + " seconds on kube-apiserver, so latencies from it read up to 1 s long).\n\n",
                options.deployments(),
                options.replicas(),
                options.image(),
                options.cpuRequest() == null
                    ? "no resource requests"
                    : "CPU request " + options.cpuRequest()))
        .append("- **created → Running**: Kubernetes' pod startup SLI (the SLO is p99 ≤ 5 s);\n")
        .append("- **created → scheduled**: until the first event with `spec.nodeName`;\n")
        .append("- **scheduled → Running**, and **seen → Running** from the pod's first event,\n")
        .append("  both on the client's clock alone;\n")
        .append(
            "- **pods/s**: pods Running ÷ time from the first create request to the last pod"
                + " Running.\n\n");
    md.append("## Results\n\n")
        .append(
            Markdown.table(
                List.of("figure", "value"),
                "lr",
                List.of(
                    List.of("pods expected", num(r.expectedPods(), 0)),
                    List.of(
                        "pods seen / scheduled / Running",
                        r.podsSeen() + " / " + r.podsScheduled() + " / " + r.podsRunning()),
                    List.of("first create → all Running", seconds(r.secondsToAllRunning())),
                    List.of("pods Running per second", num(r.podsPerSecond(), 1)),
                    List.of("nodes used", num(r.podsPerNode().size(), 0)),
                    List.of(
                        "watch resumed / re-listed", r.watchResumes() + " / " + r.watchRelists()))))
        .append("\n### Latencies\n\n");
    List<List<String>> rows = new ArrayList<>();
    rows.add(Markdown.latencyRow("created → Running (SLI)", r.startupMillis()));
    rows.add(Markdown.latencyRow("created → scheduled", r.scheduledMillis()));
    rows.add(Markdown.latencyRow("scheduled → Running", r.scheduledToRunningMillis()));
    rows.add(Markdown.latencyRow("seen → Running", r.seenToRunningMillis()));
    rows.add(Markdown.latencyRow("Deployment create request", r.deploymentCreateMillis()));
    md.append(Markdown.latencyTable("latency", rows));
    if (!r.podsPerNode().isEmpty()) {
      int min = r.podsPerNode().values().stream().mapToInt(Integer::intValue).min().orElse(0);
      int max = r.podsPerNode().values().stream().mapToInt(Integer::intValue).max().orElse(0);
      md.append(
          String.format(
              Locale.ROOT,
              "%nPods per node: %d to %d over %d nodes.%n",
              min,
              max,
              r.podsPerNode().size()));
    }
    md.append("\nCleanup: ").append(fate).append(".\n");
    return md.toString();
  }
}
