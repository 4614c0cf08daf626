package io.streamplane.bench.metrics;

import io.streamplane.bench.load.KubeClient;

/**
 * Scrapes {@code GET <server>/metrics}, tolerantly: a server that does not serve it (404), refuses
 * it (401/403) or fails gives a reason instead of a scrape, and the run goes on.
 */
public final class MetricsEndpoint {

  /** A scrape, or the reason there is none. */
  public record Result(Scrape scrape, String unavailable) {}

  private MetricsEndpoint() {}

  public static Result scrape(KubeClient client) {
    try {
      KubeClient.Response response = client.getText("/metrics");
      if (response.status() != 200) {
        return new Result(null, "GET /metrics answered " + response.status());
      }
      Scrape scrape = PrometheusText.parse(response.text());
      if (scrape.samples().isEmpty()) {
        return new Result(null, "GET /metrics answered no samples");
      }
      return new Result(scrape, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(null, "interrupted");
    } catch (Exception e) {
      return new Result(null, "GET /metrics failed: " + e.getMessage());
    }
  }
}
