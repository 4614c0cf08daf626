package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.testing.ApiRequests;
import io.streamplane.gateway.testing.TestPlane;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.UserInfo;
import io.streamplane.metrics.ScrapedMetrics;
import io.streamplane.plane.ControlPlane;
import io.streamplane.store.StoreApp;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway as kubectl meets it: real HTTP requests against a {@link GatewayServer} backed by the
 * real store ({@link StoreApp}) on an embedded broker — writes answered with the stored object or
 * the right Status, reads that see every acknowledged write on any gateway, watches that resume
 * from a list's resourceVersion on another gateway, patches, dry runs and selectors.
 *
 * <p>One broker, one cluster (topics, store, gateway) for the class, because the store takes
 * seconds to start; each test works in a namespace of its own, and tests that need more gateways
 * start them on the same cluster with reply partitions of their own.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final UserInfo SYSTEM = TestPlane.SYSTEM;

  private final Map<GatewayServer, ApiRequests> apis = new ConcurrentHashMap<>();

  private String bootstrap;
  private Topics topics;
  private ControlPlane plane;
  private GatewayServer gateway;
  private String namespace;

  @BeforeAll
  void startCluster(EmbeddedKafkaBroker broker, @TempDir Path stateDir) throws Exception {
    bootstrap = broker.bootstrapServers();
    plane =
        ControlPlane.builder()
            .bootstrapServers(bootstrap)
            .layout(
                TopicLayout.singleBroker(
                    KafkaBrokerExtension.uniqueName("gw").replaceAll("[^a-zA-Z0-9_-]", "_")))
            .stateDir(stateDir)
            .gateway()
            .systemNamespaces(ControlPlane.SystemNamespaces.CREATE)
            .start();
    topics = plane.topics();
    gateway = plane.gateway();
  }

  @AfterAll
  void stopCluster() {
    if (plane != null) {
      plane.close();
    }
  }

  @BeforeEach
  void createNamespace() {
    namespace = api(gateway).createNamespace();
  }

  // ---------------------------------------------------------------- create, get, conflicts

  @Test
  void createdPodIsAnsweredWithItsStoredFormAndReadBackUnchanged() {
    HttpResponse<String> created = post(gateway, pods(), pod("web"));

    assertThat(created.statusCode()).isEqualTo(201);
    JsonNode metadata = json(created).path("metadata");
    assertThat(metadata.path("uid").asText()).isNotBlank();
    assertThat(metadata.path("resourceVersion").asText()).matches("[0-9]+");
    assertThat(metadata.path("creationTimestamp").asText())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    assertThat(metadata.path("namespace").asText()).isEqualTo(namespace);
    HttpResponse<String> read = get(gateway, pods() + "/web");
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(json(read)).isEqualTo(json(created));
  }

  @Test
  void execIsCheckedAsKubeApiserverChecksItBeforeAnyUpgrade() {
    assertThat(post(gateway, pods(), pod("web")).statusCode()).isEqualTo(201);
    String exec = pods() + "/web/exec?command=true";

    assertStatus(get(gateway, exec), 400, "BadRequest");
    assertThat(json(get(gateway, exec)).path("message").asText())
        .isEqualTo("you must specify at least 1 of stdin, stdout, stderr");
    assertStatus(
        put(gateway, exec + "&stdout=true", JSON.createObjectNode()), 405, "MethodNotAllowed");
    assertThat(
            json(get(gateway, pods() + "/nope/exec?command=true&stdout=true"))
                .path("message")
                .asText())
        .isEqualTo("pods \"nope\" not found");
    assertThat(json(get(gateway, exec + "&stdout=true&container=other")).path("message").asText())
        .isEqualTo("container other is not valid for pod web");
    assertThat(json(get(gateway, exec + "&stdout=true")).path("message").asText())
        .isEqualTo("pod web does not have a host assigned");
    assertThat(json(get(gateway, pods() + "/web/portforward")).path("message").asText())
        .isEqualTo("pod web does not have a host assigned");
  }

  @Test
  void creatingAnExistingPodIs409AlreadyExists() {
    assertThat(post(gateway, pods(), pod("web")).statusCode()).isEqualTo(201);

    HttpResponse<String> again = post(gateway, pods(), pod("web"));

    assertStatus(again, 409, "AlreadyExists");
    assertThat(json(again).path("message").asText()).isEqualTo("pods \"web\" already exists");
  }

  @Test
  void updateWithAStaleResourceVersionIs409Conflict() {
    JsonNode created = json(post(gateway, pods(), pod("web")));
    ObjectNode first = created.deepCopy();
    ((ObjectNode) first.path("metadata")).putObject("labels").put("rev", "1");
    assertThat(put(gateway, pods() + "/web", first).statusCode()).isEqualTo(200);

    ObjectNode stale = created.deepCopy();
    ((ObjectNode) stale.path("metadata")).putObject("labels").put("rev", "2");
    HttpResponse<String> answer = put(gateway, pods() + "/web", stale);

    assertStatus(answer, 409, "Conflict");
    assertThat(
            json(get(gateway, pods() + "/web"))
                .path("metadata")
                .path("labels")
                .path("rev")
                .asText())
        .isEqualTo("1");
  }

  @Test
  void invalidNameIs422NamingMetadataName() {
    HttpResponse<String> answer = post(gateway, pods(), pod("Not_A_Name"));

    assertStatus(answer, 422, "Invalid");
    assertThat(json(answer).path("details").path("causes"))
        .extracting(cause -> cause.path("field").asText())
        .contains("metadata.name");
  }

  @Test
  void createInAnUnknownNamespaceIs404() {
    HttpResponse<String> answer =
        post(gateway, "/api/v1/namespaces/" + namespace + "-missing/pods", pod("web"));

    assertStatus(answer, 404, "NotFound");
  }

  @Test
  void bodyOverThreeMebibytesIs413() {
    String padding = "x".repeat(ApiHandler.MAX_BODY_BYTES);
    String body = "{\"metadata\":{\"name\":\"big\",\"annotations\":{\"a\":\"" + padding + "\"}}}";

    HttpResponse<String> answer = send(gateway, "POST", pods(), "application/json", body);

    assertStatus(answer, 413, "RequestEntityTooLarge");
    assertThat(get(gateway, pods() + "/big").statusCode()).isEqualTo(404);
  }

  @Test
  void strictFieldValidationRejectsAnUnknownFieldAndCreatesNothing() {
    ObjectNode pod = pod("web");
    ((ObjectNode) pod.path("spec")).put("notAField", 1);

    HttpResponse<String> answer = post(gateway, pods() + "?fieldValidation=Strict", pod);

    assertStatus(answer, 400, "BadRequest");
    assertThat(json(answer).path("message").asText()).contains("unknown field \"spec.notAField\"");
    assertThat(get(gateway, pods() + "/web").statusCode()).isEqualTo(404);
  }

  @Test
  void unknownFieldWithoutStrictValidationIsCreatedWithAWarningHeader() {
    ObjectNode pod = pod("web");
    ((ObjectNode) pod.path("spec")).put("notAField", 1);

    HttpResponse<String> answer = post(gateway, pods(), pod);

    assertThat(answer.statusCode()).isEqualTo(201);
    assertThat(answer.headers().allValues("Warning"))
        .containsExactly("299 - \"unknown field \\\"spec.notAField\\\"\"");
    assertThat(json(answer).path("spec").has("notAField")).isFalse();
  }

  // ---------------------------------------------------------------- consistency across gateways

  @Test
  void writeAcknowledgedByOneGatewayIsVisibleToAnImmediateReadOnAnother() {
    try (GatewayServer other = startGateway(1)) {
      for (int i = 0; i < 5; i++) {
        String name = "web-" + i;
        JsonNode created = json(post(gateway, pods(), pod(name)));

        HttpResponse<String> read = get(other, pods() + "/" + name);
        assertThat(read.statusCode()).as("GET %s on the other gateway", name).isEqualTo(200);
        assertThat(json(read)).isEqualTo(created);

        ObjectNode labelled = created.deepCopy();
        ((ObjectNode) labelled.path("metadata")).putObject("labels").put("seen", "yes");
        JsonNode updated = json(put(gateway, pods() + "/" + name, labelled));
        assertThat(json(get(other, pods() + "/" + name))).isEqualTo(updated);

        assertThat(send(gateway, "DELETE", pods() + "/" + name, null, null).statusCode())
            .isEqualTo(200);
        assertThat(get(other, pods() + "/" + name).statusCode())
            .as("GET %s on the other gateway after delete", name)
            .isEqualTo(404);
      }
    }
  }

  // ---------------------------------------------------------------- watch

  @Test
  void watchFromAListVersionResumesOnANewGatewayWithEveryLaterChangeOnce() {
    Changes changes = new Changes();
    String listVersion;
    try (GatewayServer first = startGateway(1)) {
      changes.create(first, "a");
      changes.create(first, "b");
      listVersion = listVersion(first);
      changes.create(first, "c");
      changes.label(first, "a");
      changes.delete(first, "b");
    }
    try (GatewayServer second = startGateway(2)) {
      changes.create(second, "d");
      changes.label(second, "c");
      changes.delete(second, "a");

      List<JsonNode> events = watch(second, listVersion, 2);

      changes.assertDeliveredAfter(2, events);
    }
  }

  @Test
  void watchOnAJustStartedGatewayDeliversOnlyChangesAfterTheListVersion() {
    Changes changes = new Changes();
    changes.create(gateway, "a");
    changes.create(gateway, "b");
    String listVersion = listVersion(gateway);
    changes.create(gateway, "c");

    try (GatewayServer fresh = startGateway(3)) {
      // Asked at once, while the new gateway's cache is still reading events from the start.
      CompletableFuture<List<JsonNode>> events = watchAsync(fresh, listVersion, 4);
      changes.label(fresh, "a");

      changes.assertDeliveredAfter(2, join(events));
    }
  }

  @Test
  void watchFromAnObjectResourceVersionIs410Gone() {
    HttpResponse<String> answer = get(gateway, pods() + "?watch=true&resourceVersion=5");

    assertStatus(answer, 410, "Expired");
  }

  @Test
  void watchWithTimeoutSecondsEndsByItself() {
    long started = System.nanoTime();

    List<JsonNode> events = join(watchAsync(gateway, null, 1));

    assertThat(events).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isBetween(Duration.ofMillis(900), Duration.ofSeconds(10));
  }

  @Test
  void watchTrueSpelledAsThePythonClientSendsItIsAWatch() {
    assertThat(post(gateway, pods(), pod("web")).statusCode()).isEqualTo(201);

    HttpResponse<String> answer = get(gateway, pods() + "?watch=True&timeoutSeconds=1");

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode first = parse(answer.body().lines().findFirst().orElseThrow());
    assertThat(first.path("type").asText()).isEqualTo("ADDED");
    assertThat(first.path("object").path("metadata").path("name").asText()).isEqualTo("web");
  }

  // ---------------------------------------------------------------- resourceVersion "0"

  @Test
  void getAndListAtResourceVersionZeroAreServedFromTheCacheWithoutWaitingForTheLog() {
    assertThat(post(gateway, pods(), pod("web")).statusCode()).isEqualTo(201);
    assertThat(get(gateway, pods() + "/web").statusCode()).isEqualTo(200);
    double waitsBefore = cacheWaits();

    HttpResponse<String> one = get(gateway, pods() + "/web?resourceVersion=0");
    HttpResponse<String> all = get(gateway, pods() + "?resourceVersion=0");

    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(names(json(all))).containsExactly("web");
    assertThat(cacheWaits()).as("reads that waited for the log").isEqualTo(waitsBefore);
    get(gateway, pods() + "/web");
    assertThat(cacheWaits()).isEqualTo(waitsBefore + 1);
  }

  @Test
  void updateAndPatchCarryingResourceVersionZeroAreUnconditional() {
    JsonNode created = json(post(gateway, pods(), pod("web")));
    ObjectNode first = created.deepCopy();
    ((ObjectNode) first.path("metadata")).putObject("labels").put("rev", "1");
    assertThat(put(gateway, pods() + "/web", first).statusCode()).isEqualTo(200);

    ObjectNode unset = created.deepCopy();
    ((ObjectNode) unset.path("metadata")).put("resourceVersion", "0");
    ((ObjectNode) unset.path("metadata")).putObject("labels").put("rev", "2");
    HttpResponse<String> updated = put(gateway, pods() + "/web", unset);
    HttpResponse<String> patched =
        send(
            gateway,
            "PATCH",
            pods() + "/web",
            "application/merge-patch+json",
            "{\"metadata\":{\"resourceVersion\":\"0\",\"labels\":{\"rev\":\"3\"}}}");

    assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
    assertThat(json(updated).path("metadata").path("labels").path("rev").asText()).isEqualTo("2");
    assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
    assertThat(json(patched).path("metadata").path("labels").path("rev").asText()).isEqualTo("3");
    assertThat(json(patched).path("metadata").path("resourceVersion").asText()).isNotEqualTo("0");
  }

  // ---------------------------------------------------------------- deletecollection

  @Test
  void deleteCollectionDeletesWhatTheLabelSelectorMatchesAndAnswersTheList() {
    String configMaps = "/api/v1/namespaces/" + namespace + "/configmaps";
    for (String[] cm : new String[][] {{"a-1", "a"}, {"a-2", "a"}, {"b-1", "b"}}) {
      ObjectNode body = JSON.createObjectNode();
      body.putObject("metadata").put("name", cm[0]).putObject("labels").put("app", cm[1]);
      body.putObject("data").put("k", "v");
      assertThat(post(gateway, configMaps, body).statusCode()).isEqualTo(201);
    }

    HttpResponse<String> answer =
        send(gateway, "DELETE", configMaps + "?labelSelector=" + encode("app=a"), null, null);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(json(answer).path("kind").asText()).isEqualTo("ConfigMapList");
    assertThat(json(answer).path("apiVersion").asText()).isEqualTo("v1");
    assertThat(names(json(answer))).containsExactly("a-1", "a-2");
    // kube-root-ca.crt is the root-CA publisher's, in every namespace.
    HttpResponse<String> left = get(gateway, configMaps);
    assertThat(names(json(left)))
        .filteredOn(n -> !n.equals("kube-root-ca.crt"))
        .containsExactly("b-1");
  }

  @Test
  void deleteCollectionHonoursTheFieldSelectorAndIsRefusedOnNamespaces() {
    post(gateway, pods(), pod("web-1"));
    post(gateway, pods(), pod("web-2"));

    HttpResponse<String> answer =
        send(
            gateway,
            "DELETE",
            pods() + "?fieldSelector=" + encode("metadata.name=web-2"),
            null,
            null);
    HttpResponse<String> namespaces = send(gateway, "DELETE", "/api/v1/namespaces", null, null);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(names(json(answer))).containsExactly("web-2");
    assertThat(names(list(""))).containsExactly("web-1");
    assertStatus(namespaces, 405, "MethodNotAllowed");
  }

  // ---------------------------------------------------------------- system namespaces

  @Test
  void kubeNodeLeaseComesBackOnceTheDeletedOneIsGone() {
    String path = "/api/v1/namespaces/kube-node-lease";
    String oldUid = json(get(gateway, path)).path("metadata").path("uid").asText();
    try (GatewayServer keeper = startGateway(1)) {
      keeper.keepSystemNamespaces(SYSTEM, Duration.ofMillis(200));

      assertThat(send(gateway, "DELETE", path, null, null).statusCode()).isEqualTo(200);
      // What the namespace controller does once the namespace is empty.
      ObjectNode terminating = (ObjectNode) json(get(gateway, path));
      assertThat(terminating.path("status").path("phase").asText()).isEqualTo("Terminating");
      ((ObjectNode) terminating.path("spec")).putArray("finalizers");
      assertThat(put(gateway, path, terminating).statusCode()).isEqualTo(200);

      Awaitility.await("kube-node-lease created again")
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                HttpResponse<String> again = get(gateway, path);
                assertThat(again.statusCode()).isEqualTo(200);
                assertThat(json(again).path("metadata").path("uid").asText()).isNotEqualTo(oldUid);
                assertThat(json(again).path("status").path("phase").asText()).isEqualTo("Active");
              });
    }
  }

  // ---------------------------------------------------------------- patch and scale

  @Test
  void strategicMergePatchChangesOneEnvValueAndDeletesOnePort() {
    String path = "/apis/apps/v1/namespaces/" + namespace + "/deployments";
    JsonNode before = json(post(gateway, path, deployment("web")));
    String patch =
        """
        {"spec":{"template":{"spec":{"containers":[{"name":"web",
          "env":[{"name":"MODE","value":"blue"}],
          "ports":[{"containerPort":8443,"$patch":"delete"}]}]}}}}
        """;

    HttpResponse<String> answer =
        send(gateway, "PATCH", path + "/web", "application/strategic-merge-patch+json", patch);

    assertThat(answer.statusCode()).isEqualTo(200);
    ObjectNode expected = before.deepCopy();
    ObjectNode container =
        (ObjectNode) expected.path("spec").path("template").path("spec").path("containers").get(0);
    ((ObjectNode) container.path("env").get(1)).put("value", "blue");
    ((ArrayNode) container.path("ports")).remove(1);
    // The removed port leaves the writer's managedFields too.
    ((ObjectNode)
            expected.at(
                "/metadata/managedFields/0/fieldsV1/f:spec/f:template/f:spec/f:containers"
                    + "/k:{\"name\":\"web\"}/f:ports"))
        .remove("k:{\"containerPort\":8443,\"protocol\":\"TCP\"}");
    JsonNode stored = json(get(gateway, path + "/web"));
    // The patch is the writer's latest Update: its entry takes the patch's time, which is the
    // create's second or a later one.
    String patchedAt = stored.at("/metadata/managedFields/0/time").asText();
    assertThat(Instant.parse(patchedAt))
        .isAfterOrEqualTo(Instant.parse(before.at("/metadata/managedFields/0/time").asText()));
    ((ObjectNode) expected.at("/metadata/managedFields/0")).put("time", patchedAt);
    assertThat(withoutVersions(stored)).isEqualTo(withoutVersions(expected));
    assertThat(stored.path("metadata").path("resourceVersion").asText())
        .isNotEqualTo(before.path("metadata").path("resourceVersion").asText());
  }

  @Test
  void mergePatchOnScaleSetsDeploymentReplicas() {
    String path = "/apis/apps/v1/namespaces/" + namespace + "/deployments";
    assertThat(post(gateway, path, deployment("web")).statusCode()).isEqualTo(201);

    HttpResponse<String> answer =
        send(
            gateway,
            "PATCH",
            path + "/web/scale",
            "application/merge-patch+json",
            "{\"spec\":{\"replicas\":5}}");

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(json(answer).path("kind").asText()).isEqualTo("Scale");
    assertThat(json(answer).path("spec").path("replicas").asInt()).isEqualTo(5);
    assertThat(json(get(gateway, path + "/web")).path("spec").path("replicas").asInt())
        .isEqualTo(5);
  }

  // ---------------------------------------------------------------- dry run and selectors

  @Test
  void dryRunCreateAnswers201AndStoresNothing() {
    HttpResponse<String> answer = post(gateway, pods() + "?dryRun=All", pod("web"));

    assertThat(answer.statusCode()).isEqualTo(201);
    assertThat(json(answer).path("metadata").path("name").asText()).isEqualTo("web");
    assertThat(get(gateway, pods() + "/web").statusCode()).isEqualTo(404);
  }

  @Test
  void listByLabelSelectorReturnsOnlyMatchingPods() {
    post(gateway, pods(), pod("web-1", "app", "web", "tier", "front"));
    post(gateway, pods(), pod("web-2", "app", "web", "tier", "back"));
    post(gateway, pods(), pod("db-1", "app", "db", "tier", "back"));

    assertThat(names(list("labelSelector=" + encode("app=web")))).containsExactly("web-1", "web-2");
    assertThat(names(list("labelSelector=" + encode("tier in (back),app!=web"))))
        .containsExactly("db-1");
  }

  @Test
  void listByFieldSelectorOnNameReturnsThatPod() {
    post(gateway, pods(), pod("web-1"));
    post(gateway, pods(), pod("web-2"));

    assertThat(names(list("fieldSelector=" + encode("metadata.name=web-2"))))
        .containsExactly("web-2");
  }

  // ---------------------------------------------------------------- paths that name nothing

  @Test
  void watchPrefixWithoutAResourceIs404() {
    HttpResponse<String> answer = get(gateway, "/api/v1/watch");

    assertStatus(answer, 404, "NotFound");
  }

  // ---------------------------------------------------------------- metrics

  @Test
  void metricsOnTheApiPortCountTheRequestAndTimeItsCommandAndTheReadsCacheWait() {
    assertThat(post(gateway, pods(), pod("web")).statusCode()).isEqualTo(201);
    assertThat(get(gateway, pods() + "/web").statusCode()).isEqualTo(200);

    HttpResponse<String> answer = get(gateway, "/metrics");

    assertThat(answer.statusCode()).isEqualTo(200);
    ScrapedMetrics metrics = ScrapedMetrics.parse(answer.body());
    assertThat(
            metrics.value(
                "apiserver_request_total",
                "verb",
                "POST",
                "version",
                "v1",
                "resource",
                "pods",
                "scope",
                "resource",
                "code",
                "201"))
        .isGreaterThanOrEqualTo(1);
    assertThat(
            metrics.value(
                "apiserver_request_duration_seconds_count", "verb", "GET", "resource", "pods"))
        .isGreaterThanOrEqualTo(1);
    assertThat(
            metrics.value("streamplane_gateway_command_duration_seconds_count", "verb", "CREATE"))
        .isGreaterThanOrEqualTo(1);
    assertThat(metrics.value("streamplane_gateway_cache_wait_duration_seconds_count"))
        .isGreaterThanOrEqualTo(1);
    assertThat(metrics.has("streamplane_kafka_consumer_lag", "topic", topics.commands().name()))
        .isTrue();
  }

  // ---------------------------------------------------------------- helpers

  /**
   * The changes a test made to pods, in order, as the watch events they must produce. The watch
   * cache delivers events in log order per partition, so the order checked is each pod's own.
   */
  private final class Changes {
    private final List<String[]> made = new ArrayList<>();

    void create(GatewayServer on, String name) {
      HttpResponse<String> answer = post(on, pods(), pod(name));
      assertThat(answer.statusCode()).as("create %s", name).isEqualTo(201);
      record("ADDED", json(answer));
    }

    void label(GatewayServer on, String name) {
      HttpResponse<String> answer =
          send(
              on,
              "PATCH",
              pods() + "/" + name,
              "application/merge-patch+json",
              "{\"metadata\":{\"labels\":{\"changed\":\"" + made.size() + "\"}}}");
      assertThat(answer.statusCode()).as("label %s", name).isEqualTo(200);
      record("MODIFIED", json(answer));
    }

    void delete(GatewayServer on, String name) {
      HttpResponse<String> answer = send(on, "DELETE", pods() + "/" + name, null, null);
      assertThat(answer.statusCode()).as("delete %s", name).isEqualTo(200);
      record("DELETED", json(answer));
    }

    private void record(String type, JsonNode object) {
      made.add(
          new String[] {
            type,
            object.path("metadata").path("name").asText(),
            object.path("metadata").path("resourceVersion").asText()
          });
    }

    /** The events must be exactly the changes after the first {@code skipped}, per pod in order. */
    void assertDeliveredAfter(int skipped, List<JsonNode> events) {
      List<String> expected = new ArrayList<>();
      made.subList(skipped, made.size()).forEach(c -> expected.add(String.join(" ", c)));
      List<String> delivered = new ArrayList<>();
      for (JsonNode event : events) {
        JsonNode metadata = event.path("object").path("metadata");
        delivered.add(
            event.path("type").asText()
                + " "
                + metadata.path("name").asText()
                + " "
                + metadata.path("resourceVersion").asText());
      }
      assertThat(delivered).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(byPod(delivered)).isEqualTo(byPod(expected));
    }

    private Map<String, List<String>> byPod(List<String> events) {
      Map<String, List<String>> byPod = new TreeMap<>();
      for (String event : events) {
        byPod.computeIfAbsent(event.split(" ")[1], p -> new ArrayList<>()).add(event);
      }
      return byPod;
    }
  }

  // ---------------------------------------------------------------- reads at past versions

  @Test
  void aListAtAnExactPastVersionIsTheListAnsweredThen() {
    List<JsonNode> lists = new ArrayList<>();
    assertThat(post(gateway, pods(), pod("a")).statusCode()).isEqualTo(201);
    assertThat(post(gateway, pods(), pod("b")).statusCode()).isEqualTo(201);
    lists.add(list(""));
    relabel("a", "v", "2");
    assertThat(send(gateway, "DELETE", pods() + "/b", null, null).statusCode()).isEqualTo(200);
    assertThat(post(gateway, pods(), pod("c")).statusCode()).isEqualTo(201);
    lists.add(list(""));
    assertThat(post(gateway, pods(), pod("d")).statusCode()).isEqualTo(201);
    lists.add(list(""));

    for (JsonNode then : lists) {
      String version = then.path("metadata").path("resourceVersion").asText();
      JsonNode now = list("resourceVersion=" + encode(version) + "&resourceVersionMatch=Exact");
      assertThat(now.path("metadata").path("resourceVersion").asText()).isEqualTo(version);
      assertThat(now.path("items")).as("the list at %s", version).isEqualTo(then.path("items"));
    }
    assertThat(names(lists.get(0))).containsExactly("a", "b");
    assertThat(names(lists.get(1))).containsExactly("a", "c");
  }

  @Test
  void aWatchThatUpgradesToWebSocketGetsEachEventAsAMessageAndANormalCloseAtItsTimeout()
      throws Exception {
    BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    CompletableFuture<Integer> closed = new CompletableFuture<>();
    WebSocket socket =
        HttpClient.newHttpClient()
            .newWebSocketBuilder()
            .buildAsync(
                URI.create(
                    gateway.url().replace("http://", "ws://")
                        + pods()
                        + "?watch=true&timeoutSeconds=5"),
                new WebSocket.Listener() {
                  private final StringBuilder text = new StringBuilder();

                  @Override
                  public CompletionStage<?> onText(
                      WebSocket webSocket, CharSequence data, boolean last) {
                    text.append(data);
                    if (last) {
                      messages.add(text.toString());
                      text.setLength(0);
                    }
                    webSocket.request(1);
                    return null;
                  }

                  @Override
                  public CompletionStage<?> onClose(
                      WebSocket webSocket, int statusCode, String reason) {
                    closed.complete(statusCode);
                    return null;
                  }
                })
            .get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(post(gateway, pods(), pod("ws")).statusCode()).isEqualTo(201);

    String first = messages.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(first).as("a message within %s", WAIT).isNotNull();
    JsonNode event = parse(first);
    assertThat(event.path("type").asText()).isEqualTo("ADDED");
    assertThat(event.path("object").path("metadata").path("name").asText()).isEqualTo("ws");
    assertThat(closed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    socket.abort();
  }

  @Test
  void theStateAtEachBookmarkOfAWatchIsTheListAtItsVersion() throws Exception {
    assertThat(post(gateway, pods(), pod("w1")).statusCode()).isEqualTo(201);
    JsonNode start = list("");
    CompletableFuture<List<JsonNode>> stream =
        api(gateway)
            .getAsync(
                pods()
                    + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=17&resourceVersion="
                    + encode(start.path("metadata").path("resourceVersion").asText()),
                HttpResponse.BodyHandlers.ofLines())
            .thenApply(
                response -> {
                  try (Stream<String> lines = response.body()) {
                    return lines.filter(l -> !l.isBlank()).map(GatewayIT::parse).toList();
                  }
                });
    assertThat(post(gateway, pods(), pod("w2")).statusCode()).isEqualTo(201);
    relabel("w1", "v", "2");
    Thread.sleep(6_000);
    assertThat(send(gateway, "DELETE", pods() + "/w2", null, null).statusCode()).isEqualTo(200);
    assertThat(post(gateway, pods(), pod("w3")).statusCode()).isEqualTo(201);
    Thread.sleep(6_000);
    relabel("w3", "v", "3");

    Map<String, JsonNode> seen = new TreeMap<>();
    start
        .path("items")
        .forEach(item -> seen.put(item.path("metadata").path("name").asText(), item));
    int bookmarks = 0;
    for (JsonNode event : join(stream)) {
      JsonNode object = event.path("object");
      switch (event.path("type").asText()) {
        case "ADDED", "MODIFIED" -> seen.put(object.path("metadata").path("name").asText(), object);
        case "DELETED" -> seen.remove(object.path("metadata").path("name").asText());
        case "BOOKMARK" -> {
          bookmarks++;
          String version = object.path("metadata").path("resourceVersion").asText();
          JsonNode then =
              list("resourceVersion=" + encode(version) + "&resourceVersionMatch=Exact");
          Map<String, JsonNode> listed = new TreeMap<>();
          then.path("items")
              .forEach(item -> listed.put(item.path("metadata").path("name").asText(), item));
          assertThat(listed).as("the list at bookmark %s", version).isEqualTo(seen);
        }
        default -> throw new AssertionError("unexpected watch event " + event);
      }
    }
    assertThat(bookmarks).isGreaterThanOrEqualTo(2);
  }

  @Test
  void aGetAtAnExactVersionIsTheObjectAsItWasThen() {
    JsonNode created = json(post(gateway, pods(), pod("a", "v", "1")));
    String listed = listVersion(gateway);
    JsonNode updated = relabel("a", "v", "2");
    assertThat(send(gateway, "DELETE", pods() + "/a", null, null).statusCode()).isEqualTo(200);
    String createdVersion = created.path("metadata").path("resourceVersion").asText();
    String updatedVersion = updated.path("metadata").path("resourceVersion").asText();

    assertThat(getAt("a", listed, 200)).isEqualTo(created);
    assertThat(getAt("a", createdVersion, 200)).isEqualTo(created);
    assertThat(getAt("a", updatedVersion, 200)).isEqualTo(updated);
    assertThat(get(gateway, pods() + "/a").statusCode()).isEqualTo(404);
    assertThat(getAt("a", listVersion(gateway), 404).path("reason").asText()).isEqualTo("NotFound");
  }

  @Test
  void pagesAfterTheFirstReadTheStateOfTheFirst() {
    for (String name : List.of("p1", "p2", "p3", "p4")) {
      assertThat(post(gateway, pods(), pod(name)).statusCode()).isEqualTo(201);
    }
    JsonNode first = list("limit=2");
    assertThat(send(gateway, "DELETE", pods() + "/p3", null, null).statusCode()).isEqualTo(200);
    assertThat(post(gateway, pods(), pod("p5")).statusCode()).isEqualTo(201);

    JsonNode second =
        list("limit=2&continue=" + encode(first.path("metadata").path("continue").asText()));

    assertThat(names(first)).containsExactly("p1", "p2");
    assertThat(names(second)).containsExactly("p3", "p4");
    assertThat(second.path("metadata").path("resourceVersion"))
        .isEqualTo(first.path("metadata").path("resourceVersion"));
    assertThat(second.path("metadata").has("continue")).isFalse();
  }

  @Test
  void exactReadsAreValidatedAsKubernetesValidatesListOptions() {
    String version = listVersion(gateway);
    HttpResponse<String> noVersion = get(gateway, pods() + "?resourceVersionMatch=Exact");
    assertStatus(noVersion, 422, "Invalid");
    assertThat(json(noVersion).path("message").asText())
        .isEqualTo(
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden:"
                + " resourceVersionMatch is forbidden unless resourceVersion is provided");
    assertStatus(
        get(gateway, pods() + "?resourceVersion=0&resourceVersionMatch=Exact"), 422, "Invalid");
    assertThat(
            json(get(
                    gateway,
                    pods() + "?resourceVersion=" + encode(version) + "&resourceVersionMatch=Often"))
                .path("message")
                .asText())
        .contains("Unsupported value: \"Often\"");
    assertStatus(
        get(gateway, pods() + "?resourceVersion=12&resourceVersionMatch=Exact"), 400, "BadRequest");
    HttpResponse<String> tooLarge =
        get(gateway, pods() + "?resourceVersion=L99999999&resourceVersionMatch=Exact");
    assertStatus(tooLarge, 504, "Timeout");
    assertThat(json(tooLarge).path("message").asText())
        .startsWith("Too large resource version: L99999999, current: L");
  }

  @Test
  void theHistoryEndpointAnswersEveryVersionWithItsActor() {
    assertThat(post(gateway, pods(), pod("h")).statusCode()).isEqualTo(201);
    relabel("h", "v", "2");
    assertThat(send(gateway, "DELETE", pods() + "/h", null, null).statusCode()).isEqualTo(200);
    assertThat(post(gateway, pods(), pod("h")).statusCode()).isEqualTo(201);

    HttpResponse<String> answer = get(gateway, "/history" + pods() + "/h");

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode history = json(answer);
    assertThat(history.path("kind").asText()).isEqualTo("ObjectHistory");
    List<String> types = new ArrayList<>();
    Set<String> uids = new HashSet<>();
    history
        .path("items")
        .forEach(
            v -> {
              types.add(v.path("type").asText());
              uids.add(v.path("uid").asText());
              assertThat(v.path("actor").path("username").asText()).isEqualTo("kubernetes-admin");
              assertThat(v.path("object").path("metadata").path("name").asText()).isEqualTo("h");
            });
    assertThat(types).containsExactly("ADDED", "MODIFIED", "DELETED", "ADDED");
    assertThat(uids).hasSize(2);
    assertThat(
            json(get(
                    gateway,
                    "/history"
                        + pods()
                        + "/h?since="
                        + encode(Instant.now().plusSeconds(60).toString())))
                .path("items"))
        .isEmpty();
    assertStatus(get(gateway, "/history" + pods() + "/h?since=yesterday"), 400, "BadRequest");
    assertThat(get(gateway, "/history/api/v1/pods/h").statusCode()).isEqualTo(404);
  }

  private JsonNode relabel(String name, String label, String value) {
    ObjectNode object = (ObjectNode) json(get(gateway, pods() + "/" + name));
    object.with("metadata").with("labels").put(label, value);
    HttpResponse<String> updated = put(gateway, pods() + "/" + name, object);
    assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
    return json(updated);
  }

  private JsonNode getAt(String name, String version, int code) {
    HttpResponse<String> answer =
        get(
            gateway,
            pods()
                + "/"
                + name
                + "?resourceVersion="
                + encode(version)
                + "&resourceVersionMatch=Exact");
    assertThat(answer.statusCode())
        .as("get %s at %s: %s", name, version, answer.body())
        .isEqualTo(code);
    return json(answer);
  }

  private GatewayServer startGateway(int replyPartition) {
    try {
      return GatewayServer.start(bootstrap, topics, "127.0.0.1", 0, replyPartition);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String pods() {
    return "/api/v1/namespaces/" + namespace + "/pods";
  }

  private double cacheWaits() {
    return ScrapedMetrics.parse(get(gateway, "/metrics").body())
        .value("streamplane_gateway_cache_wait_duration_seconds_count");
  }

  private String listVersion(GatewayServer on) {
    HttpResponse<String> list = get(on, pods());
    assertThat(list.statusCode()).isEqualTo(200);
    return json(list).path("metadata").path("resourceVersion").asText();
  }

  private JsonNode list(String query) {
    HttpResponse<String> answer = get(gateway, pods() + (query.isEmpty() ? "" : "?" + query));
    assertThat(answer.statusCode()).as("list ?%s", query).isEqualTo(200);
    return json(answer);
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.path("items").forEach(item -> names.add(item.path("metadata").path("name").asText()));
    return names;
  }

  /** Watches pods in the test's namespace; the server ends the stream after timeoutSeconds. */
  private CompletableFuture<List<JsonNode>> watchAsync(
      GatewayServer on, String resourceVersion, int timeoutSeconds) {
    String query =
        "?watch=true&timeoutSeconds="
            + timeoutSeconds
            + (resourceVersion == null ? "" : "&resourceVersion=" + encode(resourceVersion));
    return api(on)
        .getAsync(pods() + query, HttpResponse.BodyHandlers.ofLines())
        .thenApply(
            response -> {
              assertThat(response.statusCode()).isEqualTo(200);
              try (Stream<String> lines = response.body()) {
                return lines.filter(l -> !l.isBlank()).map(GatewayIT::parse).toList();
              }
            });
  }

  private List<JsonNode> watch(GatewayServer on, String resourceVersion, int timeoutSeconds) {
    return join(watchAsync(on, resourceVersion, timeoutSeconds));
  }

  private static List<JsonNode> join(CompletableFuture<List<JsonNode>> events) {
    try {
      return events.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the watch did not end within " + WAIT, e);
    }
  }

  private ApiRequests api(GatewayServer on) {
    return apis.computeIfAbsent(on, g -> new ApiRequests(g.url()));
  }

  private HttpResponse<String> get(GatewayServer on, String path) {
    return api(on).get(path);
  }

  private HttpResponse<String> post(GatewayServer on, String path, JsonNode body) {
    return api(on).post(path, body);
  }

  private HttpResponse<String> put(GatewayServer on, String path, JsonNode body) {
    return api(on).put(path, body);
  }

  private HttpResponse<String> send(
      GatewayServer on, String method, String path, String contentType, String body) {
    return api(on).send(method, path, contentType, body);
  }

  private static void assertStatus(HttpResponse<String> answer, int code, String reason) {
    assertThat(answer.statusCode()).as("HTTP status of %s", answer.body()).isEqualTo(code);
    JsonNode status = json(answer);
    assertThat(status.path("kind").asText()).isEqualTo("Status");
    assertThat(status.path("status").asText()).isEqualTo("Failure");
    assertThat(status.path("reason").asText()).isEqualTo(reason);
    assertThat(status.path("code").asInt()).isEqualTo(code);
    assertThat(answer.body()).as("kube-apiserver ends a Status body with a newline").endsWith("\n");
  }

  private static JsonNode json(HttpResponse<String> response) {
    return ApiRequests.json(response);
  }

  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static ObjectNode withoutVersions(JsonNode object) {
    ObjectNode copy = object.deepCopy();
    ((ObjectNode) copy.path("metadata")).remove(List.of("resourceVersion", "generation"));
    return copy;
  }

  private ObjectNode pod(String name, String... labels) {
    ObjectNode pod = JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode metadata = pod.putObject("metadata").put("name", name);
    for (int i = 0; i + 1 < labels.length; i += 2) {
      metadata.with("labels").put(labels[i], labels[i + 1]);
    }
    pod.putObject("spec")
        .putArray("containers")
        .addObject()
        .put("name", "c")
        .put("image", "nginx:1.25");
    return pod;
  }

  private static ObjectNode deployment(String name) {
    return (ObjectNode)
        parse(
            """
            {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"%s"},
             "spec":{"replicas":2,"selector":{"matchLabels":{"app":"%s"}},
              "template":{"metadata":{"labels":{"app":"%s"}},
               "spec":{"containers":[{"name":"web","image":"nginx:1.25",
                 "env":[{"name":"LOG","value":"info"},{"name":"MODE","value":"green"}],
                 "ports":[{"name":"http","containerPort":8080},
                          {"name":"https","containerPort":8443}]}]}}}}
            """
                .formatted(name, name, name));
  }
}
