package io.streamplane.node.logs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's /containerLogs endpoint over real HTTP, on log files in the runtime's layout. */
class NodeLogServerTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path root;

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private NodeLogServer server;
  private Path sandbox;

  @BeforeEach
  void start() throws IOException {
    sandbox = DirectoryLogLocator.sandboxDir(root, "default", "web", "uid-2");
    write(DirectoryLogLocator.logFile(sandbox, "app", 0), "2026-03-01T12:00:00Z stdout F boot 0");
    write(
        DirectoryLogLocator.logFile(sandbox, "app", 1),
        "2026-03-01T12:01:00.5Z stdout F one",
        "2026-03-01T12:01:01Z stderr F two",
        "2026-03-01T12:01:02Z stdout F three");
    Files.createDirectories(sandbox.resolve("sidecar"));
    // An older attempt of the same pod name, with another uid: not the pod the node runs now.
    write(
        DirectoryLogLocator.logFile(
            DirectoryLogLocator.sandboxDir(root, "default", "web", "uid-1"), "app", 0),
        "2026-03-01T11:00:00Z stdout F stale");
    LogLocator locator =
        new DirectoryLogLocator(
            root,
            (ns, pod) ->
                ns.equals("default") && pod.equals("web") ? Optional.of("uid-2") : Optional.empty(),
            (ns, pod, container) -> running.get());
    server = NodeLogServer.start("127.0.0.1", 0, locator, Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void servesTheCurrentAttemptsLinesAsPlainText() throws Exception {
    HttpResponse<String> response = get("/containerLogs/default/web/app");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain");
    assertThat(response.body()).isEqualTo("one\ntwo\nthree\n");
  }

  @Test
  void appliesTailLinesTimestampsAndLimitBytes() throws Exception {
    assertThat(get("/containerLogs/default/web/app?tailLines=1&timestamps=true").body())
        .isEqualTo("2026-03-01T12:01:02Z three\n");
    assertThat(get("/containerLogs/default/web/app?limitBytes=6").body()).isEqualTo("one\ntw");
    assertThat(get("/containerLogs/default/web/app?sinceTime=2026-03-01T12:01:01Z").body())
        .isEqualTo("two\nthree\n");
  }

  @Test
  void previousServesTheNextLowerAttempt() throws Exception {
    assertThat(get("/containerLogs/default/web/app?previous=true").body()).isEqualTo("boot 0\n");
  }

  @Test
  void withoutAnUidTheMostRecentlyModifiedSandboxOfThePodIsRead() throws Exception {
    Path older = DirectoryLogLocator.sandboxDir(root, "default", "web", "uid-1");
    Files.setLastModifiedTime(older, java.nio.file.attribute.FileTime.fromMillis(1_000));
    Files.setLastModifiedTime(sandbox, java.nio.file.attribute.FileTime.fromMillis(2_000));
    LogLocator byDirectory =
        new DirectoryLogLocator(root, (ns, pod) -> Optional.empty(), (ns, pod, c) -> false);

    Optional<ContainerLogs> logs = byDirectory.locate("default", "web", "app");

    assertThat(logs).isPresent();
    assertThat(logs.get().current()).hasValue(DirectoryLogLocator.logFile(sandbox, "app", 1));
  }

  @Test
  void errorsAreStatusesWithKubeletsCodesAndMessages() throws Exception {
    assertStatus(
        get("/containerLogs/default/web/app?previous=true&tailLines=x"),
        400,
        "Unable to decode query.");
    assertStatus(get("/containerLogs/default/web/app?tailLines=-1"), 422, "Invalid request.");
    assertStatus(get("/containerLogs/default/nope/app"), 404, "pod \"nope\" does not exist");
    assertStatus(
        get("/containerLogs/default/web/sidecar"),
        400,
        "container \"sidecar\" in pod \"web\" is waiting to start: ContainerCreating");
    assertStatus(
        get("/containerLogs/default/web/sidecar?previous=true"),
        400,
        "previous terminated container \"sidecar\" in pod \"web\" not found");
  }

  @Test
  void aLocatorThatKnowsThePodSpecAnswers404ForAContainerThePodLacks() throws Exception {
    try (NodeLogServer specAware =
        NodeLogServer.start(
            "127.0.0.1",
            0,
            (ns, pod, c) -> Optional.of(ContainerLogs.notInPod()),
            Clock.systemUTC())) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:" + specAware.port() + "/containerLogs/default/web/x"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertStatus(response, 404, "container \"x\" not found in pod \"web\"");
    }
  }

  @Test
  void followStreamsNewLinesAndEndsWhenTheContainerStops() throws Exception {
    HttpResponse<InputStream> response =
        http.send(
            request("/containerLogs/default/web/app?follow=true&tailLines=1"),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    try (InputStream body = response.body()) {
      assertThat(readLine(body)).isEqualTo("three");
      append(DirectoryLogLocator.logFile(sandbox, "app", 1), "2026-03-01T12:01:03Z stdout F four");
      assertThat(readLine(body)).isEqualTo("four");
      append(DirectoryLogLocator.logFile(sandbox, "app", 1), "2026-03-01T12:01:04Z stdout F five");
      running.set(false);
      assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("five\n");
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      assertThat(b).as("end of stream before a newline").isNotEqualTo(-1);
      line.append((char) b);
    }
    return line.toString();
  }

  private static void assertStatus(HttpResponse<String> response, int code, String message)
      throws IOException {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(code);
    JsonNode status = JSON.readTree(response.body());
    assertThat(status.path("kind").asText()).isEqualTo("Status");
    assertThat(status.path("code").asInt()).isEqualTo(code);
    assertThat(status.path("message").asText()).isEqualTo(message);
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(30))
        .build();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(request(path), HttpResponse.BodyHandlers.ofString());
  }

  private static void write(Path file, String... records) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, String.join("\n", records) + "\n");
  }

  private static void append(Path file, String record) throws IOException {
    Files.writeString(file, record + "\n", StandardOpenOption.APPEND);
  }
}
