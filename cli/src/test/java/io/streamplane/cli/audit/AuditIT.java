package io.streamplane.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.cli.Streamplane;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.audit.AuditLevel;
import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.FixedUser;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.gateway.server.RequestChain;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.ObjectRef;
import io.streamplane.log.ResponseStatus;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code streamplane audit} against a real broker: filters over audit events written directly (an
 * hour-old history, so that time bounds are exact), and the events two in-process gateways write
 * for requests by two users (alice and bob, each gateway serving one), historic and followed.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  // Recent enough for the topic's retention (30 days), older than the gateways' events (--since
  // 1h).
  private static final Instant T0 =
      Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).minus(Duration.ofHours(3));
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicInteger names = new AtomicInteger();
  private String bootstrap;
  private String cluster;
  private KafkaSchemaCatalog catalog;
  private Topics topics;
  private StreamsApp store;
  private GatewayServer alice;
  private GatewayServer bob;

  @BeforeAll
  void start(EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
    bootstrap = broker.bootstrapServers();
    cluster = KafkaBrokerExtension.uniqueName("aud").replaceAll("[^a-zA-Z0-9_-]", "_");
    // Three audit partitions: a scan must read them all and order what it found by time.
    TopicLayout layout = new TopicLayout(cluster, 6, 1, 3, (short) 1);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      ClusterTopics ready = ClusterTopics.ensure(admin, bootstrap, layout);
      catalog = ready.catalog();
      topics = ready.topics();
    }
    writeHistory();
    store = StoreApp.start(topics, bootstrap, dir.resolve("store"));
    alice = gateway("alice", "devs", 0, dir);
    bob = gateway("bob", "ops", 1, dir);
    alice.ensureSystemNamespaces(user("system:apiserver", "system:masters"));
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {alice, bob, store, catalog}) {
      if (c != null) {
        c.close();
      }
    }
  }

  // ---------------------------------------------------------------- filters over written events

  @Test
  void userVerbAndTimeRangeKeepOnlyTheMatchingEventsOldestFirst() {
    Run run =
        audit("--user", "carol", "--verb", "delete,update", "--since", at(30), "--until", at(300));

    assertThat(run.exit).as(run.err).isZero();
    List<String> lines = run.out.lines().toList();
    assertThat(lines.get(0)).startsWith("TIME").contains("USER", "NAMESPACE/NAME", "LATENCY");
    assertThat(lines.subList(1, lines.size()))
        .extracting(l -> l.split("\\s+")[0] + " " + l.split("\\s+")[2])
        .as("the stage's time: received plus latency")
        .containsExactly(
            T0.plusSeconds(60).plusMillis(40) + " update",
            T0.plusSeconds(240).plusMillis(5) + " delete");
    assertThat(run.err).contains("events/s").contains("2 matched");
  }

  @Test
  void groupResourceWithGroupCodeClassAndNamespaceFilter() {
    Run run =
        audit(
            "--group",
            "ops",
            "--resource",
            "deployments.apps",
            "--code",
            "4xx",
            "-n",
            "prod",
            "--until",
            at(3600));

    assertThat(run.exit).as(run.err).isZero();
    assertThat(rows(run)).hasSize(1);
    assertThat(rows(run).get(0))
        .contains("dave", "patch", "deployments.apps", "prod/web", "409", "250.0ms");
  }

  @Test
  void aResourceWithoutGroupMatchesInAnyGroupAndNameFiltersTheObject() {
    Run run = audit("--resource", "deployments", "--name", "web", "--until", at(3600));

    assertThat(run.exit).as(run.err).isZero();
    assertThat(rows(run)).hasSize(2).allMatch(r -> r.contains("deployments.apps"));
  }

  @Test
  void theDefaultStageIsEachRequestsLastEventAndStageChoosesOthers() {
    Run last = audit("--user", "carol", "--until", at(3600));
    Run received = audit("--user", "carol", "--stage", "RequestReceived", "--until", at(3600));
    Run unauthenticated = audit("--code", "401", "--until", at(3600));

    assertThat(rows(last)).hasSize(4);
    assertThat(rows(received)).hasSize(1).allMatch(r -> r.contains(" - "));
    assertThat(rows(unauthenticated)).hasSize(1).allMatch(r -> r.contains("(unauthenticated)"));
  }

  @Test
  void jsonLinesAreAuditEventsAsKubeApiserversLogWritesThem() throws Exception {
    Run run = audit("--user", "dave", "-o", "json", "--until", at(3600));

    assertThat(run.exit).as(run.err).isZero();
    List<String> lines = run.out.lines().toList();
    assertThat(lines).hasSize(1);
    JsonNode event = JSON.readTree(lines.get(0));
    assertThat(event.path("kind").asText()).isEqualTo("Event");
    assertThat(event.path("apiVersion").asText()).isEqualTo("audit.k8s.io/v1");
    assertThat(event.path("auditID").asText()).isEqualTo("id-dave");
    assertThat(event.path("user").path("groups").get(0).asText()).isEqualTo("ops");
    assertThat(event.path("objectRef").path("apiGroup").asText()).isEqualTo("apps");
    assertThat(event.path("responseStatus").path("code").asInt()).isEqualTo(409);
    assertThat(event.path("responseStatus").path("reason").asText()).isEqualTo("Conflict");
    assertThat(event.path("requestObject").path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(event.path("requestReceivedTimestamp").asText())
        .isEqualTo(at(180).replace("Z", ".000000Z"));
    assertThat(event.path("stageTimestamp").asText()).isEqualTo(at(180).replace("Z", ".250000Z"));
  }

  @Test
  void aBadFilterIsRefusedBeforeReading() {
    Run run = audit("--code", "4x");

    assertThat(run.exit).isEqualTo(2);
    assertThat(run.err).contains("--code: '4x' is neither a status code (403) nor a class (4xx)");
  }

  // ---------------------------------------------------------------- events written by gateways

  @Test
  void alicesDeletesAreFoundByUserVerbAndSinceAndNotBobs() {
    String mine = configMap(alice);
    String bobs = configMap(bob);
    assertThat(delete(alice, mine)).isEqualTo(200);
    assertThat(delete(bob, bobs)).isEqualTo(200);

    await("alice's delete in the audit topic")
        .atMost(WAIT)
        .until(
            () -> audit("--user", "alice", "--verb", "delete", "--since", "1h").out.contains(mine));
    Run run = audit("--user", "alice", "--verb", "delete", "--since", "1h");
    assertThat(rows(run))
        .anyMatch(
            r -> r.contains("alice") && r.contains("configmaps") && r.contains("default/" + mine))
        .allMatch(r -> r.contains("alice") && r.contains("delete") && r.contains(" 200 "))
        .noneMatch(r -> r.contains(bobs));
  }

  @Test
  void followShowsNewEventsAsTheyHappen() throws Exception {
    String before = configMap(alice);
    assertThat(delete(alice, before)).isEqualTo(200);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread following =
        new Thread(
            () -> {
              CommandLine cmd = new CommandLine(new Streamplane());
              cmd.setOut(new PrintWriter(out, true));
              cmd.setErr(new PrintWriter(err, true));
              exit.set(
                  cmd.execute(
                      "audit",
                      "--follow",
                      "--user",
                      "alice",
                      "--verb",
                      "delete",
                      "--since",
                      "1h",
                      "--bootstrap-server",
                      bootstrap,
                      "--cluster",
                      cluster));
            },
            "audit-follow");
    following.start();
    try {
      await("the earlier delete, from the history")
          .atMost(WAIT)
          .until(() -> out.toString().contains(before));
      String after = configMap(alice);
      assertThat(delete(alice, after)).isEqualTo(200);
      await("the new delete, followed").atMost(WAIT).until(() -> out.toString().contains(after));
      assertThat(out.toString().lines().filter(l -> l.startsWith("TIME")).count())
          .as("one header")
          .isEqualTo(1);
    } finally {
      following.interrupt();
      following.join(10_000);
    }
    assertThat(following.isAlive()).isFalse();
    assertThat(exit.get()).as(err.toString()).isZero();
  }

  // ---------------------------------------------------------------- helpers

  private void writeHistory() throws Exception {
    List<AuditEvent> events = new ArrayList<>();
    UserInfo carol = user("carol", "devs");
    UserInfo dave = user("dave", "ops");
    events.add(
        event(
            "id-c1",
            "RequestReceived",
            carol,
            "update",
            "deployments",
            "apps",
            "prod",
            "web",
            0,
            0,
            0));
    events.add(
        event(
            "id-c1",
            "ResponseComplete",
            carol,
            "update",
            "deployments",
            "apps",
            "prod",
            "web",
            60,
            40,
            200));
    events.add(
        event("id-c2", "ResponseComplete", carol, "get", "pods", null, "prod", "p", 120, 10, 200));
    events.add(
        event(
            "id-dave",
            "ResponseComplete",
            dave,
            "patch",
            "deployments",
            "apps",
            "prod",
            "web",
            180,
            250,
            409));
    events.add(
        event(
            "id-c3",
            "ResponseComplete",
            carol,
            "delete",
            "configmaps",
            null,
            "dev",
            "c",
            240,
            5,
            200));
    events.add(
        event(
            "id-c4",
            "ResponseComplete",
            carol,
            "delete",
            "configmaps",
            null,
            "dev",
            "d",
            600,
            5,
            200));
    AuditEvent unauthenticated =
        event(
            "id-anon",
            "ResponseStarted",
            user("", null),
            "list",
            "pods",
            null,
            null,
            null,
            300,
            1,
            401);
    events.add(unauthenticated);
    try (KafkaProducer<String, AuditEvent> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new StringSerializer(),
            topics.audit().valueSerde().serializer())) {
      // Written newest first: the output is ordered by time, not by offset.
      java.util.Collections.reverse(events);
      for (AuditEvent e : events) {
        producer
            .send(
                new ProducerRecord<>(
                    topics.audit().name(),
                    null,
                    e.getStageTimestamp().toEpochMilli(),
                    e.getAuditID(),
                    e))
            .get();
      }
    }
  }

  private static AuditEvent event(
      String id,
      String stage,
      UserInfo user,
      String verb,
      String resource,
      String group,
      String namespace,
      String name,
      int second,
      int latencyMillis,
      int code) {
    Instant received = T0.plusSeconds(second);
    return AuditEvent.newBuilder()
        .setLevel("Request")
        .setAuditID(id)
        .setStage(stage)
        .setRequestURI("/apis/x")
        .setVerb(verb)
        .setUser(user)
        .setObjectRef(
            ObjectRef.newBuilder()
                .setResource(resource)
                .setApiGroup(group)
                .setApiVersion("v1")
                .setNamespace(namespace)
                .setName(name)
                .build())
        .setResponseStatus(
            stage.equals("RequestReceived")
                ? null
                : ResponseStatus.newBuilder()
                    .setCode(code)
                    .setReason(code == 409 ? "Conflict" : null)
                    .build())
        .setRequestObject(code == 409 ? "{\"spec\":{\"replicas\":3}}" : null)
        .setRequestReceivedTimestamp(received)
        .setStageTimestamp(received.plusMillis(latencyMillis))
        .build();
  }

  private static UserInfo user(String name, String group) {
    return UserInfo.newBuilder()
        .setUsername(name)
        .setGroups(group == null ? List.of() : List.of(group))
        .build();
  }

  private GatewayServer gateway(String name, String group, int replyPartition, Path dir)
      throws Exception {
    return GatewayServer.start(
        bootstrap,
        topics,
        "127.0.0.1",
        0,
        replyPartition,
        dir.resolve("history-" + name),
        new RequestChain(
            new Authentication(
                List.of(
                    new FixedUser(
                        UserInfo.newBuilder()
                            .setUsername(name)
                            .setGroups(List.of(group, "system:masters"))
                            .build())),
                false),
            new Authorization(List.of(new PrivilegedGroups())),
            Admission.none()),
        AuditPolicy.everything(AuditLevel.Metadata));
  }

  private String configMap(GatewayServer on) {
    String name = "cm-" + names.incrementAndGet();
    HttpResponse<String> created =
        send(
            on,
            HttpRequest.newBuilder(URI.create(on.url() + "/api/v1/namespaces/default/configmaps"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
                            + name
                            + "\"}}")));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    return name;
  }

  private int delete(GatewayServer on, String name) {
    return send(
            on,
            HttpRequest.newBuilder(
                    URI.create(on.url() + "/api/v1/namespaces/default/configmaps/" + name))
                .DELETE())
        .statusCode();
  }

  private HttpResponse<String> send(GatewayServer on, HttpRequest.Builder request) {
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private record Run(int exit, String out, String err) {}

  private Run audit(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(new Streamplane());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>(List.of("audit"));
    all.addAll(List.of(args));
    all.addAll(List.of("--bootstrap-server", bootstrap, "--cluster", cluster));
    int exit = cmd.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  /** The time {@code seconds} after T0, as the table prints it. */
  private static String at(int seconds) {
    return T0.plusSeconds(seconds).toString();
  }

  private static List<String> rows(Run run) {
    return run.out.lines().filter(l -> !l.startsWith("TIME")).toList();
  }
}
