package io.streamplane.metrics;

import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import org.eclipse.jetty.http.spi.JettyHttpServer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;

/**
 * {@code /metrics} for a role without an HTTP server of its own (store, controllers, scheduler,
 * nodes): Prometheus' metrics handler serving the JVM's default registry — every metric any role of
 * the process registered, and the JVM's own ({@link ProcessMetrics}) — in the Prometheus text
 * format, or OpenMetrics or protobuf when the scraper asks for them.
 *
 * <p>The server is a Jetty server of its own, made and started here, as the gateway's is: with
 * {@code jetty-http-spi} on the class path (the distribution has it), {@code HttpServer.create}
 * answers a Jetty server that never listens, so Prometheus' own {@code HTTPServer} cannot be used.
 *
 * <p>Limits: plain HTTP, no authentication; bind it to an address only trusted scrapers reach.
 */
public final class MetricsServer implements AutoCloseable {

  private final Server server;
  private final ServerConnector connector;
  private final String host;

  private MetricsServer(Server server, ServerConnector connector, String host) {
    this.server = server;
    this.connector = connector;
    this.host = host;
  }

  /** Serves {@code http://host:port/metrics}; port 0 takes any free port. */
  public static MetricsServer start(String host, int port) throws IOException {
    ProcessMetrics.register();
    Server server = new Server();
    server.setHandler(new ContextHandlerCollection());
    HttpConfiguration configuration = new HttpConfiguration();
    configuration.setSendServerVersion(false);
    ServerConnector connector =
        new ServerConnector(server, new HttpConnectionFactory(configuration));
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    new JettyHttpServer(server, true, configuration)
        .createContext("/metrics", new MetricsHandler(PrometheusRegistry.defaultRegistry));
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException(
          "cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    return new MetricsServer(server, connector, host);
  }

  public int port() {
    return connector.getLocalPort();
  }

  /** Where a scraper finds the metrics. */
  public String url() {
    return "http://" + host + ":" + port() + "/metrics";
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      // Stopping is best effort: the process is ending.
    }
  }
}
