package io.streamplane.gateway.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.FixedUser;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.gateway.server.RequestChain;
import io.streamplane.gateway.testing.TestPlane;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.UserInfo;
import io.streamplane.topics.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests to a real gateway (real store, embedded broker) produce their audit events on the {@code
 * audit} topic: the stages, level, user, objectRef, response status and bodies the policy asks for,
 * under the id the gateway answers in {@code Audit-Id} and writes into the command, exec, attach
 * and port-forward included. Two gateways: one where every request is alice (in system:masters, so
 * she may impersonate anyone; nobody else is allowed anything), one that accepts no credentials at
 * all (every request 401).
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final UserInfo ALICE =
      UserInfo.newBuilder()
          .setUsername("alice")
          .setGroups(List.of("devs", "system:masters"))
          .build();
  private static final String POLICY =
      """
      apiVersion: audit.k8s.io/v1
      kind: Policy
      rules:
        - level: None
          nonResourceURLs: ["/healthz*"]
        - level: RequestResponse
          resources: [{group: "", resources: [pods]}]
        - level: Request
          resources: [{group: "", resources: [configmaps]}]
        - level: Metadata
      """;

  private final HttpClient http = HttpClient.newHttpClient();
  private final Map<String, List<AuditEvent>> events = new ConcurrentHashMap<>();
  private final List<ResourceCommand> commands = new CopyOnWriteArrayList<>();
  private TestPlane plane;
  private Topics topics;
  private GatewayServer gateway;
  private GatewayServer refusing;
  private Thread reader;
  private volatile boolean reading = true;

  @BeforeAll
  void start(EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
    plane = TestPlane.start(broker, "audit", dir.resolve("store"));
    String bootstrap = plane.bootstrap();
    topics = plane.topics();
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(policy, POLICY);
    gateway =
        GatewayServer.start(
            bootstrap,
            topics,
            "127.0.0.1",
            0,
            0,
            dir.resolve("history"),
            new RequestChain(
                new Authentication(List.of(new FixedUser(ALICE)), false),
                new Authorization(List.of(new PrivilegedGroups())),
                Admission.none()),
            AuditPolicy.load(policy));
    refusing =
        GatewayServer.start(
            bootstrap,
            topics,
            "127.0.0.1",
            0,
            1,
            dir.resolve("history-refusing"),
            new RequestChain(
                new Authentication(List.of(), false),
                new Authorization(List.of(new PrivilegedGroups())),
                Admission.none()),
            AuditPolicy.everything(AuditLevel.Metadata));
    gateway.ensureSystemNamespaces(ALICE);
    reader = new Thread(() -> read(bootstrap), "audit-reader");
    reader.start();
  }

  @AfterAll
  void stop() throws Exception {
    reading = false;
    if (reader != null) {
      reader.join(10_000);
    }
    TestPlane.closeAll(gateway, refusing, plane);
  }

  @Test
  void aCreateAtRequestResponseRecordsBothBodiesUnderTheAnsweredAuditIdWhichTheCommandCarries()
      throws Exception {
    String pod =
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
         "spec":{"containers":[{"name":"c","image":"nginx"}]}}
        """;
    HttpResponse<String> created =
        send("POST", gateway, "/api/v1/namespaces/default/pods", pod, "application/json");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String auditId = created.headers().firstValue("Audit-Id").orElseThrow();

    List<AuditEvent> stages = awaitStages(auditId, 2);
    assertThat(stages)
        .extracting(AuditEvent::getStage)
        .containsExactly("RequestReceived", "ResponseComplete");
    AuditEvent complete = stages.get(1);
    assertThat(complete.getLevel()).isEqualTo("RequestResponse");
    assertThat(complete.getVerb()).isEqualTo("create");
    assertThat(complete.getUser().getUsername()).isEqualTo("alice");
    assertThat(complete.getUser().getGroups()).contains("devs", "system:authenticated");
    assertThat(complete.getRequestURI()).isEqualTo("/api/v1/namespaces/default/pods");
    assertThat(complete.getSourceIPs()).containsExactly("127.0.0.1");
    assertThat(complete.getObjectRef().getResource()).isEqualTo("pods");
    assertThat(complete.getObjectRef().getNamespace()).isEqualTo("default");
    assertThat(complete.getObjectRef().getName()).as("named from the body").isEqualTo("web");
    assertThat(complete.getObjectRef().getApiVersion()).isEqualTo("v1");
    assertThat(complete.getResponseStatus().getCode()).isEqualTo(201);
    assertThat(complete.getAnnotations()).containsEntry("authorization.k8s.io/decision", "allow");
    assertThat(JSON.readTree(complete.getRequestObject()).at("/spec/containers/0/image").asText())
        .isEqualTo("nginx");
    JsonNode response = JSON.readTree(complete.getResponseObject());
    assertThat(response.at("/metadata/uid").asText())
        .isEqualTo(JSON.readTree(created.body()).at("/metadata/uid").asText());
    assertThat(complete.getStageTimestamp())
        .isAfterOrEqualTo(complete.getRequestReceivedTimestamp());
    assertThat(stages.get(0).getRequestObject()).as("bodies come with the last stage").isNull();
    await("the create command carrying the audit id " + auditId)
        .atMost(WAIT)
        .until(() -> commands.stream().anyMatch(c -> auditId.equals(c.getAuditId())));
  }

  @Test
  void aFailedReadAtMetadataRecordsTheStatusButNoBodies() {
    HttpResponse<String> missing =
        send("GET", gateway, "/apis/apps/v1/namespaces/default/deployments/none", null, null);
    assertThat(missing.statusCode()).isEqualTo(404);

    AuditEvent complete =
        awaitStages(missing.headers().firstValue("Audit-Id").orElseThrow(), 2).get(1);
    assertThat(complete.getLevel()).isEqualTo("Metadata");
    assertThat(complete.getVerb()).isEqualTo("get");
    assertThat(complete.getObjectRef().getApiGroup()).isEqualTo("apps");
    assertThat(complete.getObjectRef().getName()).isEqualTo("none");
    assertThat(complete.getResponseStatus().getCode()).isEqualTo(404);
    assertThat(complete.getResponseStatus().getReason()).isEqualTo("NotFound");
    assertThat(complete.getResponseStatus().getStatus()).isEqualTo("Failure");
    assertThat(complete.getRequestObject()).isNull();
    assertThat(complete.getResponseObject()).isNull();
  }

  @Test
  void aRequestLevelUpdateRecordsTheRequestBodyOnly() throws Exception {
    HttpResponse<String> created =
        send(
            "POST",
            gateway,
            "/api/v1/namespaces/default/configmaps",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n",
            "application/yaml");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

    AuditEvent complete =
        awaitStages(created.headers().firstValue("Audit-Id").orElseThrow(), 2).get(1);
    assertThat(complete.getLevel()).isEqualTo("Request");
    assertThat(JSON.readTree(complete.getRequestObject()).at("/data/a").asText())
        .as("YAML recorded as JSON")
        .isEqualTo("b");
    assertThat(complete.getResponseObject()).isNull();
  }

  @Test
  void aWatchRecordsResponseStartedWhenItBeginsAndResponseCompleteWhenItEnds() {
    HttpResponse<String> watched =
        send(
            "GET",
            gateway,
            "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1",
            null,
            null);
    assertThat(watched.statusCode()).isEqualTo(200);

    List<AuditEvent> stages =
        awaitStages(watched.headers().firstValue("Audit-Id").orElseThrow(), 3);
    assertThat(stages)
        .extracting(AuditEvent::getStage)
        .containsExactly("RequestReceived", "ResponseStarted", "ResponseComplete");
    assertThat(stages.get(1).getResponseStatus().getCode()).isEqualTo(200);
    assertThat(stages.get(2).getStageTimestamp())
        .as("the watch lasted its timeout")
        .isAfterOrEqualTo(stages.get(1).getStageTimestamp().plusMillis(900));
    assertThat(stages.get(2).getResponseObject()).as("a stream is no object").isNull();
  }

  @Test
  void anExecImpersonatingAUserWithoutPermissionIsForbiddenAndAuditedWithBothUsers()
      throws Exception {
    HttpResponse<String> refused =
        http(
            HttpRequest.newBuilder(
                    URI.create(
                        gateway.url()
                            + "/api/v1/namespaces/default/pods/x/exec?command=sh&stdout=true"))
                .header("Impersonate-User", "bob")
                .GET()
                .build());
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(refused.body()).path("message").asText())
        .isEqualTo(
            "pods \"x\" is forbidden: User \"bob\" cannot create resource \"pods/exec\" in API"
                + " group \"\" in the namespace \"default\"");

    List<AuditEvent> stages =
        awaitStages(refused.headers().firstValue("Audit-Id").orElseThrow(), 3);
    assertThat(stages)
        .extracting(AuditEvent::getStage)
        .containsExactly("RequestReceived", "ResponseStarted", "ResponseComplete");
    AuditEvent complete = stages.get(2);
    assertThat(complete.getVerb()).isEqualTo("create");
    assertThat(complete.getObjectRef().getSubresource()).isEqualTo("exec");
    assertThat(complete.getObjectRef().getName()).isEqualTo("x");
    assertThat(complete.getUser().getUsername()).isEqualTo("alice");
    assertThat(complete.getImpersonatedUser().getUsername()).isEqualTo("bob");
    assertThat(complete.getResponseStatus().getCode()).isEqualTo(403);
    assertThat(complete.getResponseStatus().getReason()).isEqualTo("Forbidden");
    assertThat(complete.getAnnotations()).containsEntry("authorization.k8s.io/decision", "forbid");
  }

  @Test
  void execAttachAndPortForwardOfAnAllowedUserAreAuditedAsACreateOfTheirSubresource() {
    for (String subresource : List.of("exec", "attach", "portforward")) {
      HttpResponse<String> answer =
          http(
              HttpRequest.newBuilder(
                      URI.create(
                          gateway.url()
                              + "/api/v1/namespaces/default/pods/absent/"
                              + subresource
                              + "?command=sh&stdout=true"))
                  .header("Impersonate-User", "carol")
                  .header("Impersonate-Group", "system:masters")
                  .method(
                      subresource.equals("portforward") ? "POST" : "GET",
                      HttpRequest.BodyPublishers.noBody())
                  .build());
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(404);

      List<AuditEvent> stages =
          awaitStages(answer.headers().firstValue("Audit-Id").orElseThrow(), 3);
      assertThat(stages)
          .extracting(AuditEvent::getStage)
          .containsExactly("RequestReceived", "ResponseStarted", "ResponseComplete");
      AuditEvent complete = stages.get(2);
      assertThat(complete.getVerb()).isEqualTo("create");
      assertThat(complete.getObjectRef().getResource()).isEqualTo("pods");
      assertThat(complete.getObjectRef().getSubresource()).isEqualTo(subresource);
      assertThat(complete.getUser().getUsername()).isEqualTo("alice");
      assertThat(complete.getImpersonatedUser().getUsername()).isEqualTo("carol");
      assertThat(complete.getImpersonatedUser().getGroups())
          .containsExactly("system:masters", "system:authenticated");
      assertThat(complete.getAnnotations()).containsEntry("authorization.k8s.io/decision", "allow");
      assertThat(complete.getResponseStatus().getReason()).isEqualTo("NotFound");
    }
  }

  @Test
  void theClientsAuditIdIsKept() {
    String id = UUID.randomUUID().toString();
    HttpResponse<String> answer =
        http(
            HttpRequest.newBuilder(URI.create(gateway.url() + "/api/v1/namespaces/default/pods"))
                .header("Audit-ID", id)
                .GET()
                .build());
    assertThat(answer.headers().firstValue("Audit-Id")).hasValue(id);
    assertThat(awaitStages(id, 2).get(1).getVerb()).isEqualTo("list");
  }

  @Test
  void aRefusedAuthenticationIsOneResponseStartedEventWithoutAUser() {
    HttpResponse<String> refused =
        http(
            HttpRequest.newBuilder(URI.create(refusing.url() + "/api/v1/namespaces/default/pods"))
                .header("Authorization", "Bearer not-a-token")
                .DELETE()
                .build());
    assertThat(refused.statusCode()).isEqualTo(401);

    List<AuditEvent> stages =
        awaitStages(refused.headers().firstValue("Audit-Id").orElseThrow(), 1);
    AuditEvent event = stages.get(0);
    assertThat(event.getStage()).isEqualTo("ResponseStarted");
    assertThat(event.getUser().getUsername()).isEmpty();
    assertThat(event.getVerb()).isEqualTo("deletecollection");
    assertThat(event.getResponseStatus().getCode()).isEqualTo(401);
    assertThat(event.getResponseStatus().getMessage())
        .isEqualTo("Authentication failed, attempted: bearer");
  }

  @Test
  void aRequestAtLevelNoneWritesNothing() {
    String id = UUID.randomUUID().toString();
    HttpResponse<String> probe =
        http(
            // One check: this bare gateway writes no defaults, so its post-start hooks never pass.
            HttpRequest.newBuilder(URI.create(gateway.url() + "/healthz/ping"))
                .header("Audit-ID", id)
                .GET()
                .build());
    assertThat(probe.statusCode()).isEqualTo(200);
    // A later audited request, written after the probe, proves the probe's turn has passed.
    String later = UUID.randomUUID().toString();
    http(
        HttpRequest.newBuilder(URI.create(gateway.url() + "/api/v1/namespaces"))
            .header("Audit-ID", later)
            .GET()
            .build());
    awaitStages(later, 2);
    assertThat(events.get(id)).isNull();
  }

  // ---------------------------------------------------------------- helpers

  private List<AuditEvent> awaitStages(String auditId, int count) {
    await("audit events of " + auditId)
        .atMost(WAIT)
        .until(() -> events.getOrDefault(auditId, List.of()).size() >= count);
    return new ArrayList<>(events.get(auditId));
  }

  private void read(String bootstrap) {
    try (KafkaConsumer<String, AuditEvent> audit =
            new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringDeserializer(),
                topics.audit().valueSerde().deserializer());
        KafkaConsumer<String, ResourceCommand> command =
            new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringDeserializer(),
                topics.commands().valueSerde().deserializer())) {
      audit.assign(partitions(audit, topics.audit().name()));
      audit.seekToBeginning(audit.assignment());
      command.assign(partitions(command, topics.commands().name()));
      command.seekToBeginning(command.assignment());
      while (reading) {
        for (ConsumerRecord<String, AuditEvent> r : audit.poll(Duration.ofMillis(100))) {
          assertThat(r.key()).isEqualTo(r.value().getAuditID());
          events.computeIfAbsent(r.key(), k -> new CopyOnWriteArrayList<>()).add(r.value());
        }
        for (ConsumerRecord<String, ResourceCommand> r : command.poll(Duration.ofMillis(10))) {
          commands.add(r.value());
        }
      }
    }
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    List<TopicPartition> tps = new ArrayList<>();
    for (PartitionInfo p : consumer.partitionsFor(topic)) {
      tps.add(new TopicPartition(topic, p.partition()));
    }
    return tps;
  }

  private HttpResponse<String> send(
      String method, GatewayServer on, String path, String body, String contentType) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(on.url() + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    return http(request.build());
  }

  private HttpResponse<String> http(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
