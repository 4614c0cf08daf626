package io.streamplane.bench.scenario.churn;

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
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Churn: D Deployments are scaled together from 0 to R replicas and back to 0, again and again, for
 * the duration. Each step sends one {@code PATCH} of the {@code scale} subresource per Deployment
 * (what {@code kubectl scale} sends) and then waits, through a pod watch, until it has converged:
 * D×R pods Running after a scale-up, every pod gone (DELETED) after a scale-down.
 */
public final class ChurnScenario implements Scenario {

  /**
   * @param target the p99 convergence time of a step to stay under, or null
   */
  public record Options(
      Duration duration,
      int deployments,
      int replicas,
      String namespace,
      String image,
      Duration stepTimeout,
      boolean keep,
      Duration target) {

    public Options {
      if (deployments < 1 || replicas < 1) {
        throw new IllegalArgumentException("--deployments and --replicas must be at least 1");
      }
    }
  }

  /** One scale step. */
  public record Step(
      int number,
      int fromReplicas,
      int toReplicas,
      double startSeconds,
      double convergedSeconds,
      boolean converged,
      int podsCreated,
      int podsDeleted,
      LatencySummary scaleRequestMillis) {}

  /** The figures of a run, for the JSON file. */
  public record Results(
      int deployments,
      int replicas,
      double seconds,
      int podsCreated,
      int podsDeleted,
      double createdPerSecond,
      double deletedPerSecond,
      LatencySummary scaleRequestMillis,
      LatencySummary scaleUpConvergenceMillis,
      LatencySummary scaleDownConvergenceMillis,
      List<Step> steps,
      int watchResumes,
      int watchRelists,
      List<TimeSeries> series) {}

  private final Options options;

  public ChurnScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "churn";
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    PodTracker pods = new PodTracker();
    TimeSeries live = new TimeSeries("pods existing");
    TimeSeries running = new TimeSeries("pods Running");
    List<Step> steps = new ArrayList<>();
    List<Double> requestMillis = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    int[] stepNumber = {0};
    double seconds;
    int resumes;
    int relists;
    String fate;
    try (BenchNamespace ns =
        BenchNamespace.open(client, name(), options.namespace(), options.keep())) {
      String deployments = "/apis/apps/v1/namespaces/" + ns.name() + "/deployments";
      for (int i = 0; i < options.deployments(); i++) {
        KubeClient.Response r =
            client.post(
                deployments, Workloads.deployment("churn-" + i, 0, ns, options.image(), null));
        if (r.status() != 201) {
          throw new IllegalStateException(
              "creating Deployment churn-" + i + ": " + r.status() + " " + r.message());
        }
      }
      Instant start = Instant.now();
      Instant end = start.plus(options.duration());
      try (Watch watch =
              Watch.start(
                  client, "/api/v1/namespaces/" + ns.name() + "/pods", ns.selector(), pods);
          Progress progress =
              Progress.start(
                  () ->
                      new Progress.Status(
                          "churn",
                          Duration.between(start, Instant.now()).toSeconds(),
                          options.duration().toSeconds(),
                          "s",
                          String.format(
                              Locale.ROOT,
                              "step %d, %d pods (%d Running), created %d, deleted %d",
                              stepNumber[0],
                              pods.live(),
                              pods.liveRunning(),
                              pods.added(),
                              pods.deleted())));
          Sampler sampler =
              Sampler.every(
                  Duration.ofMillis(500),
                  t -> {
                    live.add(t, pods.live());
                    running.add(t, pods.liveRunning());
                  })) {
        int current = 0;
        while (Instant.now().isBefore(end)) {
          int target = current == 0 ? options.replicas() : 0;
          stepNumber[0]++;
          Step step =
              step(client, deployments, pods, stepNumber[0], current, target, start, requestMillis);
          steps.add(step);
          current = target;
          if (!step.converged()) {
            failures.add(
                String.format(
                    Locale.ROOT,
                    "step %d (%d → %d replicas) did not converge within %s",
                    step.number(),
                    step.fromReplicas(),
                    step.toReplicas(),
                    seconds(options.stepTimeout().toMillis() / 1000.0)));
            break;
          }
        }
        seconds = Duration.between(start, Instant.now()).toMillis() / 1000.0;
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
        steps,
        requestMillis,
        seconds,
        resumes,
        relists,
        failures,
        fate,
        List.of(live, running));
  }

  private Step step(
      KubeClient client,
      String deployments,
      PodTracker pods,
      int number,
      int from,
      int to,
      Instant runStart,
      List<Double> allRequests)
      throws Exception {
    int addedBefore = pods.added();
    int deletedBefore = pods.deleted();
    Instant start = Instant.now();
    List<Double> requestMillis = new ArrayList<>();
    for (int i = 0; i < options.deployments(); i++) {
      KubeClient.Response r =
          client.mergePatch(
              deployments + "/churn-" + i + "/scale", Map.of("spec", Map.of("replicas", to)));
      if (!r.ok()) {
        throw new IllegalStateException(
            "scaling Deployment churn-" + i + ": " + r.status() + " " + r.message());
      }
      requestMillis.add(r.nanos() / 1e6);
    }
    allRequests.addAll(requestMillis);
    int expected = options.deployments() * to;
    Instant deadline = start.plus(options.stepTimeout());
    boolean converged = false;
    while (Instant.now().isBefore(deadline)) {
      if (to > 0 ? pods.liveRunning() >= expected : pods.live() == 0) {
        converged = true;
        break;
      }
      Thread.sleep(20);
    }
    Instant done = Instant.now();
    return new Step(
        number,
        from,
        to,
        Duration.between(runStart, start).toMillis() / 1000.0,
        Duration.between(start, done).toMillis() / 1000.0,
        converged,
        pods.added() - addedBefore,
        pods.deleted() - deletedBefore,
        LatencySummary.of(requestMillis));
  }

  private Outcome outcome(
      PodTracker pods,
      List<Step> steps,
      List<Double> requestMillis,
      double seconds,
      int resumes,
      int relists,
      List<String> failures,
      String fate,
      List<TimeSeries> series) {
    double[] up =
        steps.stream()
            .filter(s -> s.converged() && s.toReplicas() > 0)
            .mapToDouble(s -> s.convergedSeconds() * 1000)
            .toArray();
    double[] down =
        steps.stream()
            .filter(s -> s.converged() && s.toReplicas() == 0)
            .mapToDouble(s -> s.convergedSeconds() * 1000)
            .toArray();
    double[] all =
        steps.stream()
            .filter(Step::converged)
            .mapToDouble(s -> s.convergedSeconds() * 1000)
            .toArray();
    Results r =
        new Results(
            options.deployments(),
            options.replicas(),
            seconds,
            pods.added(),
            pods.deleted(),
            pods.added() / seconds,
            pods.deleted() / seconds,
            LatencySummary.of(requestMillis),
            LatencySummary.of(up),
            LatencySummary.of(down),
            steps,
            resumes,
            relists,
            series);
    List<Target> targets = new ArrayList<>();
    if (options.target() != null) {
      boolean allConverged = steps.stream().allMatch(Step::converged);
      targets.add(
          new Target(
              "p99 convergence time of a scale step",
              options.target().toMillis(),
              allConverged ? LatencySummary.of(all).p99() : Double.NaN,
              "ms"));
    }
    String summary =
        String.format(
            Locale.ROOT,
            "%d scale steps of %d Deployments between 0 and %d replicas in %s: %s pods created"
                + " (%s/s), %s deleted (%s/s). Scale-up converged in p50 %s (max %s),"
                + " scale-down in p50 %s (max %s); scale requests p50 %s, p99 %s.",
            steps.size(),
            options.deployments(),
            options.replicas(),
            seconds(seconds),
            num(r.podsCreated(), 0),
            num(r.createdPerSecond(), 1),
            num(r.podsDeleted(), 0),
            num(r.deletedPerSecond(), 1),
            ms(r.scaleUpConvergenceMillis().p50()),
            ms(r.scaleUpConvergenceMillis().max()),
            ms(r.scaleDownConvergenceMillis().p50()),
            ms(r.scaleDownConvergenceMillis().max()),
            ms(r.scaleRequestMillis().p50()),
            ms(r.scaleRequestMillis().p99()));
    List<SvgFigure.Bar> bars = new ArrayList<>();
    for (Step s : steps) {
      bars.add(
          new SvgFigure.Bar(
              String.format(
                  Locale.ROOT, "step %d: %d → %d", s.number(), s.fromReplicas(), s.toReplicas()),
              s.convergedSeconds(),
              (s.converged() ? "" : "not converged after ")
                  + String.format(Locale.ROOT, "%.1f s", s.convergedSeconds())));
    }
    SvgFigure figure =
        new SvgFigure(
                String.format(
                    Locale.ROOT,
                    "churn: %d Deployments, 0 ↔ %d replicas",
                    options.deployments(),
                    options.replicas()))
            .timeSeries("Pods over time", "pods", series)
            .bars("Time for each step to converge (seconds)", bars)
            .cdf(
                "Scale request latency (PATCH .../scale), cumulative share",
                "ms",
                List.of(
                    new SvgFigure.Values(
                        "scale requests",
                        requestMillis.stream().mapToDouble(Double::doubleValue).toArray())));
    return new Outcome(
        "Churn: scaling Deployments up and down",
        summary,
        body(r, fate),
        figure,
        targets,
        failures,
        r);
  }

  private String body(Results r, String fate) {
    StringBuilder md = new StringBuilder("## What was measured\n\n");
    md.append(
            String.format(
                Locale.ROOT,
                "%d Deployments (image `%s`, created with 0 replicas) were scaled together, 0 → %d"
                    + " → 0 → ..., for %s. A step sends `PATCH"
                    + " .../deployments/<name>/scale` with `{\"spec\":{\"replicas\":n}}` (a JSON"
                    + " merge patch, as `kubectl scale`) to each Deployment in turn, then waits"
                    + " until a watch on the run's pods shows the step converged: D×R pods Running"
                    + " (scale-up) or every pod DELETED (scale-down). The convergence time runs"
                    + " from the step's first request to the watch event that completed it."
                    + " Steps start until the duration is over; the last one is waited for.%n%n",
                options.deployments(),
                options.image(),
                options.replicas(),
                seconds(options.duration().toMillis() / 1000.0)))
        .append("## Results\n\n")
        .append(
            Markdown.table(
                List.of("figure", "value"),
                "lr",
                List.of(
                    List.of("steps", num(r.steps().size(), 0)),
                    List.of("run time", seconds(r.seconds())),
                    List.of(
                        "pods created / deleted",
                        num(r.podsCreated(), 0) + " / " + num(r.podsDeleted(), 0)),
                    List.of(
                        "pods created / deleted per second",
                        num(r.createdPerSecond(), 1) + " / " + num(r.deletedPerSecond(), 1)),
                    List.of(
                        "watch resumed / re-listed",
                        r.watchResumes() + " / " + r.watchRelists()))));
    md.append("\n")
        .append(
            Markdown.latencyTable(
                "latency",
                List.of(
                    Markdown.latencyRow("scale request (PATCH)", r.scaleRequestMillis()),
                    Markdown.latencyRow("scale-up convergence", r.scaleUpConvergenceMillis()),
                    Markdown.latencyRow(
                        "scale-down convergence", r.scaleDownConvergenceMillis()))));
    md.append("\n### Steps\n\n");
    List<List<String>> rows = new ArrayList<>();
    for (Step s : r.steps()) {
      rows.add(
          List.of(
              Integer.toString(s.number()),
              s.fromReplicas() + " → " + s.toReplicas(),
              seconds(s.startSeconds()),
              (s.converged() ? "" : "not converged: ") + seconds(s.convergedSeconds()),
              num(s.podsCreated(), 0),
              num(s.podsDeleted(), 0),
              ms(s.scaleRequestMillis().max())));
    }
    md.append(
        Markdown.table(
            List.of(
                "step",
                "replicas",
                "started at",
                "converged after",
                "pods created",
                "pods deleted",
                "slowest scale request"),
            "lrrrrrr",
            rows));
    md.append("\nCleanup: ").append(fate).append(".\n");
    return md.toString();
  }
}
