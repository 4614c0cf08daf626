package io.streamplane.cli.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ConfigMap;
import io.streamplane.cli.Streamplane;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.plane.ControlPlane;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code streamplane replay} over the log of a real store: the store topology and a gateway on an
 * embedded broker take a workload of creates, updates and deletes in three namespaces through the
 * Kubernetes API; then replay verifies the log against the store's live state, prints and serves
 * the cluster as it was between the workload's two halves, and — last, because it spoils the log
 * for the others — fails verification once an event is forged.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplayIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> NAMESPACES = List.of("red", "green", "blue");

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private String bootstrap;
  private String cluster;
  private Topics topics;
  private ControlPlane plane;
  private GatewayServer gateway;
  private Instant between;

  @BeforeAll
  void runAWorkload(EmbeddedKafkaBroker broker, @TempDir Path stateDir) throws Exception {
    bootstrap = broker.bootstrapServers();
    cluster = KafkaBrokerExtension.uniqueName("replay");
    plane =
        ControlPlane.builder()
            .bootstrapServers(bootstrap)
            .layout(TopicLayout.singleBroker(cluster))
            .stateDir(stateDir)
            .gateway()
            .systemNamespaces(ControlPlane.SystemNamespaces.CREATE)
            .start();
    topics = plane.topics();
    gateway = plane.gateway();

    // First half: three namespaces, each with five config maps at version one and a secret.
    for (String ns : NAMESPACES) {
      expect(201, send("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"" + ns + "\"}}"));
      for (int i = 1; i <= 5; i++) {
        expect(201, send("POST", configMaps(ns), configMap("cm-" + i, "one")));
      }
      expect(
          201,
          send(
              "POST",
              "/api/v1/namespaces/" + ns + "/secrets",
              "{\"metadata\":{\"name\":\"token\"},\"stringData\":{\"k\":\"v\"}}"));
    }
    // A CustomResourceDefinition and two objects of its kind, once the gateway serves it.
    expect(201, send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD));
    await("the custom kind served")
        .atMost(Duration.ofSeconds(30))
        .until(() -> send("POST", crontabs("red"), cronTab("every-five")).statusCode() == 201);
    expect(201, send("POST", crontabs("green"), cronTab("every-five")));
    Thread.sleep(20);
    between = Instant.now();
    Thread.sleep(20);
    // Second half: updates, deletes, a new object, and one namespace going away.
    for (String ns : NAMESPACES) {
      expect(200, patch(configMaps(ns) + "/cm-1", "{\"data\":{\"version\":\"two\"}}"));
      expect(200, patch(configMaps(ns) + "/cm-2", "{\"data\":{\"version\":\"two\"}}"));
      expect(200, patch(configMaps(ns) + "/cm-2", "{\"data\":{\"version\":\"three\"}}"));
      expectSuccess(send("DELETE", configMaps(ns) + "/cm-3", null));
      expect(201, send("POST", configMaps(ns), configMap("cm-6", "one")));
    }
    expect(200, patch(crontabs("red") + "/every-five", "{\"spec\":{\"replicas\":3}}"));
    expectSuccess(send("DELETE", crontabs("green") + "/every-five", null));
    expectSuccess(send("DELETE", "/api/v1/namespaces/blue", null));

    // Storage: a class, a volume bound ahead to a claim, its attachment attached then detached, a
    // published capacity, and a volume deleted while its protection finalizer holds it.
    String storage = "/apis/storage.k8s.io/v1";
    expect(
        201,
        send(
            "POST",
            storage + "/storageclasses",
            "{\"metadata\":{\"name\":\"fast\"},\"provisioner\":\"example.csi\","
                + "\"volumeBindingMode\":\"WaitForFirstConsumer\"}"));
    expect(
        201,
        send(
            "POST",
            "/api/v1/namespaces/red/persistentvolumeclaims",
            "{\"metadata\":{\"name\":\"data\"},\"spec\":{\"storageClassName\":\"fast\","
                + "\"accessModes\":[\"ReadWriteOnce\"],"
                + "\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}"));
    for (String pv : List.of("pv-1", "pv-2")) {
      expect(
          201,
          send(
              "POST",
              "/api/v1/persistentvolumes",
              "{\"metadata\":{\"name\":\""
                  + pv
                  + "\"},\"spec\":{\"storageClassName\":\"fast\","
                  + "\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadWriteOnce\"],"
                  + "\"csi\":{\"driver\":\"example.csi\",\"volumeHandle\":\""
                  + pv
                  + "\"},\"claimRef\":{\"namespace\":\"red\",\"name\":\"data\"}}}"));
    }
    expect(
        201,
        send(
            "POST",
            storage + "/volumeattachments",
            "{\"metadata\":{\"name\":\"csi-1\"},\"spec\":{\"attacher\":\"example.csi\","
                + "\"nodeName\":\"node-0\",\"source\":{\"persistentVolumeName\":\"pv-1\"}}}"));
    expect(
        200,
        patch(
            storage + "/volumeattachments/csi-1/status",
            "{\"status\":{\"attached\":true,\"attachmentMetadata\":{\"at\":\"node-0\"}}}"));
    expect(
        201,
        send(
            "POST",
            storage + "/namespaces/red/csistoragecapacities",
            "{\"metadata\":{\"name\":\"csisc-1\"},\"storageClassName\":\"fast\","
                + "\"capacity\":\"9Gi\",\"nodeTopology\":{\"matchLabels\":{\"n\":\"0\"}}}"));
    expectSuccess(send("DELETE", storage + "/volumeattachments/csi-1", null));
    expectSuccess(send("DELETE", "/api/v1/persistentvolumes/pv-2", null));
  }

  @AfterAll
  void stopCluster() {
    if (plane != null) {
      plane.close();
    }
  }

  @Test
  @Order(1)
  void verifyRebuildsTheStoresLiveStateFromEventsAndFromCommands() {
    Run run = replay("--verify");

    assertThat(run.exit).as(run.out + run.err).isZero();
    assertThat(run.out)
        .contains("verified: events and commands both rebuild the live state byte for byte")
        // 15 of the test's own, and the root-CA publisher's kube-root-ca.crt in some namespaces
        .containsPattern("configmaps (1[5-9]|2[0-2]),")
        .contains("namespaces 7")
        .contains("secrets 3")
        .contains("crontabs.stable.example.com 1")
        .contains("customresourcedefinitions.apiextensions.k8s.io 1")
        .contains("persistentvolumes 2")
        .contains("persistentvolumeclaims 1")
        .contains("storageclasses.storage.k8s.io 1")
        .contains("csistoragecapacities.storage.k8s.io 1")
        .containsPattern("replayed [0-9,]+ events \\([0-9.]+ MB\\) in [0-9.]+ s: [0-9,]+ events/s");
  }

  @Test
  @Order(2)
  void untilPrintsTheClusterAsItWasBetweenTheTwoHalves() throws Exception {
    Run table = replay("--until", between.toString());
    Run json = replay("--until", between.toString(), "-o", "json");

    assertThat(table.exit).as(table.err).isZero();
    assertThat(table.out)
        .contains("KIND")
        .contains("RESOURCEVERSION")
        .containsPattern("ConfigMap +red +cm-3 ")
        .containsPattern("CronTab +green +every-five ")
        .doesNotContain("cm-6");
    assertThat(json.exit).as(json.err).isZero();
    JsonNode list = JSON.readTree(json.out);
    List<String> versions = new ArrayList<>();
    for (JsonNode item : list.path("items")) {
      if (item.path("kind").asText().equals("ConfigMap")
          && item.path("metadata").path("name").asText().startsWith("cm-")) {
        versions.add(item.path("data").path("version").asText());
      }
    }
    assertThat(versions).hasSize(15).containsOnly("one");
    assertThat(list.path("metadata").path("resourceVersion").asText()).startsWith("L");
    Run now = replay("--until", Instant.now().toString(), "-o", "json");
    assertThat(now.out).contains("\"three\"").contains("cm-6");
  }

  @Test
  @Order(3)
  void servePastStateAnswersListsAndRefusesWritesWith405(@TempDir Path dir) throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    StringWriter out = new StringWriter();
    Thread server =
        new Thread(
            () ->
                command(out, new StringWriter())
                    .execute(
                        args(
                            "--until",
                            between.toString(),
                            "--serve",
                            "--port",
                            "0",
                            "--kubeconfig",
                            kubeconfig.toString())));
    server.start();
    try {
      await("the replay's kubeconfig")
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.exists(kubeconfig) && Files.size(kubeconfig) > 0);
      Matcher m = Pattern.compile("server: (\\S+)").matcher(Files.readString(kubeconfig));
      assertThat(m.find()).isTrue();
      String url = m.group(1);

      HttpResponse<String> list = send(url, "GET", configMaps("red"), null);
      assertThat(list.statusCode()).isEqualTo(200);
      List<String> names = new ArrayList<>();
      JSON.readTree(list.body())
          .path("items")
          .forEach(i -> names.add(i.path("metadata").path("name").asText()));
      assertThat(names).contains("cm-1", "cm-2", "cm-3", "cm-4", "cm-5").doesNotContain("cm-6");

      HttpResponse<String> write = send(url, "POST", configMaps("red"), configMap("x", "one"));
      assertThat(write.statusCode()).isEqualTo(405);
      JsonNode status = JSON.readTree(write.body());
      assertThat(status.path("kind").asText()).isEqualTo("Status");
      assertThat(status.path("reason").asText()).isEqualTo("MethodNotAllowed");
      assertThat(status.path("message").asText())
          .contains("serves the cluster as it was at " + between)
          .contains("read-only");
      assertThat(send(url, "DELETE", configMaps("red") + "/cm-1", null).statusCode())
          .isEqualTo(405);
    } finally {
      server.interrupt();
      server.join(10_000);
    }
  }

  @Test
  @Order(4)
  void aForgedEventFailsVerificationNamingItsKey() throws Exception {
    String key = "configmaps./green/cm-4";
    JsonNode stored = JSON.readTree(send("GET", configMaps("green") + "/cm-4", null).body());
    ObjectNode forged = stored.deepCopy();
    forged.with("data").put("version", "forged");
    KubeJson kubeJson = new KubeJson();
    ConfigMap object = kubeJson.toAvro(forged, ConfigMap.class).record();
    ResourceEvent event =
        ResourceEvent.newBuilder()
            .setType(EventType.MODIFIED)
            .setResource("configmaps")
            .setGroup("")
            .setNamespace("green")
            .setName("cm-4")
            .setEncodedObject(KindObjects.encode(object))
            .setResourceVersion(
                Long.parseLong(stored.path("metadata").path("resourceVersion").asText()) - 1)
            .setCommandId("forged")
            .setActor(UserInfo.newBuilder().setUsername("mallory").setGroups(List.of()).build())
            .build();
    try (KafkaProducer<String, ResourceEvent> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new StringSerializer(),
            topics.events().valueSerde().serializer())) {
      producer.send(new ProducerRecord<>(topics.events().name(), key, event)).get();
    }

    Run run = replay("--verify");

    assertThat(run.exit).as(run.out + run.err).isEqualTo(1);
    assertThat(run.out)
        .contains("1 differences")
        .contains(key + ": differs between events and the live state")
        .contains("forged")
        .contains("verify FAILED");
  }

  // ---------------------------------------------------------------- helpers

  private record Run(int exit, String out, String err) {}

  @Test
  @Order(5)
  void historyShowsACustomObjectsVersionsWithTheirDiff() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        command(out, err)
            .execute(
                "history",
                "crontabs.stable.example.com/every-five",
                "-n",
                "red",
                "--bootstrap-server",
                bootstrap,
                "--cluster",
                cluster);

    assertThat(exit).as(out + "\n" + err).isZero();
    assertThat(out.toString())
        .contains("=== ADDED")
        .contains("=== MODIFIED")
        .contains("\n-  replicas: 1\n+  replicas: 3\n");
  }

  private Run replay(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = command(out, err).execute(args(args));
    return new Run(exit, out.toString(), err.toString());
  }

  private String[] args(String... args) {
    List<String> all = new ArrayList<>(List.of("replay"));
    all.addAll(List.of(args));
    all.addAll(List.of("--bootstrap-server", bootstrap, "--cluster", cluster));
    return all.toArray(String[]::new);
  }

  private static CommandLine command(StringWriter out, StringWriter err) {
    CommandLine cmd = new CommandLine(new Streamplane());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    return cmd;
  }

  private static String configMaps(String namespace) {
    return "/api/v1/namespaces/" + namespace + "/configmaps";
  }

  private static final String CRD =
      """
      {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "crontabs.stable.example.com"},
       "spec": {"group": "stable.example.com", "scope": "Namespaced",
         "names": {"plural": "crontabs", "kind": "CronTab"},
         "versions": [{"name": "v1", "served": true, "storage": true,
           "subresources": {"status": {}},
           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
             "spec": {"type": "object", "properties": {
               "cronSpec": {"type": "string"},
               "replicas": {"type": "integer", "default": 1}}}}}}}]}}
      """;

  private static String crontabs(String namespace) {
    return "/apis/stable.example.com/v1/namespaces/" + namespace + "/crontabs";
  }

  private static String cronTab(String name) {
    return "{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"CronTab\","
        + "\"metadata\":{\"name\":\""
        + name
        + "\"},\"spec\":{\"cronSpec\":\"*/5 * * * *\"}}";
  }

  private static String configMap(String name, String version) {
    return "{\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"version\":\"" + version + "\"}}";
  }

  private static void expect(int code, HttpResponse<String> response) {
    assertThat(response.statusCode())
        .as("%s %s: %s", response.request().method(), response.uri(), response.body())
        .isEqualTo(code);
  }

  private static void expectSuccess(HttpResponse<String> response) {
    assertThat(response.statusCode())
        .as("%s %s: %s", response.request().method(), response.uri(), response.body())
        .isBetween(200, 299);
  }

  private HttpResponse<String> patch(String path, String body) {
    return send(gateway.url(), "PATCH", path, "application/merge-patch+json", body);
  }

  private HttpResponse<String> send(String method, String path, String body) {
    return send(gateway.url(), method, path, "application/json", body);
  }

  private HttpResponse<String> send(String url, String method, String path, String body) {
    return send(url, method, path, "application/json", body);
  }

  private HttpResponse<String> send(
      String url, String method, String path, String contentType, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(30));
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", contentType)
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
