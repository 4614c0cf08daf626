package io.streamplane.gateway.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;

/**
 * The gateway's metrics: kube-apiserver's request metrics, under its names and labels ({@link
 * RequestLabels}), and two of Streamplane's own for the parts of a request that etcd does not have.
 *
 * <ul>
 *   <li>{@code apiserver_request_total{verb, dry_run, group, version, resource, subresource, scope,
 *       component, code}}: every request, counted when answered (a watch when it ends).
 *   <li>{@code apiserver_request_duration_seconds{verb, dry_run, group, version, resource,
 *       subresource, scope, component}}: every request's duration, watches included, as
 *       kube-apiserver records it; dashboards leave out {@code verb="WATCH"} (and CONNECT).
 *   <li>{@code apiserver_request_sli_duration_seconds{verb, group, version, resource, subresource,
 *       scope, component}}: the same without watches, as kube-apiserver's SLI histogram.
 *   <li>{@code apiserver_current_inflight_requests{request_kind}}: requests being served now,
 *       {@code readOnly} or {@code mutating}, long-running ones excluded (kube-apiserver reports
 *       the largest count of the last second; this is the count at the scrape).
 *   <li>{@code apiserver_longrunning_requests{verb, group, version, resource, subresource, scope,
 *       component}}: open watches and log streams.
 *   <li>{@code streamplane_gateway_command_duration_seconds{verb}}: from producing a command to
 *       {@code commands} to reading its result — the store's validation and transaction included.
 *   <li>{@code streamplane_gateway_cache_wait_duration_seconds}: how long a read waited for the
 *       watch cache to catch up with the end of {@code events} (read-your-writes).
 *   <li>{@code streamplane_gateway_round_start_timestamp_seconds{task}}: when the latest completed
 *       round of a periodic task (the service allocation repair, the defaults) started, so a
 *       watcher knows a whole round has run since a moment of its own.
 * </ul>
 *
 * <p>Contract: one set of series per JVM, whatever the number of gateways in it.
 */
public final class GatewayMetrics {

  /** kube-apiserver's buckets for request durations. */
  private static final double[] REQUEST_BUCKETS = {
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30,
    45, 60
  };

  /** kube-apiserver's buckets for its SLI histogram. */
  private static final double[] SLI_BUCKETS = {
    0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60
  };

  /** kube-apiserver's buckets for waiting on its watch cache to be fresh. */
  private static final double[] CACHE_WAIT_BUCKETS = {
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3
  };

  private static final Counter REQUESTS =
      Counter.builder()
          .name("apiserver_request_total")
          .help(
              "Counter of apiserver requests broken out for each verb, dry run value, group,"
                  + " version, resource, scope, component, and HTTP response code.")
          .labelNames(
              "verb",
              "dry_run",
              "group",
              "version",
              "resource",
              "subresource",
              "scope",
              "component",
              "code")
          .register();

  private static final Histogram DURATION =
      Histogram.builder()
          .name("apiserver_request_duration_seconds")
          .help(
              "Response latency distribution in seconds for each verb, dry run value, group,"
                  + " version, resource, subresource, scope and component.")
          .labelNames(
              "verb",
              "dry_run",
              "group",
              "version",
              "resource",
              "subresource",
              "scope",
              "component")
          .classicOnly()
          .classicUpperBounds(REQUEST_BUCKETS)
          .register();

  private static final Histogram SLI_DURATION =
      Histogram.builder()
          .name("apiserver_request_sli_duration_seconds")
          .help(
              "Response latency distribution in seconds for each verb, group, version, resource,"
                  + " subresource, scope and component, watches excluded.")
          .labelNames("verb", "group", "version", "resource", "subresource", "scope", "component")
          .classicOnly()
          .classicUpperBounds(SLI_BUCKETS)
          .register();

  private static final Gauge INFLIGHT =
      Gauge.builder()
          .name("apiserver_current_inflight_requests")
          .help(
              "Number of requests this apiserver is serving now, per request kind, long-running"
                  + " ones excluded.")
          .labelNames("request_kind")
          .register();

  private static final Gauge LONGRUNNING =
      Gauge.builder()
          .name("apiserver_longrunning_requests")
          .help(
              "Gauge of all active long-running apiserver requests broken out by verb, group,"
                  + " version, resource, scope and component.")
          .labelNames("verb", "group", "version", "resource", "subresource", "scope", "component")
          .register();

  private static final Histogram COMMAND_DURATION =
      Histogram.builder()
          .name("streamplane_gateway_command_duration_seconds")
          .help(
              "Time from producing a command to the commands topic to reading its result, per"
                  + " command verb.")
          .labelNames("verb")
          .classicOnly()
          .classicUpperBounds(REQUEST_BUCKETS)
          .register();

  private static final Histogram CACHE_WAIT =
      Histogram.builder()
          .name("streamplane_gateway_cache_wait_duration_seconds")
          .help(
              "Time a read waited for the watch cache to apply everything written to events before"
                  + " it (read-your-writes).")
          .classicOnly()
          .classicUpperBounds(CACHE_WAIT_BUCKETS)
          .register();

  static {
    INFLIGHT.initLabelValues("readOnly");
    INFLIGHT.initLabelValues("mutating");
  }

  private static final Gauge ROUND_STARTED =
      Gauge.builder()
          .name("streamplane_gateway_round_start_timestamp_seconds")
          .help(
              "When the latest completed round of a gateway's periodic task started, per task:"
                  + " service-allocation-repair, defaults.")
          .labelNames("task")
          .register();

  private GatewayMetrics() {}

  /**
   * A round of {@code task} that started at {@code startedAtMillis} is done. With several gateways
   * in one JVM the latest start is kept, so a round that ends after a later one began is no news.
   */
  public static synchronized void roundCompleted(String task, long startedAtMillis) {
    var round = ROUND_STARTED.labelValues(task);
    round.set(Math.max(round.get(), startedAtMillis / 1000.0));
  }

  /** A request starts being served: it counts as in flight, or as long-running, until answered. */
  public static Request started(RequestLabels labels) {
    if (labels.longRunning()) {
      LONGRUNNING
          .labelValues(
              labels.verb(),
              labels.group(),
              labels.version(),
              labels.resource(),
              labels.subresource(),
              labels.scope(),
              RequestLabels.COMPONENT)
          .inc();
    } else {
      INFLIGHT.labelValues(kind(labels)).inc();
    }
    return new Request(labels, System.nanoTime());
  }

  /** One command's round trip through the store took {@code seconds}. */
  public static void commandAnswered(String verb, double seconds) {
    COMMAND_DURATION.labelValues(verb).observe(seconds);
  }

  /** A read waited {@code seconds} for the watch cache. */
  public static void cacheWaited(double seconds) {
    CACHE_WAIT.observe(seconds);
  }

  private static String kind(RequestLabels labels) {
    return labels.readOnly() ? "readOnly" : "mutating";
  }

  /** One request being served; {@link #answered} records it. */
  public static final class Request {
    private final RequestLabels labels;
    private final long startedAt;

    private Request(RequestLabels labels, long startedAt) {
      this.labels = labels;
      this.startedAt = startedAt;
    }

    /**
     * The request was answered with {@code code} (0 when no answer could be sent, the client having
     * gone).
     */
    public void answered(int code) {
      double seconds = (System.nanoTime() - startedAt) / 1e9;
      if (labels.longRunning()) {
        LONGRUNNING
            .labelValues(
                labels.verb(),
                labels.group(),
                labels.version(),
                labels.resource(),
                labels.subresource(),
                labels.scope(),
                RequestLabels.COMPONENT)
            .dec();
      } else {
        INFLIGHT.labelValues(kind(labels)).dec();
      }
      RequestLabels l = labels.answered(code);
      REQUESTS
          .labelValues(
              l.verb(),
              l.dryRun(),
              l.group(),
              l.version(),
              l.resource(),
              l.subresource(),
              l.scope(),
              RequestLabels.COMPONENT,
              Integer.toString(code))
          .inc();
      DURATION
          .labelValues(
              l.verb(),
              l.dryRun(),
              l.group(),
              l.version(),
              l.resource(),
              l.subresource(),
              l.scope(),
              RequestLabels.COMPONENT)
          .observe(seconds);
      if (!l.verb().equals("WATCH")) {
        SLI_DURATION
            .labelValues(
                l.verb(),
                l.group(),
                l.version(),
                l.resource(),
                l.subresource(),
                l.scope(),
                RequestLabels.COMPONENT)
            .observe(seconds);
      }
    }
  }
}
