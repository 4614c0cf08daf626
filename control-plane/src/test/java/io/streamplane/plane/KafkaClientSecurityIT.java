package io.streamplane.plane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.topics.TopicLayout;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plane whose broker only takes authenticated clients: the embedded broker's client listener is
 * SASL_PLAINTEXT with mechanism PLAIN and two users in its JAAS configuration. With the Kafka
 * client settings of user {@code streamplane}, read from a properties file as {@code
 * --kafka-config} reads it, every client of the plane (topics admin, schema catalog, Streams apps,
 * the gateway's producers and consumers) authenticates, and an object written through the gateway's
 * API reads back; with a wrong password the plane does not start, failing with Kafka's
 * authentication error.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaClientSecurityIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int GATEWAY_PORT = 31010;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private EmbeddedKafkaBroker broker;

  @BeforeAll
  void startBrokerWithSaslListener() {
    broker =
        EmbeddedKafkaBroker.temporaryBuilder()
            .brokerProperties(
                Map.of(
                    "listener.security.protocol.map",
                    EmbeddedKafkaBroker.BROKER_LISTENER + ":SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
                    "sasl.enabled.mechanisms",
                    "PLAIN",
                    "sasl.mechanism.inter.broker.protocol",
                    "PLAIN",
                    "listener.name."
                        + EmbeddedKafkaBroker.BROKER_LISTENER.toLowerCase()
                        + ".plain.sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"admin\" password=\"admin-secret\""
                        + " user_admin=\"admin-secret\""
                        + " user_streamplane=\"streamplane-secret\";"))
            .clientProperties(sasl("admin", "admin-secret"))
            .start();
  }

  @AfterEach
  void forgetTheProcessSettings() {
    KafkaClientSettings.use(KafkaClientSettings.NONE);
  }

  @AfterAll
  void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void withTheUsersSettingsThePlaneServesAndAnObjectWrittenThroughTheGatewayReadsBack(
      @TempDir Path dir) throws Exception {
    try (ControlPlane plane = startAs("streamplane", "streamplane-secret", dir)) {
      String namespace = "kcs-" + UUID.randomUUID().toString().substring(0, 8);
      HttpResponse<String> namespaceCreated =
          send("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + namespace + "\"}}");
      assertThat(namespaceCreated.statusCode()).as(namespaceCreated.body()).isEqualTo(201);

      HttpResponse<String> created =
          send(
              "POST",
              "/api/v1/namespaces/" + namespace + "/configmaps",
              "{\"metadata\":{\"name\":\"settings\"},\"data\":{\"user\":\"streamplane\"}}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

      HttpResponse<String> read =
          send("GET", "/api/v1/namespaces/" + namespace + "/configmaps/settings", null);
      assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
      JsonNode configMap = JSON.readTree(read.body());
      assertThat(configMap.path("data").path("user").asText()).isEqualTo("streamplane");
      assertThat(configMap.path("metadata").path("namespace").asText()).isEqualTo(namespace);
    }
  }

  @Test
  void withAWrongPasswordThePlaneFailsWithKafkasAuthenticationError(@TempDir Path dir) {
    assertThatThrownBy(() -> startAs("streamplane", "wrong-password", dir).close())
        .hasRootCauseInstanceOf(SaslAuthenticationException.class)
        .rootCause()
        .hasMessageContaining("Invalid username or password");
  }

  /**
   * A plane whose every Kafka client logs in as {@code user}, the settings given as a {@code
   * --kafka-config} file would give them.
   */
  private ControlPlane startAs(String user, String password, Path dir) throws Exception {
    KafkaClientSettings.use(KafkaClientSettings.load(propertiesFile(dir, sasl(user, password))));
    return ControlPlane.builder()
        .bootstrapServers(broker.bootstrapServers())
        .layout(TopicLayout.singleBroker(uniqueCluster()))
        .stateDir(dir.resolve("state"))
        .gateway("127.0.0.1", GATEWAY_PORT, 0, null)
        .systemNamespaces(ControlPlane.SystemNamespaces.NONE)
        .start();
  }

  private static Map<String, String> sasl(String user, String password) {
    return Map.of(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        "PLAIN",
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + user
            + "\" password=\""
            + password
            + "\";");
  }

  private static Path propertiesFile(Path dir, Map<String, String> settings) throws IOException {
    List<String> lines =
        settings.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue().replace("\\", "\\\\"))
            .toList();
    return Files.write(dir.resolve("kafka.properties"), lines);
  }

  private static String uniqueCluster() {
    return "kcs" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + GATEWAY_PORT + path))
            .timeout(Duration.ofSeconds(30));
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
