package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.metrics.ScrapedMetrics;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway's HTTP handler measures what it answers and serves {@code /metrics}: requests that
 * are answered before storage is reached (no broker here), read back from the served exposition.
 */
class ApiHandlerMetricsTest {

  private static final String[] DELETE_DEFAULT_NAMESPACE = {
    "verb", "DELETE",
    "dry_run", "",
    "group", "",
    "version", "v1",
    "resource", "namespaces",
    "subresource", "",
    "scope", "resource",
    "component", "apiserver"
  };

  private BrokerlessHandler handler;

  @BeforeEach
  void start() throws Exception {
    handler = new BrokerlessHandler();
  }

  @AfterEach
  void stop() {
    handler.close();
  }

  @Test
  void anAnsweredRequestIsCountedWithItsLabelsAndCodeAndTimedInTheHistogram() throws Exception {
    ScrapedMetrics before = scrape();

    assertThat(send("DELETE", "/api/v1/namespaces/default").statusCode()).isEqualTo(403);
    ScrapedMetrics after = scrape();

    assertThat(
            after.value("apiserver_request_total", with(DELETE_DEFAULT_NAMESPACE, "code", "403"))
                - before.value(
                    "apiserver_request_total", with(DELETE_DEFAULT_NAMESPACE, "code", "403")))
        .isEqualTo(1);
    assertThat(
            after.value("apiserver_request_duration_seconds_count", DELETE_DEFAULT_NAMESPACE)
                - before.value(
                    "apiserver_request_duration_seconds_count", DELETE_DEFAULT_NAMESPACE))
        .isEqualTo(1);
    assertThat(
            after.has(
                "apiserver_request_duration_seconds_bucket",
                with(DELETE_DEFAULT_NAMESPACE, "le", "60.0")))
        .isTrue();
    assertThat(after.value("apiserver_current_inflight_requests", "request_kind", "mutating"))
        .isZero();
  }

  @Test
  void nonResourcePathsAreLabelledByPathAndUnservedResourcesByNothing() throws Exception {
    ScrapedMetrics before = scrape();

    assertThat(send("GET", "/version").statusCode()).isEqualTo(200);
    assertThat(send("GET", "/apis/example.com/v1/namespaces/default/widgets").statusCode())
        .isEqualTo(404);
    ScrapedMetrics after = scrape();

    String[] version = {"verb", "GET", "subresource", "/version", "scope", "", "code", "200"};
    String[] widgets = {
      "verb", "LIST", "group", "", "resource", "", "scope", "namespace", "code", "404"
    };
    assertThat(
            after.value("apiserver_request_total", version)
                - before.value("apiserver_request_total", version))
        .isEqualTo(1);
    assertThat(
            after.value("apiserver_request_total", widgets)
                - before.value("apiserver_request_total", widgets))
        .isEqualTo(1);
    assertThat(after.text()).doesNotContain("widgets").doesNotContain("example.com");
  }

  @Test
  void metricsAreServedOnTheApiPortInThePrometheusTextFormatWithTheJvmsOwn() throws Exception {
    io.streamplane.metrics.ProcessMetrics.register();

    HttpResponse<String> response = send("GET", "/metrics");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
    ScrapedMetrics scraped = ScrapedMetrics.parse(response.body());
    assertThat(scraped.has("apiserver_current_inflight_requests", "request_kind", "readOnly"))
        .isTrue();
    assertThat(scraped.has("jvm_threads_current")).isTrue();
  }

  private ScrapedMetrics scrape() throws Exception {
    return ScrapedMetrics.parse(send("GET", "/metrics").body());
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    return handler.send(method, path);
  }

  private static String[] with(String[] labels, String name, String value) {
    String[] more = java.util.Arrays.copyOf(labels, labels.length + 2);
    more[labels.length] = name;
    more[labels.length + 1] = value;
    return more;
  }
}
