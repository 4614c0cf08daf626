package io.streamplane.bench.recovery;

import io.streamplane.bench.chaos.ChaosApi;
import io.streamplane.bench.chaos.ProcessCluster;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.metrics.MetricsEndpoint;
import io.streamplane.bench.metrics.PrometheusText;
import io.streamplane.bench.metrics.Scrape;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The multi-process cluster of the chaos harness ({@link ProcessCluster}: Kafka brokers, and each
 * role instance its own process with its own {@code /metrics}), one victim at a time. When the
 * restarted victim is ready:
 *
 * <ul>
 *   <li>a gateway: its {@code /readyz} answers 200;
 *   <li>a broker: it listens again (the port can only be the new process's), and it is back in the
 *       in-sync replicas of every partition it holds;
 *   <li>another role: its {@code /metrics} answers, with a consumer lag for each Kafka application
 *       it reported one for before the kill — its tasks are assigned and fetching again.
 * </ul>
 */
final class RoleCluster implements RecoveryCluster {

  private final ProcessCluster cluster;
  private final Map<String, KubeClient> gateways = new LinkedHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Map<String, List<String>> appsBeforeKill = new ConcurrentHashMap<>();
  private final Map<String, Long> logOffsets = new ConcurrentHashMap<>();
  private final Admin kafka;

  private RoleCluster(ProcessCluster cluster) {
    this.cluster = cluster;
    List<String> servers = cluster.apiServers();
    for (int i = 0; i < servers.size(); i++) {
      gateways.put("gateway-" + i, ChaosApi.client(servers.get(i), cluster.identity()));
    }
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
    this.kafka = Admin.create(props);
  }

  static RoleCluster start(ProcessCluster.Layout layout, PrintStream out) throws Exception {
    return new RoleCluster(ProcessCluster.start(layout, out));
  }

  /** The instance a scenario kills: the first of its role, or the second broker; none: null. */
  static String victim(String scenario) {
    return switch (scenario) {
      case "none" -> null;
      case "broker" -> "kafka-1";
      case "gateway", "store", "controllers", "scheduler", "nodes" -> scenario + "-0";
      default -> throw new IllegalArgumentException("not a role of the cluster: " + scenario);
    };
  }

  @Override
  public String description() {
    List<String> names = cluster.instances().stream().map(i -> i.name()).toList();
    return "the multi-process cluster (every process separate: "
        + String.join(", ", names)
        + "; topics replicated 3 ways, `min.insync.replicas=2`)";
  }

  @Override
  public KubeClient admin() {
    return gateways.values().iterator().next();
  }

  @Override
  public String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  @Override
  public int partitions() {
    return cluster.partitions();
  }

  @Override
  public Map<String, Scrape> scrape() {
    return cluster.scrape();
  }

  private Scrape scrapePlain(String url) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3)).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? PrometheusText.parse(r.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private Scrape scrapeOne(String name) {
    if (gateways.containsKey(name)) {
      return MetricsEndpoint.scrape(gateways.get(name)).scrape();
    }
    String url = cluster.metricsUrls().get(name);
    return url == null ? null : scrapePlain(url);
  }

  @Override
  public void kill(String victim) throws IOException {
    Scrape before = scrapeOne(victim);
    appsBeforeKill.put(victim, before == null ? List.of() : LagTimeline.applications(before));
    Path log = cluster.directory(victim).resolve("log");
    logOffsets.put(victim, Files.isRegularFile(log) ? Files.size(log) : 0L);
    cluster.kill(victim);
  }

  @Override
  public void restart(String victim) throws IOException {
    cluster.restart(victim);
  }

  /** Starts the victim again if a failed run left it dead, so that the next run finds it. */
  void ensureRunning(String victim) throws IOException {
    if (!cluster.alive(victim)) {
      cluster.restart(victim);
    }
  }

  @Override
  public boolean ready(String victim) {
    if (victim.startsWith("kafka-")) {
      return inSync(Integer.parseInt(victim.substring("kafka-".length())));
    }
    if (gateways.containsKey(victim)) {
      try {
        return gateways.get(victim).get("/readyz").status() == 200;
      } catch (IOException e) {
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    Scrape now = scrapeOne(victim);
    return now != null
        && Set.copyOf(LagTimeline.applications(now))
            .containsAll(appsBeforeKill.getOrDefault(victim, List.of()));
  }

  /**
   * Whether broker {@code id} listens, and is in the in-sync replicas of every partition it is a
   * replica of.
   */
  private boolean inSync(int id) {
    String[] address = cluster.bootstrapServers().split(",")[id].split(":");
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address[0], Integer.parseInt(address[1])), 1_000);
    } catch (IOException e) {
      return false;
    }
    try {
      Set<String> topics = kafka.listTopics().names().get(5, TimeUnit.SECONDS);
      Map<String, TopicDescription> described =
          kafka.describeTopics(topics).allTopicNames().get(5, TimeUnit.SECONDS);
      for (TopicDescription d : described.values()) {
        for (TopicPartitionInfo p : d.partitions()) {
          boolean replica = p.replicas().stream().anyMatch(n -> n.id() == id);
          boolean isr = p.isr().stream().anyMatch(n -> n.id() == id);
          if (replica && !isr) {
            return false;
          }
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      return false;
    }
  }

  @Override
  public LogStart log(String victim) {
    return new LogStart(
        cluster.directory(victim).resolve("log"), logOffsets.getOrDefault(victim, 0L));
  }

  @Override
  public void close() {
    kafka.close(Duration.ofSeconds(5));
    cluster.close();
  }
}
