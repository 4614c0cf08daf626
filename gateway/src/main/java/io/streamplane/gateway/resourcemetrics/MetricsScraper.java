package io.streamplane.gateway.resourcemetrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.cache.StoredObjects;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * metrics-server's scrape loop, in the gateway: every {@code resolution} (15 s by default, as
 * metrics-server's {@code --metric-resolution}; the JVM property {@value #RESOLUTION_PROPERTY} sets
 * it, {@code PT5S}), asks each Node of the gateway's cache for its {@code /metrics/resource}, all
 * at once, each for at most the resolution, and stores the round in {@link MetricsStorage}. A node
 * that does not answer keeps its last figures until it is gone from the cache. Nothing is written
 * to the log.
 */
public final class MetricsScraper implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MetricsScraper.class);

  /** The JVM property that sets the scrape interval, in seconds. */
  public static final String RESOLUTION_PROPERTY = "streamplane.metric-resolution";

  /** The header naming the node a node server answers for (one server may serve a fleet). */
  static final String NODE_HEADER = "X-Streamplane-Node";

  private final StoredObjects cache;
  private final MetricsStorage storage;
  private final HttpClient http;
  private final Function<JsonNode, String> hostPort;
  private final Duration resolution;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "resource-metrics-scraper");
            t.setDaemon(true);
            return t;
          });

  public MetricsScraper(
      StoredObjects cache,
      MetricsStorage storage,
      HttpClient http,
      Function<JsonNode, String> hostPort,
      Duration resolution,
      Clock clock) {
    this.cache = cache;
    this.storage = storage;
    this.http = http;
    this.hostPort = hostPort;
    this.resolution = resolution;
    this.clock = clock;
  }

  /** The resolution the JVM property sets (an ISO-8601 duration, {@code PT5S}), else 15 s. */
  public static Duration configuredResolution() {
    String value = System.getProperty(RESOLUTION_PROPERTY);
    try {
      return value == null ? Duration.ofSeconds(15) : Duration.parse(value);
    } catch (java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException(
          RESOLUTION_PROPERTY + ": " + value + " is not an ISO-8601 duration such as PT15S", e);
    }
  }

  /** Starts scraping, the first round at once. */
  public MetricsScraper start() {
    timer.scheduleWithFixedDelay(
        this::scrapeSafely, 0, resolution.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  private void scrapeSafely() {
    try {
      scrape();
    } catch (RuntimeException e) {
      LOG.warn("resource metrics scrape failed: {}", e.toString());
    }
  }

  /** One round. */
  void scrape() {
    List<ObjectNode> nodes = cache.list("", "nodes", null, n -> true).items();
    Set<String> alive = new HashSet<>();
    List<CompletableFuture<NodeScrape>> rounds = new ArrayList<>();
    for (ObjectNode node : nodes) {
      String name = node.path("metadata").path("name").asText();
      alive.add(name);
      String target;
      try {
        target = "http://" + hostPort.apply(node) + "/metrics/resource";
      } catch (RuntimeException e) {
        continue; // no address yet
      }
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(target))
              .timeout(resolution)
              .header(NODE_HEADER, name)
              .GET()
              .build();
      rounds.add(
          http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
              .thenApply(
                  response -> {
                    if (response.statusCode() != 200) {
                      throw new IllegalStateException(
                          "node " + name + " answered " + response.statusCode());
                    }
                    return NodeScrape.parse(name, response.body(), clock.instant());
                  })
              .exceptionally(
                  e -> {
                    LOG.debug("cannot scrape node {}: {}", name, e.toString());
                    return null;
                  }));
    }
    List<NodeScrape> scraped = new ArrayList<>();
    for (CompletableFuture<NodeScrape> round : rounds) {
      NodeScrape s = round.join();
      if (s != null) {
        scraped.add(s);
      }
    }
    storage.store(scraped, alive);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
