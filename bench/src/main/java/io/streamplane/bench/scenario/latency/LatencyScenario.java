package io.streamplane.bench.scenario.latency;

import static io.streamplane.bench.report.Markdown.ms;
import static io.streamplane.bench.report.Markdown.num;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.measure.LatencySummary;
import io.streamplane.bench.measure.Progress;
import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.profile.CpuProfile;
import io.streamplane.bench.profile.CpuReport;
import io.streamplane.bench.profile.Profiler;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.bench.report.Target;
import io.streamplane.bench.scenario.BenchNamespace;
import io.streamplane.bench.scenario.Outcome;
import io.streamplane.bench.scenario.Scenario;
import io.streamplane.bench.scenario.Workloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Request latency of the three mutating verbs: N small objects (ConfigMaps, or Secrets) are
 * created, then each is updated (PUT with the resourceVersion its create returned, so the update is
 * conditional, as a controller's is), then deleted, each phase from C concurrent clients that each
 * have their own connections. A request's latency is from sending it to having read the whole
 * answer, on the client. Throughput is a phase's successful requests ÷ its duration.
 */
public final class LatencyScenario implements Scenario {

  /**
   * @param kind {@code configmaps} or {@code secrets}
   * @param target the p99 latency every verb should stay under, or null
   * @param profilePid the cluster's JVM on this machine, whose CPU per request each phase breaks
   *     down by hop and stage, or null
   */
  public record Options(
      int count,
      int clients,
      String kind,
      String namespace,
      boolean keep,
      Duration target,
      Long profilePid) {

    public Options {
      if (count < 1 || clients < 1) {
        throw new IllegalArgumentException("--count and --clients must be at least 1");
      }
      if (!kind.equals("configmaps") && !kind.equals("secrets")) {
        throw new IllegalArgumentException("--kind must be configmaps or secrets");
      }
    }
  }

  /** One verb's figures. */
  public record Phase(
      String verb,
      int requests,
      int succeeded,
      Map<Integer, Integer> statuses,
      double seconds,
      double perSecond,
      LatencySummary millis,
      TimeSeries completedPerSecond,
      @JsonIgnore double[] okMillis) {}

  /** The figures of a run, for the JSON file. */
  public record Results(
      int count, int clients, String kind, List<Phase> phases, List<CpuProfile.Breakdown> cpu) {}

  private final Options options;

  public LatencyScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "latency";
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    List<KubeClient> clients = new ArrayList<>();
    for (int i = 0; i < options.clients(); i++) {
      KubeClient c = new KubeClient(client.config());
      // Connections are opened before the clock starts.
      c.get("/version");
      clients.add(c);
    }
    List<Phase> phases = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    String fate;
    List<CpuProfile.Breakdown> cpu = List.of();
    ExecutorService pool = Executors.newFixedThreadPool(options.clients());
    Profiler profiler = options.profilePid() == null ? null : Profiler.start(options.profilePid());
    try (BenchNamespace ns =
        BenchNamespace.open(client, name(), options.namespace(), options.keep())) {
      String collection = "/api/v1/namespaces/" + ns.name() + "/" + options.kind();
      String[] versions = new String[options.count()];
      phases.add(
          phase(
              pool,
              profiler,
              clients,
              "create",
              (c, i) -> {
                KubeClient.Response r = c.post(collection, object(ns, i, "v1"));
                if (r.ok() && r.body() != null) {
                  versions[i] = r.body().at("/metadata/resourceVersion").asText();
                }
                return r;
              }));
      phases.add(
          phase(
              pool,
              profiler,
              clients,
              "update",
              (c, i) -> {
                ObjectNode changed = object(ns, i, "v2");
                if (versions[i] != null) {
                  ((ObjectNode) changed.get("metadata")).put("resourceVersion", versions[i]);
                }
                return c.put(collection + "/" + objectName(i), changed);
              }));
      phases.add(
          phase(
              pool,
              profiler,
              clients,
              "delete",
              (c, i) -> c.delete(collection + "/" + objectName(i))));
      if (profiler != null) {
        cpu = profiler.finish();
      }
      ns.close();
      fate = ns.fate();
    } finally {
      pool.shutdownNow();
      if (profiler != null) {
        profiler.close();
      }
    }
    for (Phase p : phases) {
      if (p.succeeded() < p.requests()) {
        failures.add(
            String.format(
                Locale.ROOT,
                "%d of %d %s requests failed (status: count %s)",
                p.requests() - p.succeeded(),
                p.requests(),
                p.verb(),
                p.statuses()));
      }
    }
    return outcome(phases, cpu, failures, fate);
  }

  private interface Request {
    KubeClient.Response send(KubeClient client, int index) throws Exception;
  }

  private Phase phase(
      ExecutorService pool,
      Profiler profiler,
      List<KubeClient> clients,
      String verb,
      Request request)
      throws Exception {
    int n = options.count();
    if (profiler != null) {
      profiler.begin(verb);
    }
    double[] millis = new double[n];
    int[] status = new int[n];
    long[] doneAt = new long[n];
    AtomicInteger done = new AtomicInteger();
    long start = System.nanoTime();
    try (Progress progress =
        Progress.start(() -> Progress.Status.of(verb, done.get(), n, "requests"))) {
      List<Future<?>> futures = new ArrayList<>();
      for (int k = 0; k < clients.size(); k++) {
        int first = k;
        KubeClient c = clients.get(k);
        futures.add(
            pool.submit(
                () -> {
                  for (int i = first; i < n; i += clients.size()) {
                    KubeClient.Response r = request.send(c, i);
                    millis[i] = r.nanos() / 1e6;
                    status[i] = r.status();
                    doneAt[i] = System.nanoTime();
                    done.incrementAndGet();
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (profiler != null) {
      profiler.end(n);
    }
    Map<Integer, Integer> statuses = new TreeMap<>();
    List<Double> ok = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      statuses.merge(status[i], 1, Integer::sum);
      if (status[i] >= 200 && status[i] < 300) {
        ok.add(millis[i]);
      }
    }
    TimeSeries perSecond = new TimeSeries(verb);
    int buckets = (int) Math.ceil(seconds);
    int[] counts = new int[Math.max(1, buckets)];
    for (long t : doneAt) {
      counts[(int) Math.min(counts.length - 1, (t - start) / 1_000_000_000L)]++;
    }
    for (int b = 0; b < counts.length; b++) {
      // The last bucket may be partial: its rate is over the time it covers.
      double width = Math.min(1.0, seconds - b);
      perSecond.add(b + width / 2, counts[b] / Math.max(width, 1e-3));
    }
    double[] okMillis = ok.stream().mapToDouble(Double::doubleValue).toArray();
    return new Phase(
        verb,
        n,
        ok.size(),
        statuses,
        seconds,
        ok.size() / seconds,
        LatencySummary.of(okMillis),
        perSecond,
        okMillis);
  }

  private ObjectNode object(BenchNamespace ns, int i, String value) {
    return options.kind().equals("secrets")
        ? Workloads.secret(objectName(i), ns, value)
        : Workloads.configMap(objectName(i), ns, value);
  }

  private static String objectName(int i) {
    return String.format(Locale.ROOT, "latency-%06d", i);
  }

  private Outcome outcome(
      List<Phase> phases, List<CpuProfile.Breakdown> cpu, List<String> failures, String fate) {
    List<Target> targets = new ArrayList<>();
    if (options.target() != null) {
      for (Phase p : phases) {
        targets.add(
            new Target(
                "p99 " + p.verb() + " latency",
                options.target().toMillis(),
                p.millis().p99(),
                "ms"));
      }
    }
    StringBuilder summary =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%s %s, %d client%s:",
                num(options.count(), 0),
                options.kind(),
                options.clients(),
                options.clients() == 1 ? "" : "s"));
    for (Phase p : phases) {
      summary.append(
          String.format(
              Locale.ROOT,
              " %s %s/s (p50 %s, p99 %s);",
              p.verb(),
              num(p.perSecond(), 1),
              ms(p.millis().p50()),
              ms(p.millis().p99())));
    }
    summary.setLength(summary.length() - 1);
    summary.append('.');
    List<SvgFigure.Values> cdf = new ArrayList<>();
    List<TimeSeries> rates = new ArrayList<>();
    for (Phase p : phases) {
      cdf.add(new SvgFigure.Values(p.verb(), p.okMillis()));
      rates.add(p.completedPerSecond());
    }
    SvgFigure figure =
        new SvgFigure(
                String.format(
                    Locale.ROOT,
                    "latency: %,d %s, %d client%s",
                    options.count(),
                    options.kind(),
                    options.clients(),
                    options.clients() == 1 ? "" : "s"))
            .cdf("Request latency, cumulative share (successful requests)", "ms", cdf)
            .timeSeries(
                "Requests answered per second (each phase from its own start)",
                "requests/s",
                rates);
    CpuReport.panels(figure, cpu, CpuReport.Measure.MICROS_PER_REQUEST);
    return new Outcome(
        "API request latency: create, update, delete",
        summary.toString(),
        body(phases, fate) + cpuSection(cpu),
        figure,
        targets,
        failures,
        new Results(options.count(), options.clients(), options.kind(), phases, cpu));
  }

  private String cpuSection(List<CpuProfile.Breakdown> cpu) {
    return options.profilePid() == null
        ? ""
        : "\n"
            + CpuReport.markdown(options.profilePid(), cpu, CpuReport.Measure.MICROS_PER_REQUEST);
  }

  private String body(List<Phase> phases, String fate) {
    StringBuilder md = new StringBuilder("## What was measured\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Three phases, one after the other, each of %,d requests shared round-robin among %d"
                + " client%s (each its own HTTP connection pool; %s): `POST` of small %s (one"
                + " data entry), `PUT` of each with the `resourceVersion` its create answered, and"
                + " `DELETE`. Latency: from sending a request to having read its whole answer, on"
                + " the client. Throughput: successful requests of the phase ÷ the phase's"
                + " duration.%n%n",
            options.count(),
            options.clients(),
            options.clients() == 1 ? "" : "s",
            options.clients() == 1 ? "requests one after another" : "clients run concurrently",
            options.kind()));
    List<String> header = new ArrayList<>(List.of("verb", "ok / sent", "requests/s"));
    header.addAll(Markdown.LATENCY_HEADER.subList(1, Markdown.LATENCY_HEADER.size()));
    header.add("mean");
    List<List<String>> rows = new ArrayList<>();
    for (Phase p : phases) {
      rows.add(
          List.of(
              p.verb(),
              p.succeeded() + " / " + p.requests(),
              num(p.perSecond(), 1),
              ms(p.millis().p50()),
              ms(p.millis().p90()),
              ms(p.millis().p99()),
              ms(p.millis().max()),
              ms(p.millis().mean())));
    }
    md.append("## Results\n\n").append(Markdown.table(header, "lrrrrrrr", rows));
    md.append("\nStatus codes per verb: ");
    for (Phase p : phases) {
      md.append(p.verb()).append(' ').append(p.statuses()).append("; ");
    }
    md.setLength(md.length() - 2);
    md.append(".\n\nCleanup: ").append(fate).append(".\n");
    return md.toString();
  }
}
