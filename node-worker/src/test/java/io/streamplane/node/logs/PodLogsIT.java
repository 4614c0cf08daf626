package io.streamplane.node.logs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.store.StoreApp;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pods/log} end to end: a Node whose daemonEndpoints name a real {@link NodeLogServer} over
 * CRI log files in a temp dir, a pod bound to it, and its logs read through the gateway — plain,
 * tail, timestamps, previous, follow until the locator says the container stopped — and the
 * gateway's own errors (container choice, unscheduled pod, unreachable node).
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodLogsIT {

  private static final UserInfo SYSTEM =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters"))
          .build();

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<AutoCloseable> running = new ArrayList<>();
  private final AtomicBoolean appRunning = new AtomicBoolean(true);
  private GatewayServer gateway;
  private Path appLog;
  private Path streamLog;
  private String podUid;

  @BeforeAll
  void start(EmbeddedKafkaBroker broker, @TempDir Path state, @TempDir Path runtimeRoot)
      throws Exception {
    String bootstrap = broker.bootstrapServers();
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("logs").replaceAll("[^a-zA-Z0-9_-]", "-"));
    Topics topics;
    try (Admin admin = Admin.create(broker.clientProperties())) {
      ClusterTopics cluster = ClusterTopics.ensure(admin, bootstrap, layout);
      running.add(cluster);
      topics = cluster.topics();
    }
    running.add(StoreApp.start(topics, bootstrap, state.resolve("store")));
    gateway = GatewayServer.start(bootstrap, topics, "127.0.0.1", 0, 0);
    running.add(gateway);
    gateway.ensureSystemNamespaces(SYSTEM);

    JsonNode pod =
        create(
            "/api/v1/namespaces/default/pods",
            """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"logger"},
             "spec":{"nodeName":"logs-node","containers":[
               {"name":"app","image":"busybox"},{"name":"sidecar","image":"busybox"},
               {"name":"stream","image":"busybox"}]}}
            """);
    podUid = pod.at("/metadata/uid").asText();
    Path sandbox = DirectoryLogLocator.sandboxDir(runtimeRoot, "default", "logger", podUid);
    write(DirectoryLogLocator.logFile(sandbox, "app", 0), "2026-03-01T12:00:00Z stdout F crashed");
    appLog = DirectoryLogLocator.logFile(sandbox, "app", 1);
    write(
        appLog,
        "2026-03-01T12:01:00.25Z stdout F one",
        "2026-03-01T12:01:01Z stderr P tw",
        "2026-03-01T12:01:02Z stderr F o",
        "2026-03-01T12:01:03Z stdout F three");
    streamLog = DirectoryLogLocator.logFile(sandbox, "stream", 0);
    write(
        streamLog, "2026-03-01T12:02:00Z stdout F started", "2026-03-01T12:02:01Z stdout F three");
    NodeLogServer logs =
        NodeLogServer.start(
            "127.0.0.1",
            0,
            new DirectoryLogLocator(
                runtimeRoot,
                (ns, name) -> Optional.of(podUid),
                (ns, name, container) -> appRunning.get()),
            Clock.systemUTC());
    running.add(logs);
    registerNode("logs-node", logs.port());
  }

  @AfterAll
  void stop() throws Exception {
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
  }

  @Test
  void readsTheContainersLogThroughTheGatewayWithTailTimestampsAndPrevious() throws Exception {
    String log = "/api/v1/namespaces/default/pods/logger/log?container=app";

    assertThat(text(log)).isEqualTo("one\ntwo\nthree\n");
    assertThat(text(log + "&tailLines=1")).isEqualTo("three\n");
    assertThat(text(log + "&timestamps=true&limitBytes=42"))
        .isEqualTo("2026-03-01T12:01:00.25Z one\n2026-03-01T12:");
    assertThat(text(log + "&sinceTime=2026-03-01T12:01:01Z")).isEqualTo("two\nthree\n");
    assertThat(text(log + "&previous=true")).isEqualTo("crashed\n");
  }

  @Test
  void followStreamsNewLinesUntilTheNodeSaysTheContainerStopped() throws Exception {
    HttpResponse<InputStream> response =
        http.send(
            request(
                "/api/v1/namespaces/default/pods/logger/log?container=stream&follow=true&tailLines=1"),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    try (InputStream body = response.body()) {
      assertThat(readLine(body)).isEqualTo("three");
      append(streamLog, "2026-03-01T12:02:04Z stdout F four");
      assertThat(readLine(body)).isEqualTo("four");
      append(streamLog, "2026-03-01T12:02:05Z stdout F five");
      appRunning.set(false);
      assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("five\n");
    } finally {
      appRunning.set(true);
    }
  }

  @Test
  void errorsAreKubeApiserversStatuses() throws Exception {
    String pod = "/api/v1/namespaces/default/pods/logger/log";
    assertStatus(
        pod,
        400,
        "a container name must be specified for pod logger, choose one of: [app sidecar stream]");
    assertStatus(pod + "?container=db", 400, "container db is not valid for pod logger");
    assertStatus(
        pod + "?container=sidecar",
        400,
        "container \"sidecar\" in pod \"logger\" is waiting to start: ContainerCreating");
    assertStatus(
        pod + "?container=app&tailLines=-1",
        422,
        "PodLogOptions \"logger\" is invalid: tailLines: Invalid value: -1: must be greater than"
            + " or equal to 0");
    assertStatus("/api/v1/namespaces/default/pods/ghost/log", 404, "pods \"ghost\" not found");
  }

  @Test
  void anUnscheduledPodHasNoLogYet() throws Exception {
    create(
        "/api/v1/namespaces/default/pods",
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"unscheduled"},
         "spec":{"containers":[{"name":"app","image":"busybox"}]}}
        """);

    HttpResponse<String> response = get("/api/v1/namespaces/default/pods/unscheduled/log");

    assertThat(response.statusCode()).isEqualTo(204);
    assertThat(response.body()).isEmpty();
  }

  @Test
  void aNodeThatCannotBeReachedIsA500NamingTheUrl() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    registerNode("gone-node", closedPort);
    create(
        "/api/v1/namespaces/default/pods",
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"stranded"},
         "spec":{"nodeName":"gone-node","containers":[{"name":"app","image":"busybox"}]}}
        """);

    HttpResponse<String> response = get("/api/v1/namespaces/default/pods/stranded/log");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(500);
    assertThat(KubeJson.parseJson(response.body()).path("message").asText())
        .isEqualTo(
            "Get \"http://127.0.0.1:"
                + closedPort
                + "/containerLogs/default/stranded/app\": dial tcp 127.0.0.1:"
                + closedPort
                + ": connect: connection refused");
  }

  // ------------------------------------------------------------------ helpers

  private void registerNode(String name, int kubeletPort) throws Exception {
    JsonNode node =
        create(
            "/api/v1/nodes",
            "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + name + "\"}}");
    String status =
        """
        {"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","resourceVersion":"%s"},
         "status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"},
                                {"type":"Hostname","address":"%s"}],
                   "daemonEndpoints":{"kubeletEndpoint":{"Port":%d}}}}
        """
            .formatted(name, node.at("/metadata/resourceVersion").asText(), name, kubeletPort);
    HttpResponse<String> response = send("PUT", "/api/v1/nodes/" + name + "/status", status);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private JsonNode create(String path, String body) throws Exception {
    HttpResponse<String> response = send("POST", path, body);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return KubeJson.parseJson(response.body());
  }

  private String text(String path) throws Exception {
    HttpResponse<String> response = get(path);
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return response.body();
  }

  private void assertStatus(String path, int code, String message) throws Exception {
    HttpResponse<String> response = get(path);
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(code);
    JsonNode status = KubeJson.parseJson(response.body());
    assertThat(status.path("kind").asText()).isEqualTo("Status");
    assertThat(status.path("message").asText()).isEqualTo(message);
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      assertThat(b).as("end of stream before a newline").isNotEqualTo(-1);
      line.append((char) b);
    }
    return line.toString();
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create(gateway.url() + path))
        .timeout(Duration.ofSeconds(40))
        .build();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(request(path), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(gateway.url() + path))
            .timeout(Duration.ofSeconds(40))
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static void write(Path file, String... records) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, String.join("\n", records) + "\n");
  }

  private static void append(Path file, String record) throws IOException {
    Files.writeString(file, record + "\n", StandardOpenOption.APPEND);
  }
}
