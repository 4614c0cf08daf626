package io.streamplane.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;

/**
 * {@code /metrics} for a role without an HTTP server of its own (store, controllers, scheduler,
 * nodes): Prometheus' HTTP exporter serving the JVM's default registry — every metric any role of
 * the process registered, and the JVM's own ({@link ProcessMetrics}) — in the Prometheus text
 * format, or OpenMetrics or protobuf when the scraper asks for them.
 *
 * <p>Limits: plain HTTP, no authentication; bind it to an address only trusted scrapers reach.
 */
public final class MetricsServer implements AutoCloseable {

  private final HTTPServer server;
  private final String host;

  private MetricsServer(HTTPServer server, String host) {
    this.server = server;
    this.host = host;
  }

  /** Serves {@code http://host:port/metrics}; port 0 takes any free port. */
  public static MetricsServer start(String host, int port) throws IOException {
    ProcessMetrics.register();
    HTTPServer server =
        HTTPServer.builder()
            .hostname(host)
            .port(port)
            .registry(PrometheusRegistry.defaultRegistry)
            .buildAndStart();
    return new MetricsServer(server, host);
  }

  public int port() {
    return server.getPort();
  }

  /** Where a scraper finds the metrics. */
  public String url() {
    return "http://" + host + ":" + port() + "/metrics";
  }

  @Override
  public void close() {
    server.close();
  }
}
