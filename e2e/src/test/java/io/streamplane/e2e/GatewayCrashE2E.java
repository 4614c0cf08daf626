package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.gateway.pki.ClusterPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two gateways, both listed in the {@code kubernetes} Endpoints, allocate cluster IPs and node
 * ports for Services created on both at once, from a service range of 253 free addresses; one
 * gateway is killed with {@code kill -9} while its creates are in flight, some between the claim
 * and the Service's write. Then every acknowledged Service exists, no address or node port is held
 * twice, and the claims the dead gateway left behind are released by the surviving gateway's repair
 * loop, so that claims and Services agree one for one. The killed gateway leaves the {@code
 * kubernetes} Endpoints once Kafka has dropped it from the gateways' group. Once claims and
 * Services agree, the cluster at rest writes nothing: no repair pass, no default policy, no
 * controller appends a command for two status intervals.
 */
class GatewayCrashE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RANGE = "127.100.0.0/24";

  /** Short enough for the test: the surviving gateway releases an orphaned claim after 5 s. */
  private static final String GRACE = "-Dstreamplane.service-allocation.grace=PT5S";

  @Test
  void aGatewayKilledMidCreateLeaksNoClaimAndNothingIsHeldTwice(@TempDir Path home)
      throws Exception {
    try (LocalCluster cluster =
        new LocalCluster(home, "--service-cidr", RANGE).javaOptions(GRACE).start()) {
      ClusterPki pki = ClusterPki.loadOrCreate(cluster.pkiDir(), Clock.systemUTC(), RANGE);
      int port = Launcher.freePort();
      List<String> flags =
          new ArrayList<>(
              List.of(
                  "gateway",
                  "--bootstrap-server",
                  cluster.kafkaBootstrap(),
                  "--port",
                  Integer.toString(port),
                  "--results-partition",
                  "1",
                  "--history-dir",
                  home.resolve("gateway-2-history").toString(),
                  "--service-cidr",
                  RANGE));
      flags.addAll(pki.gatewayFlags());
      Launcher victim =
          Launcher.startWithJavaOptions("gateway-2", GRACE, flags.toArray(String[]::new));
      victim.awaitLine("Ctrl-C to stop", Duration.ofMinutes(2));
      String survivorPort = cluster.apiUrl().substring(cluster.apiUrl().lastIndexOf(':') + 1);
      await("both gateways in the kubernetes Endpoints")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> kubernetesPorts(cluster).equals(Set.of(survivorPort, "" + port)));

      HttpClient http =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(5))
              .sslContext(pki.admin().sslContext())
              .build();
      String survivorUrl = cluster.apiUrl();
      String victimUrl = "https://127.0.0.1:" + port;
      Set<String> acknowledged = ConcurrentHashMap.newKeySet();
      AtomicInteger victimAcks = new AtomicInteger();
      AtomicBoolean victimDown = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger sequence = new AtomicInteger();
      List<Thread> clients = new ArrayList<>();
      // 12 clients keep creates in flight on the victim, 2 on the survivor.
      for (int c = 0; c < 14; c++) {
        boolean onVictim = c < 12;
        Thread client =
            new Thread(
                () -> {
                  while (!stop.get() && !(onVictim && victimDown.get())) {
                    int n = sequence.incrementAndGet();
                    String name = "s" + n;
                    String type = n % 2 == 0 ? "NodePort" : "ClusterIP";
                    try {
                      int code = create(http, onVictim ? victimUrl : survivorUrl, name, type);
                      if (code == 201) {
                        acknowledged.add(name);
                        if (onVictim) {
                          victimAcks.incrementAndGet();
                        }
                      }
                    } catch (Exception e) {
                      // the victim died under this request: not acknowledged
                    }
                  }
                });
        client.start();
        clients.add(client);
      }
      await("the victim to acknowledge 40 creates")
          .atMost(Duration.ofMinutes(1))
          .until(() -> victimAcks.get() >= 40);
      victimDown.set(true);
      victim.kill();
      Thread.sleep(1500); // the survivor goes on creating
      stop.set(true);
      for (Thread t : clients) {
        t.join();
      }

      // Right after the kill: claims whose Service was never written.
      Thread.sleep(1000);
      Allocation after = allocation(cluster);
      int orphans = after.orphans().size();
      System.out.println(
          "allocation: "
              + acknowledged.size()
              + " creates acknowledged, "
              + after.services.size()
              + " Services, "
              + orphans
              + " orphaned claims right after the kill: "
              + after.orphans());
      assertThat(orphans)
          .as("the kill landed between a claim and its Service's write at least once")
          .isPositive();

      await("the killed gateway to leave the kubernetes Endpoints")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> kubernetesPorts(cluster).equals(Set.of(survivorPort)));
      await("the repair loop to release every orphaned claim")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(2))
          .until(() -> allocation(cluster).orphans().isEmpty());
      Allocation settled = allocation(cluster);
      assertThat(settled.services.keySet()).containsAll(acknowledged);
      Map<String, String> holders = new HashMap<>();
      settled.services.forEach(
          (name, values) ->
              values.forEach(
                  value ->
                      assertThat(holders.put(value, name))
                          .as(value + " held by two Services")
                          .isNull()));
      assertThat(settled.claims)
          .as("one claim for every address and node port a Service holds, and no other")
          .isEqualTo(holders);

      // At rest: nothing appended to the commands over a whole repair pass and defaults round.
      var before = cluster.commandOffsets();
      double since = System.currentTimeMillis() / 1000.0;
      await("a repair pass and a defaults round begun since, and done")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  roundStarted(http, survivorUrl, "service-allocation-repair") >= since
                      && roundStarted(http, survivorUrl, "defaults") >= since);
      assertThat(cluster.commandKeysSince(before)).as("commands appended at rest").isEmpty();
    }
  }

  /** The ports the {@code kubernetes} Endpoints name (one gateway each, all on 127.0.0.1). */
  private static Set<String> kubernetesPorts(LocalCluster cluster) throws Exception {
    Set<String> ports = new HashSet<>();
    for (JsonNode subset :
        JSON.readTree(
                cluster
                    .kubectl
                    .run("get", "endpoints", "kubernetes", "-n", "default", "-o", "json")
                    .expectSuccess()
                    .out())
            .path("subsets")) {
      subset.path("ports").forEach(p -> ports.add(p.path("port").asText()));
    }
    return ports;
  }

  /**
   * When the latest completed round of the gateway's periodic {@code task} started, in epoch
   * seconds, from its {@code /metrics} (0 before any).
   */
  private static double roundStarted(HttpClient http, String url, String task) throws Exception {
    String series = "streamplane_gateway_round_start_timestamp_seconds{task=\"" + task + "\"} ";
    String metrics =
        http.send(
                HttpRequest.newBuilder(URI.create(url + "/metrics"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return metrics
        .lines()
        .filter(line -> line.startsWith(series))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length()).trim()))
        .findFirst()
        .orElse(0);
  }

  /** Creates a Service through {@code url}; returns the HTTP status. */
  private static int create(HttpClient http, String url, String name, String type)
      throws Exception {
    String body =
        JSON.writeValueAsString(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Service",
                "metadata",
                Map.of("name", name),
                "spec",
                Map.of("type", type, "ports", List.of(Map.of("port", 80)))));
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "/api/v1/namespaces/default/services"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }

  /**
   * The Services of {@code default} with the values they hold ({@code ip:<address>} and {@code
   * port:<nodePort>}), and the allocator's claims by value with their holder, read with kubectl.
   */
  private record Allocation(Map<String, Set<String>> services, Map<String, String> claims) {
    /** Claims whose holder is not a Service holding the value. */
    Set<String> orphans() {
      Set<String> orphans = new HashSet<>();
      claims.forEach(
          (value, holder) -> {
            Set<String> held = services.get(holder);
            if (held == null || !held.contains(value)) {
              orphans.add(value + "=" + holder);
            }
          });
      return orphans;
    }
  }

  private static Allocation allocation(LocalCluster cluster) throws Exception {
    Map<String, Set<String>> services = new HashMap<>();
    for (JsonNode svc : items(cluster, "services", "-n", "default")) {
      Set<String> values = new HashSet<>();
      values.add("ip:" + svc.at("/spec/clusterIP").asText());
      for (JsonNode port : svc.at("/spec/ports")) {
        if (port.path("nodePort").asInt(0) > 0) {
          values.add("port:" + port.path("nodePort").asInt());
        }
      }
      services.put(svc.at("/metadata/name").asText(), values);
    }
    Map<String, String> claims = new HashMap<>();
    for (JsonNode address : items(cluster, "ipaddresses")) {
      if (address.at("/spec/parentRef/namespace").asText().equals("default")) {
        claims.put(
            "ip:" + address.at("/metadata/name").asText(),
            address.at("/spec/parentRef/name").asText());
      }
    }
    for (JsonNode lease :
        items(cluster, "leases", "-n", "kube-system", "-l", "streamplane.io/managed-by")) {
      String[] holder = lease.at("/spec/holderIdentity").asText().split("/", 2);
      if (holder[0].equals("default")) {
        claims.put(
            "port:" + lease.at("/metadata/name").asText().substring("nodeport-".length()),
            holder[1]);
      }
    }
    return new Allocation(services, claims);
  }

  private static JsonNode items(LocalCluster cluster, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("get"));
    command.addAll(List.of(args));
    command.addAll(List.of("-o", "json"));
    return JSON.readTree(cluster.kubectl.run(command.toArray(String[]::new)).expectSuccess().out())
        .path("items");
  }
}
