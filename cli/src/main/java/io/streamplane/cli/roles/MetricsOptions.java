package io.streamplane.cli.roles;

import io.streamplane.metrics.MetricsServer;
import java.io.IOException;
import picocli.CommandLine.Option;

/**
 * Where a role without an HTTP server of its own serves {@code /metrics}: nowhere by default, so
 * that several roles and instances can share a machine without choosing ports (the gateway serves
 * {@code /metrics} on its API port, always, and in {@code up} that covers every role).
 */
public final class MetricsOptions {

  @Option(
      names = "--metrics-port",
      defaultValue = "0",
      description =
          "Port to serve Prometheus metrics on, at /metrics; 0 serves none (default:"
              + " ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--metrics-address",
      defaultValue = "127.0.0.1",
      description = "Listen address of --metrics-port (default: ${DEFAULT-VALUE}).")
  String address;

  /** Starts the metrics server if a port was given; closing the result stops it. */
  AutoCloseable start(String role) throws IOException {
    if (port == 0) {
      return () -> {};
    }
    MetricsServer server = MetricsServer.start(address, port);
    System.out.println(role + ": metrics at " + server.url());
    return server;
  }
}
