package io.streamplane.bench.scenario.fanout;

import static io.streamplane.bench.report.Markdown.ms;
import static io.streamplane.bench.report.Markdown.num;
import static io.streamplane.bench.report.Markdown.seconds;

import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.load.Watch;
import io.streamplane.bench.measure.LatencySummary;
import io.streamplane.bench.measure.Progress;
import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.bench.report.Target;
import io.streamplane.bench.scenario.BenchNamespace;
import io.streamplane.bench.scenario.Outcome;
import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.Workloads;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watch fan-out: W watches on the ConfigMaps of one namespace are open while N ConfigMaps are
 * created one after another. Per watcher and object, the delivery lag is the arrival of the ADDED
 * event at that watcher minus the moment the create was answered, both on this client's clock; a
 * negative lag means the event arrived before the answer. The lag from the object's {@code
 * creationTimestamp} (server clock, whole seconds on kube-apiserver) is given too.
 */
public final class WatchFanoutScenario implements Scenario {

  /**
   * @param target the p99 delivery lag to stay under, or null
   */
  public record Options(
      int watchers, int writes, String namespace, boolean keep, Duration timeout, Duration target) {

    public Options {
      if (watchers < 1 || writes < 1) {
        throw new IllegalArgumentException("--watchers and --writes must be at least 1");
      }
    }
  }

  /** The figures of a run, for the JSON file. */
  public record Results(
      int watchers,
      int writes,
      long expectedDeliveries,
      long deliveries,
      double writeSeconds,
      double writesPerSecond,
      double deliveriesPerSecond,
      LatencySummary lagMillis,
      LatencySummary lagFromCreationTimestampMillis,
      LatencySummary createMillis,
      double shareBeforeAnswer,
      int slowestWatcherMissing,
      int watchResumes,
      int watchRelists,
      TimeSeries deliveredPerSecond) {}

  private final Options options;

  public WatchFanoutScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "watch-fanout";
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    int w = options.watchers();
    int n = options.writes();
    List<Map<String, Instant>> received = new ArrayList<>();
    Map<String, Instant> answered = new ConcurrentHashMap<>();
    Map<String, Instant> created = new ConcurrentHashMap<>();
    List<Double> createMillis = new ArrayList<>();
    AtomicInteger delivered = new AtomicInteger();
    AtomicInteger opened = new AtomicInteger();
    List<String> failures = new ArrayList<>();
    List<Watch> watches = new ArrayList<>();
    // The writer has its own connections; the watchers share a client, one connection each.
    KubeClient watching = new KubeClient(client.config());
    Instant writeStart;
    Instant writeEnd;
    int resumes = 0;
    int relists = 0;
    String fate;
    try (BenchNamespace ns =
        BenchNamespace.open(client, name(), options.namespace(), options.keep())) {
      String collection = "/api/v1/namespaces/" + ns.name() + "/configmaps";
      String[] phase = {"opening watches"};
      try (Progress progress =
          Progress.start(
              () ->
                  phase[0].equals("opening watches")
                      ? Progress.Status.of(phase[0], opened.get(), w, "watches")
                      : new Progress.Status(
                          phase[0],
                          delivered.get(),
                          (long) w * n,
                          "events delivered",
                          "created " + answered.size() + "/" + n))) {
        try {
          for (int i = 0; i < w; i++) {
            Map<String, Instant> mine = new ConcurrentHashMap<>();
            received.add(mine);
            watches.add(
                Watch.start(
                    watching,
                    collection,
                    ns.selector(),
                    event -> {
                      if (event.type().equals("ADDED")
                          && mine.putIfAbsent(
                                  event.object().at("/metadata/name").asText(), event.received())
                              == null) {
                        delivered.incrementAndGet();
                      }
                    }));
            opened.incrementAndGet();
          }
          phase[0] = "watch-fanout";
          writeStart = Instant.now();
          for (int i = 0; i < n; i++) {
            String name = String.format(Locale.ROOT, "fanout-%06d", i);
            KubeClient.Response r = client.post(collection, Workloads.configMap(name, ns, "v"));
            Instant now = Instant.now();
            if (r.status() != 201) {
              throw new IllegalStateException(
                  "creating ConfigMap " + name + ": " + r.status() + " " + r.message());
            }
            answered.put(name, now);
            createMillis.add(r.nanos() / 1e6);
            String stamp = r.body().at("/metadata/creationTimestamp").asText("");
            if (!stamp.isEmpty()) {
              created.put(name, Instant.parse(stamp));
            }
          }
          writeEnd = Instant.now();
          Instant deadline = writeEnd.plus(options.timeout());
          while (delivered.get() < (long) w * n && Instant.now().isBefore(deadline)) {
            Thread.sleep(50);
          }
        } finally {
          for (Watch watch : watches) {
            resumes += watch.resumes();
            relists += watch.relists();
            if (watch.errors() > 0) {
              failures.add("a watch failed " + watch.errors() + " times: " + watch.lastError());
            }
            watch.close();
          }
        }
      }
      ns.close();
      fate = ns.fate();
    }
    if (delivered.get() < (long) w * n) {
      failures.add(
          String.format(
              Locale.ROOT,
              "%,d of %,d events were not delivered within %s of the last create",
              (long) w * n - delivered.get(),
              (long) w * n,
              seconds(options.timeout().toMillis() / 1000.0)));
    }
    return outcome(
        received,
        answered,
        created,
        createMillis,
        writeStart,
        writeEnd,
        resumes,
        relists,
        failures,
        fate);
  }

  private Outcome outcome(
      List<Map<String, Instant>> received,
      Map<String, Instant> answered,
      Map<String, Instant> created,
      List<Double> createMillis,
      Instant writeStart,
      Instant writeEnd,
      int resumes,
      int relists,
      List<String> failures,
      String fate) {
    int w = options.watchers();
    int n = options.writes();
    List<Double> lags = new ArrayList<>();
    List<Double> fromStamp = new ArrayList<>();
    List<Instant> arrivals = new ArrayList<>();
    int worstMissing = 0;
    for (Map<String, Instant> watcher : received) {
      worstMissing = Math.max(worstMissing, n - watcher.size());
      watcher.forEach(
          (name, at) -> {
            arrivals.add(at);
            Instant answer = answered.get(name);
            if (answer != null) {
              lags.add(Duration.between(answer, at).toNanos() / 1e6);
            }
            Instant stamp = created.get(name);
            if (stamp != null) {
              fromStamp.add(Duration.between(stamp, at).toNanos() / 1e6);
            }
          });
    }
    double writeSeconds = Duration.between(writeStart, writeEnd).toMillis() / 1000.0;
    TimeSeries perSecond = new TimeSeries("events delivered per second");
    if (!arrivals.isEmpty()) {
      Instant last = arrivals.stream().max(Instant::compareTo).orElse(writeEnd);
      int buckets = (int) (Duration.between(writeStart, last).toMillis() / 1000) + 1;
      int[] counts = new int[buckets];
      for (Instant a : arrivals) {
        long ms = Duration.between(writeStart, a).toMillis();
        counts[(int) Math.max(0, Math.min(buckets - 1, ms / 1000))]++;
      }
      for (int b = 0; b < buckets; b++) {
        perSecond.add(b + 0.5, counts[b]);
      }
    }
    double deliverySeconds =
        arrivals.isEmpty()
            ? Double.NaN
            : Duration.between(writeStart, arrivals.stream().max(Instant::compareTo).get())
                    .toMillis()
                / 1000.0;
    LatencySummary lag = LatencySummary.of(lags);
    Results r =
        new Results(
            w,
            n,
            (long) w * n,
            arrivals.size(),
            writeSeconds,
            n / writeSeconds,
            arrivals.size() / deliverySeconds,
            lag,
            LatencySummary.of(fromStamp),
            LatencySummary.of(createMillis),
            lags.isEmpty()
                ? Double.NaN
                : lags.stream().filter(l -> l < 0).count() / (double) lags.size(),
            worstMissing,
            resumes,
            relists,
            perSecond);
    List<Target> targets = new ArrayList<>();
    if (options.target() != null) {
      targets.add(
          new Target(
              "p99 watch delivery lag",
              options.target().toMillis(),
              arrivals.size() == (long) w * n ? lag.p99() : Double.NaN,
              "ms"));
    }
    String summary =
        String.format(
            Locale.ROOT,
            "%d watchers × %,d ConfigMaps created at %s/s: %,d of %,d events delivered (%s/s)."
                + " Delivery lag after the create's answer: p50 %s, p90 %s, p99 %s, max %s.",
            w,
            n,
            num(r.writesPerSecond(), 1),
            r.deliveries(),
            r.expectedDeliveries(),
            num(r.deliveriesPerSecond(), 0),
            ms(lag.p50()),
            ms(lag.p90()),
            ms(lag.p99()),
            ms(lag.max()));
    double[] lagValues = lags.stream().mapToDouble(Double::doubleValue).toArray();
    SvgFigure figure =
        new SvgFigure(String.format(Locale.ROOT, "watch-fanout: %d watchers, %,d creates", w, n))
            .histogram("Delivery lag (event arrival − create answered)", "ms", lagValues, 30)
            .cdf(
                "Delivery lag, cumulative share",
                "ms",
                List.of(
                    new SvgFigure.Values("after the answer", lagValues),
                    new SvgFigure.Values(
                        "after creationTimestamp",
                        fromStamp.stream().mapToDouble(Double::doubleValue).toArray())))
            .timeSeries(
                "Events delivered per second (all watchers)", "events/s", List.of(perSecond));
    return new Outcome(
        "Watch fan-out: delivery lag", summary, body(r, fate), figure, targets, failures, r);
  }

  private String body(Results r, String fate) {
    StringBuilder md = new StringBuilder("## What was measured\n\n");
    md.append(
            String.format(
                Locale.ROOT,
                "%d watches (`watch=true` on the namespace's ConfigMaps with the run's label"
                    + " selector, each on its own connection) were opened, then %,d ConfigMaps"
                    + " were created one after another by another client. For every watcher and"
                    + " object, the **delivery lag** is the arrival of its ADDED event at the"
                    + " watcher minus the moment the create's answer was read, both on this"
                    + " client's clock; negative when the event came first. The lag from the"
                    + " object's `creationTimestamp` (server clock) is also shown; on"
                    + " kube-apiserver it has whole seconds, so it reads up to 1 s long.%n%n",
                r.watchers(),
                r.writes()))
        .append("## Results\n\n")
        .append(
            Markdown.table(
                List.of("figure", "value"),
                "lr",
                List.of(
                    List.of(
                        "events delivered / expected",
                        num(r.deliveries(), 0) + " / " + num(r.expectedDeliveries(), 0)),
                    List.of("creates per second", num(r.writesPerSecond(), 1)),
                    List.of("events delivered per second", num(r.deliveriesPerSecond(), 0)),
                    List.of(
                        "events that arrived before the create's answer",
                        Double.isNaN(r.shareBeforeAnswer())
                            ? "-"
                            : String.format(Locale.ROOT, "%.1f%%", 100 * r.shareBeforeAnswer())),
                    List.of(
                        "most events missing at one watcher", num(r.slowestWatcherMissing(), 0)),
                    List.of(
                        "watches resumed / re-listed",
                        r.watchResumes() + " / " + r.watchRelists()))));
    md.append("\n")
        .append(
            Markdown.latencyTable(
                "latency",
                List.of(
                    Markdown.latencyRow("delivery lag after the create's answer", r.lagMillis()),
                    Markdown.latencyRow(
                        "delivery lag after creationTimestamp", r.lagFromCreationTimestampMillis()),
                    Markdown.latencyRow("create request", r.createMillis()))));
    md.append("\nCleanup: ").append(fate).append(".\n");
    return md.toString();
  }
}
