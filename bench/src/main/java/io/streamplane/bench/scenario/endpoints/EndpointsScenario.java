package io.streamplane.bench.scenario.endpoints;

import static io.streamplane.bench.report.Markdown.ms;
import static io.streamplane.bench.report.Markdown.num;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Endpoint propagation: a Deployment of N pods behind one headless Service, and for each pod the
 * time from its Ready (a pod watch event showing it Ready with its IP) to its address in one of the
 * Service's EndpointSlices as ready (a slice watch event), and to the cluster DNS answering it for
 * the Service's name (polled over TCP at the {@code kube-dns} Service's cluster IP every {@link
 * #DNS_POLL}). All three on this client's clock.
 */
public final class EndpointsScenario implements Scenario {

  static final Duration DNS_POLL = Duration.ofMillis(200);
  private static final String SERVICE = "backends";

  /**
   * @param target the p99 of Ready → DNS answer to stay under, or null
   */
  public record Options(
      int pods, String image, String namespace, boolean keep, Duration timeout, Duration target) {

    public Options {
      if (pods < 1) {
        throw new IllegalArgumentException("--pods must be at least 1");
      }
    }
  }

  /** The figures of a run, for the JSON file. */
  public record Results(
      int pods,
      int ready,
      int inSlices,
      int answeredByDns,
      String dnsServer,
      LatencySummary readyToSliceMillis,
      LatencySummary readyToDnsMillis,
      LatencySummary sliceToDnsMillis,
      int slices,
      TimeSeries readyOverTime,
      TimeSeries inSlicesOverTime,
      TimeSeries inDnsOverTime) {}

  private final Options options;

  public EndpointsScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "endpoints";
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    int n = options.pods();
    Map<String, Instant> ready = new ConcurrentHashMap<>();
    Map<String, Instant> sliced = new ConcurrentHashMap<>();
    Map<String, Instant> answered = new ConcurrentHashMap<>();
    Map<String, Integer> sliceSizes = new ConcurrentHashMap<>();
    List<String> failures = new ArrayList<>();
    String fate;
    String dnsServer;
    Instant start;
    try (BenchNamespace ns =
        BenchNamespace.open(client, name(), options.namespace(), options.keep())) {
      String base = "/api/v1/namespaces/" + ns.name();
      KubeClient.Response created = client.post(base + "/services", headless(ns));
      if (created.status() != 201) {
        throw new IllegalStateException(
            "creating the Service: " + created.status() + " " + created.message());
      }
      SimpleResolver dns = clusterDns(client);
      dnsServer = dns == null ? "none" : dns.getAddress().getHostString() + ":53";
      String question = SERVICE + "." + ns.name() + ".svc.cluster.local.";
      KubeClient watching = new KubeClient(client.config());
      try (Watch pods =
              Watch.start(
                  watching,
                  base + "/pods",
                  ns.selector(),
                  e -> {
                    String ip = e.object().at("/status/podIP").asText("");
                    if (!ip.isEmpty() && isReady(e.object())) {
                      ready.putIfAbsent(ip, e.received());
                    }
                  });
          Watch slices =
              Watch.start(
                  watching,
                  "/apis/discovery.k8s.io/v1/namespaces/" + ns.name() + "/endpointslices",
                  "kubernetes.io/service-name=" + SERVICE,
                  e -> {
                    int count = 0;
                    for (JsonNode endpoint : e.object().path("endpoints")) {
                      if (endpoint.at("/conditions/ready").asBoolean(true)) {
                        for (JsonNode address : endpoint.path("addresses")) {
                          sliced.putIfAbsent(address.asText(), e.received());
                          count++;
                        }
                      }
                    }
                    sliceSizes.put(e.object().at("/metadata/name").asText(), count);
                  });
          Progress progress =
              Progress.start(
                  () ->
                      new Progress.Status(
                          "endpoints",
                          answered.size(),
                          n,
                          "pods answered by DNS",
                          "Ready " + ready.size() + ", in slices " + sliced.size()))) {
        start = Instant.now();
        KubeClient.Response deployment =
            client.post(
                "/apis/apps/v1/namespaces/" + ns.name() + "/deployments",
                Workloads.deployment(SERVICE, n, ns, options.image(), null));
        if (deployment.status() != 201) {
          throw new IllegalStateException(
              "creating the Deployment: " + deployment.status() + " " + deployment.message());
        }
        Instant deadline = start.plus(options.timeout());
        while (Instant.now().isBefore(deadline) && (answered.size() < n || dns == null)) {
          if (dns != null) {
            poll(dns, question, answered);
          } else if (sliced.size() >= n) {
            break;
          }
          Thread.sleep(DNS_POLL.toMillis());
        }
      }
      if (dns == null) {
        failures.add("the cluster has no kube-dns Service: DNS answers were not measured");
      }
      if (ready.size() < n) {
        failures.add(n - ready.size() + " of " + n + " pods were not Ready in time");
      }
      ns.close();
      fate = ns.fate();
    }
    return outcome(start, ready, sliced, answered, sliceSizes, dnsServer, failures, fate);
  }

  /** One DNS question; every address in the answer not seen before is stamped now. */
  private static void poll(SimpleResolver dns, String question, Map<String, Instant> answered) {
    try {
      Message response =
          dns.send(Message.newQuery(Record.newRecord(Name.fromString(question), Type.A, 1)));
      Instant now = Instant.now();
      if (response.getRcode() == Rcode.NOERROR) {
        for (Record record : response.getSection(Section.ANSWER)) {
          if (record.getType() == Type.A) {
            answered.putIfAbsent(record.rdataToString(), now);
          }
        }
      }
    } catch (java.io.IOException e) {
      // Asked again at the next poll.
    }
  }

  /** A resolver asking the kube-dns Service's cluster IP over TCP, or null without one. */
  private static SimpleResolver clusterDns(KubeClient client) throws Exception {
    KubeClient.Response service = client.get("/api/v1/namespaces/kube-system/services/kube-dns");
    String ip = service.ok() ? service.body().at("/spec/clusterIP").asText("") : "";
    if (ip.isEmpty() || ip.equals("None")) {
      return null;
    }
    SimpleResolver resolver = new SimpleResolver(new InetSocketAddress(ip, 53));
    resolver.setTCP(true); // a thousand A records do not fit a UDP answer
    resolver.setTimeout(Duration.ofSeconds(2));
    return resolver;
  }

  private static ObjectNode headless(BenchNamespace ns) {
    ObjectNode s = KubeClient.JSON.createObjectNode();
    s.put("apiVersion", "v1").put("kind", "Service");
    ObjectNode meta = s.putObject("metadata");
    meta.put("name", SERVICE);
    meta.putObject("labels").put(BenchNamespace.RUN_LABEL, ns.runId());
    ObjectNode spec = s.putObject("spec");
    spec.put("clusterIP", "None");
    spec.putObject("selector").put("app", SERVICE);
    spec.putArray("ports").addObject().put("name", "http").put("port", 80);
    return s;
  }

  private static boolean isReady(JsonNode pod) {
    for (JsonNode condition : pod.at("/status/conditions")) {
      if (condition.path("type").asText().equals("Ready")) {
        return condition.path("status").asText().equals("True");
      }
    }
    return false;
  }

  private Outcome outcome(
      Instant start,
      Map<String, Instant> ready,
      Map<String, Instant> sliced,
      Map<String, Instant> answered,
      Map<String, Integer> sliceSizes,
      String dnsServer,
      List<String> failures,
      String fate) {
    int n = options.pods();
    List<Double> toSlice = new ArrayList<>();
    List<Double> toDns = new ArrayList<>();
    List<Double> sliceToDns = new ArrayList<>();
    ready.forEach(
        (ip, at) -> {
          Instant s = sliced.get(ip);
          Instant d = answered.get(ip);
          if (s != null) {
            toSlice.add(Duration.between(at, s).toNanos() / 1e6);
          }
          if (d != null) {
            toDns.add(Duration.between(at, d).toNanos() / 1e6);
          }
          if (s != null && d != null) {
            sliceToDns.add(Duration.between(s, d).toNanos() / 1e6);
          }
        });
    Results r =
        new Results(
            n,
            ready.size(),
            sliced.size(),
            answered.size(),
            dnsServer,
            LatencySummary.of(toSlice),
            LatencySummary.of(toDns),
            LatencySummary.of(sliceToDns),
            sliceSizes.size(),
            cumulative("Ready", start, ready),
            cumulative("in a slice", start, sliced),
            cumulative("answered by DNS", start, answered));
    List<Target> targets = new ArrayList<>();
    if (options.target() != null) {
      targets.add(
          new Target(
              "p99 pod Ready → DNS answer",
              options.target().toMillis(),
              answered.size() >= n ? r.readyToDnsMillis().p99() : Double.NaN,
              "ms"));
    }
    String summary =
        String.format(
            Locale.ROOT,
            "%,d pods behind one headless Service: %,d Ready, %,d in its %d EndpointSlices, %,d"
                + " answered by the cluster DNS. Ready → slice p50 %s, p99 %s; Ready → DNS"
                + " answer p50 %s, p99 %s, max %s.",
            n,
            r.ready(),
            r.inSlices(),
            r.slices(),
            r.answeredByDns(),
            ms(r.readyToSliceMillis().p50()),
            ms(r.readyToSliceMillis().p99()),
            ms(r.readyToDnsMillis().p50()),
            ms(r.readyToDnsMillis().p99()),
            ms(r.readyToDnsMillis().max()));
    SvgFigure figure =
        new SvgFigure(String.format(Locale.ROOT, "endpoints: %,d pods behind one Service", n))
            .cdf(
                "Propagation after the pod is Ready, cumulative share",
                "ms",
                List.of(
                    new SvgFigure.Values("into an EndpointSlice", values(toSlice)),
                    new SvgFigure.Values("answered by the cluster DNS", values(toDns))))
            .timeSeries(
                "Pods over time (since the Deployment was created)",
                "pods",
                List.of(r.readyOverTime(), r.inSlicesOverTime(), r.inDnsOverTime()));
    return new Outcome(
        "Endpoints: from pod Ready to slice and DNS",
        summary,
        body(r, fate),
        figure,
        targets,
        failures,
        r);
  }

  private static double[] values(List<Double> list) {
    return list.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** How many of {@code stamps} had happened, second by second since {@code start}. */
  private static TimeSeries cumulative(String name, Instant start, Map<String, Instant> stamps) {
    TimeSeries series = new TimeSeries(name);
    List<Long> ms =
        stamps.values().stream().map(t -> Duration.between(start, t).toMillis()).sorted().toList();
    if (ms.isEmpty()) {
      return series;
    }
    long last = ms.get(ms.size() - 1) / 1000 + 1;
    int i = 0;
    for (long second = 0; second <= last; second++) {
      while (i < ms.size() && ms.get(i) < second * 1000) {
        i++;
      }
      series.add(second, i);
    }
    return series;
  }

  private String body(Results r, String fate) {
    StringBuilder md = new StringBuilder("## What was measured\n\n");
    md.append(
            String.format(
                Locale.ROOT,
                "A headless Service `%s` (named port `http`) was created, then a Deployment of"
                    + " %,d pods (image `%s`) it selects. A watch on the pods stamped each pod's"
                    + " first event showing it Ready with its IP; a watch on the Service's"
                    + " EndpointSlices stamped each address's first appearance as ready; and the"
                    + " cluster DNS (`%s`, the kube-dns Service, over TCP) was asked for the"
                    + " Service's name every %d ms, stamping each address the first time it was"
                    + " answered. The lags are differences of those stamps, all on this client's"
                    + " clock; the DNS figure includes up to one poll interval of waiting.%n%n",
                SERVICE,
                r.pods(),
                options.image(),
                r.dnsServer(),
                DNS_POLL.toMillis()))
        .append("## Results\n\n")
        .append(
            Markdown.table(
                List.of("figure", "value"),
                "lr",
                List.of(
                    List.of("pods Ready", num(r.ready(), 0) + " / " + num(r.pods(), 0)),
                    List.of("addresses in EndpointSlices", num(r.inSlices(), 0)),
                    List.of("EndpointSlices", num(r.slices(), 0)),
                    List.of("addresses answered by the cluster DNS", num(r.answeredByDns(), 0)))));
    md.append("\n")
        .append(
            Markdown.latencyTable(
                "latency",
                List.of(
                    Markdown.latencyRow(
                        "pod Ready → ready in an EndpointSlice", r.readyToSliceMillis()),
                    Markdown.latencyRow(
                        "pod Ready → answered by the cluster DNS", r.readyToDnsMillis()),
                    Markdown.latencyRow(
                        "in an EndpointSlice → answered by DNS", r.sliceToDnsMillis()))));
    md.append("\nCleanup: ").append(fate).append(".\n");
    return md.toString();
  }
}
