package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.streamplane.api.Container;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.metrics.ScrapedMetrics;
import io.streamplane.node.probe.Handlers;
import io.streamplane.node.runtime.simulated.SimulatedRuntime;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A simulated node against a gateway stand-in that stores nothing (it answers every write with the
 * object written, and every read with 404), read back from the process's Prometheus exposition.
 */
class NodeMetricsTest {

  private static final String NODE = "metrics-node";

  private HttpServer gateway;
  private ScheduledExecutorService scheduler;
  private GatewayClient api;
  private NodeAgent agent;

  @BeforeEach
  void start() throws IOException {
    gateway = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    gateway.createContext(
        "/",
        exchange -> {
          try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String method = exchange.getRequestMethod();
            int code = method.equals("POST") ? 201 : method.equals("PUT") ? 200 : 404;
            if (code == 404) {
              body = "{\"kind\":\"Status\",\"code\":404}".getBytes();
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(code, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          }
        });
    gateway.start();
    scheduler = Executors.newScheduledThreadPool(2);
    api = new GatewayClient("http://127.0.0.1:" + gateway.getAddress().getPort(), 4);
    agent =
        new NodeAgent(
            NodeOptions.defaults(NODE).withPodCIDR("10.77.0.0/24"),
            api,
            new SimulatedRuntime(
                scheduler, Duration.ofMillis(10), Duration.ofMillis(10), Clock.systemUTC()),
            scheduler,
            Clock.systemUTC(),
            KubeletConfig.defaults(),
            Handlers.alwaysSucceeds());
  }

  @AfterEach
  void stop() {
    agent.close();
    scheduler.shutdownNow();
    api.close();
    gateway.stop(0);
  }

  @Test
  void aNodeReportsItsRunningPodsItsPodStartDurationAndItsStatusWrites() {
    ScrapedMetrics before = ScrapedMetrics.scrape();

    agent.start(Duration.ZERO);
    agent.onBinding("pods./default/web", pod("web"));

    await("the pod running on " + NODE)
        .atMost(Duration.ofSeconds(20))
        .until(() -> ScrapedMetrics.scrape().value("kubelet_running_pods", "node", NODE) == 1);
    await("the pod's start reported")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                ScrapedMetrics.scrape().value("kubelet_pod_start_duration_seconds_count")
                    > before.value("kubelet_pod_start_duration_seconds_count"));
    ScrapedMetrics after = ScrapedMetrics.scrape();
    assertThat(after.value("kubelet_node_name", "node", NODE)).isEqualTo(1);
    for (String kind : List.of("node", "lease", "pod")) {
      assertThat(
              after.value("streamplane_node_status_writes_total", "kind", kind)
                  - before.value("streamplane_node_status_writes_total", "kind", kind))
          .as(kind + " writes")
          .isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void aClosedNodeIsNoLongerReported() {
    agent.start(Duration.ofHours(1));

    agent.close();

    assertThat(ScrapedMetrics.scrape().has("kubelet_node_name", "node", NODE)).isFalse();
  }

  private static Pod pod(String name) {
    return Pod.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid("uid-" + name)
                .setResourceVersion("1")
                .build())
        .setSpec(
            PodSpec.newBuilder()
                .setNodeName(NODE)
                .setContainers(
                    List.of(Container.newBuilder().setName("c").setImage("nginx").build()))
                .build())
        .build();
  }
}
