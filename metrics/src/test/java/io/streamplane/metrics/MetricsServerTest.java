package io.streamplane.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class MetricsServerTest {

  @Test
  void servesTheDefaultRegistryWithJvmAndProcessMetricsInTheTextFormat() throws Exception {
    Workqueue.named("test-served").added();
    ProcessMetrics.register(); // a second registration, as a second role in the JVM would ask

    try (MetricsServer server = MetricsServer.start("127.0.0.1", 0)) {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(server.url())).build(),
                  HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type").orElse(""))
          .startsWith("text/plain; version=0.0.4");
      ScrapedMetrics scraped = ScrapedMetrics.parse(response.body());
      assertThat(scraped.value("workqueue_adds_total", "name", "test-served")).isEqualTo(1);
      assertThat(scraped.has("jvm_memory_used_bytes", "area", "heap")).isTrue();
      assertThat(scraped.has("process_cpu_seconds_total")).isTrue();
    }
  }

  @Test
  void aScraperAskingForOpenMetricsGetsIt() throws Exception {
    try (MetricsServer server = MetricsServer.start("127.0.0.1", 0)) {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(server.url()))
                      .header("Accept", "application/openmetrics-text; version=1.0.0")
                      .build(),
                  HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type").orElse(""))
          .startsWith("application/openmetrics-text");
      assertThat(response.body()).endsWith("# EOF\n");
    }
  }
}
