package io.streamplane.bench.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.load.Kubeconfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MetricsEndpointTest {

  private HttpServer server;
  private volatile String metrics;

  @BeforeEach
  void startServer() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body = metrics == null ? new byte[0] : metrics.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
          exchange.sendResponseHeaders(
              metrics == null ? 404 : 200, body.length == 0 ? -1 : body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  @Test
  void aServerWithMetricsGivesAScrape() {
    metrics = "# TYPE apiserver_request_total counter\napiserver_request_total{verb=\"GET\"} 3\n";

    MetricsEndpoint.Result result = MetricsEndpoint.scrape(client());

    assertThat(result.unavailable()).isNull();
    assertThat(result.scrape().sum("apiserver_request_total")).isEqualTo(3);
  }

  @Test
  void aServerWithoutMetricsGivesTheReason() {
    metrics = null;

    MetricsEndpoint.Result result = MetricsEndpoint.scrape(client());

    assertThat(result.scrape()).isNull();
    assertThat(result.unavailable()).isEqualTo("GET /metrics answered 404");
  }

  private KubeClient client() {
    String yaml =
        """
        clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
        contexts: [{name: c, context: {cluster: c}}]
        current-context: c
        """
            .formatted(server.getAddress().getPort());
    return new KubeClient(Kubeconfig.parse(yaml, null, null, Path.of("test")));
  }
}
