package io.streamplane.gateway.resourcemetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamplane.gateway.resourcemetrics.MetricsStorage.ContainerUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MetricsStorageTest {

  private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

  /** A node's /metrics/resource with one container web of pod default/web started at T0. */
  private static String text(long atMillis, double nodeSeconds, double webSeconds, long webMemory) {
    return """
        # HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time
        # TYPE container_cpu_usage_seconds_total counter
        container_cpu_usage_seconds_total{container="web",namespace="default",pod="web"} %s %d
        container_memory_working_set_bytes{container="web",namespace="default",pod="web"} %d %d
        container_start_time_seconds{container="web",namespace="default",pod="web"} %s %d
        node_cpu_usage_seconds_total %s %d
        node_memory_working_set_bytes 1.073741824E9 %d
        resource_scrape_error 0
        """
        .formatted(
            webSeconds,
            atMillis,
            webMemory,
            atMillis,
            T0 / 1000.0,
            T0,
            nodeSeconds,
            atMillis,
            atMillis);
  }

  private static NodeScrape scrape(long atMillis, double node, double web, long memory) {
    return NodeScrape.parse(
        "n1", text(atMillis, node, web, memory), Instant.ofEpochMilli(atMillis));
  }

  @Test
  void aNodeHasFiguresFromItsSecondScrapeAsTheRateBetweenTheTwo() {
    MetricsStorage storage = new MetricsStorage();
    storage.store(List.of(scrape(T0 + 10_000, 100, 1, 1 << 20)), Set.of("n1"));
    assertTrue(storage.node("n1").isEmpty());
    storage.store(List.of(scrape(T0 + 25_000, 115, 2.5, 2 << 20)), Set.of("n1"));
    MetricsStorage.Usage node = storage.node("n1").orElseThrow();
    assertEquals(1_000_000_000L, node.nanoCores()); // 15 core-seconds in 15 s
    assertEquals(1L << 30, node.memoryBytes());
    assertEquals(Duration.ofSeconds(15), node.window());
    assertEquals(Instant.ofEpochMilli(T0 + 25_000), node.timestamp());
    MetricsStorage.PodUsage pod = storage.pod("default", "web").orElseThrow();
    assertEquals(List.of(new ContainerUsage("web", 100_000_000L, 2 << 20)), pod.containers());
  }

  @Test
  void aContainerStartedSinceIsMeasuredFromItsStartAtItsFirstScrape() {
    MetricsStorage storage = new MetricsStorage();
    storage.store(List.of(scrape(T0 + 10_000, 100, 2.5, 1 << 20)), Set.of("n1"));
    MetricsStorage.PodUsage pod = storage.pod("default", "web").orElseThrow();
    assertEquals(250_000_000L, pod.nanoCores());
    assertEquals(Duration.ofSeconds(10), pod.window());
  }

  @Test
  void aCounterThatWentDownIsNoRateAndAGoneNodeIsForgotten() {
    MetricsStorage storage = new MetricsStorage();
    storage.store(List.of(scrape(T0 + 10_000, 100, 1, 1)), Set.of("n1"));
    storage.store(List.of(scrape(T0 + 20_000, 90, 2, 1)), Set.of("n1"));
    assertTrue(storage.node("n1").isEmpty());
    // Unreachable but still a Node: its figures stay.
    storage.store(List.of(scrape(T0 + 30_000, 95, 3, 1)), Set.of("n1"));
    storage.store(List.of(), Set.of("n1"));
    assertTrue(storage.node("n1").isPresent());
    storage.store(List.of(), Set.of());
    assertTrue(storage.node("n1").isEmpty());
    assertTrue(storage.pod("default", "web").isEmpty());
  }

  @Test
  void quantitiesAreWrittenInCanonicalForm() {
    assertEquals("250m", ResourceMetricsApi.cpu(250_000_000L));
    assertEquals("2", ResourceMetricsApi.cpu(2_000_000_000L));
    assertEquals("161281367n", ResourceMetricsApi.cpu(161_281_367L));
    assertEquals("1500u", ResourceMetricsApi.cpu(1_500_000L));
    assertEquals("0", ResourceMetricsApi.cpu(0));
    assertEquals("64Mi", ResourceMetricsApi.memory(64L << 20));
    assertEquals("1754180Ki", ResourceMetricsApi.memory(1_754_180L * 1024));
    assertEquals("1000", ResourceMetricsApi.memory(1000));
    assertEquals("15.002s", ResourceMetricsApi.window(Duration.ofMillis(15_002)));
    assertEquals("1m0.5s", ResourceMetricsApi.window(Duration.ofMillis(60_500)));
  }
}
