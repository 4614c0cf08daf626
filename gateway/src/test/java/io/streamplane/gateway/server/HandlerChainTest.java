package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.audit.AuditLevel;
import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.audit.Auditor;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.BearerToken;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.AuthorizationIndex;
import io.streamplane.gateway.authz.BootstrapPolicy;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.log.AuditEvent;
import io.streamplane.log.UserInfo;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The filters of the {@link HandlerChain} around an endpoint that only says what reached it, on a
 * real Jetty server without a broker: the cluster's authorizers (system:masters, RBAC over
 * Kubernetes' default roles) with alice an admin, bob bound to the view ClusterRole and carol to
 * edit, bearer tokens for each, and every request audited at Metadata into a list.
 */
class HandlerChainTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, UserInfo> TOKENS =
      Map.of(
          "alice-token", user("alice", "system:masters"),
          "bob-token", user("bob"),
          "carol-token", user("carol"));

  private final List<AuditEvent> events = new CopyOnWriteArrayList<>();
  private final List<Request> reached = new CopyOnWriteArrayList<>();
  private final HttpClient client = HttpClient.newHttpClient();
  private Server server;
  private ServerConnector connector;
  private volatile RuntimeException failure;

  @BeforeEach
  void start() throws Exception {
    AuthorizationIndex index = new AuthorizationIndex();
    for (BootstrapPolicy.Item item : BootstrapPolicy.kubernetes().items()) {
      index.put(item.resource(), item.object());
    }
    index.put("clusterrolebindings", binding("bob-view", "view", "bob"));
    index.put("clusterrolebindings", binding("carol-edit", "edit", "carol"));
    RequestChain chain =
        new RequestChain(
            new Authentication(
                List.of(new BearerToken(List.of(token -> Optional.ofNullable(TOKENS.get(token))))),
                false),
            new Authorization(ClusterChain.authorizers(index)),
            Admission.none());
    Auditor auditor =
        new Auditor(AuditPolicy.everything(AuditLevel.Metadata), events::add, Clock.systemUTC());
    Handler endpoint =
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            reached.add(request);
            if (failure != null) {
              throw failure;
            }
            UserInfo user = RequestContext.user(request);
            String seen =
                user.getUsername()
                    + " "
                    + user.getGroups()
                    + " authorization="
                    + request.getHeaders().get("Authorization")
                    + " impersonate="
                    + request.getHeaders().get("Impersonate-User");
            response.setStatus(200);
            Content.Sink.write(response, true, seen, callback);
            return true;
          }
        };
    server = new Server();
    connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    server.setErrorHandler(new StatusErrorHandler());
    server.setHandler(
        HandlerChain.build(
            endpoint, chain, auditor, ResourceRegistry.kubernetes(), Clock.systemUTC()));
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  @Test
  void theEndpointSeesTheAuthenticatedUserButNotTheAuthorizationHeader() throws Exception {
    HttpResponse<String> answer = send("GET", "/api/v1/namespaces/default/pods", "carol-token");

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body())
        .isEqualTo("carol [system:authenticated] authorization=null impersonate=null");
  }

  @Test
  void unknownCredentialsAre401AndAuditedAsAFailedAuthenticationWithoutReachingTheEndpoint()
      throws Exception {
    HttpResponse<String> answer =
        send("POST", "/api/v1/namespaces/default/pods/web/exec?command=sh", "nobody-token");

    assertThat(answer.statusCode()).isEqualTo(401);
    assertThat(JSON.readTree(answer.body()).path("reason").asText()).isEqualTo("Unauthorized");
    assertThat(reached).isEmpty();
    String auditId = answer.headers().firstValue("Audit-Id").orElseThrow();
    assertThat(events).hasSize(1);
    AuditEvent event = events.get(0);
    assertThat(event.getAuditID()).isEqualTo(auditId);
    assertThat(event.getStage()).isEqualTo("ResponseStarted");
    assertThat(event.getUser().getUsername()).isEmpty();
    assertThat(event.getObjectRef().getSubresource()).isEqualTo("exec");
    assertThat(event.getResponseStatus().getMessage())
        .isEqualTo("Authentication failed, attempted: bearer");
  }

  @Test
  void execImpersonatingAViewOnlyUserIsForbiddenInKubeApiserversWordsAndAudited() throws Exception {
    HttpResponse<String> answer =
        send(
            "GET",
            "/api/v1/namespaces/default/pods/x/exec?command=sh&stdout=true",
            "alice-token",
            "Impersonate-User",
            "bob");

    assertThat(answer.statusCode()).isEqualTo(403);
    JsonNode status = JSON.readTree(answer.body());
    assertThat(status.path("reason").asText()).isEqualTo("Forbidden");
    assertThat(status.path("message").asText())
        .isEqualTo(
            "pods \"x\" is forbidden: User \"bob\" cannot create resource \"pods/exec\" in API"
                + " group \"\" in the namespace \"default\"");
    assertThat(reached).isEmpty();
    List<AuditEvent> audited = awaitEvents(3);
    assertThat(audited)
        .extracting(AuditEvent::getStage)
        .containsExactly("RequestReceived", "ResponseStarted", "ResponseComplete");
    AuditEvent complete = audited.get(2);
    assertThat(complete.getVerb()).isEqualTo("create");
    assertThat(complete.getObjectRef().getResource()).isEqualTo("pods");
    assertThat(complete.getObjectRef().getSubresource()).isEqualTo("exec");
    assertThat(complete.getObjectRef().getName()).isEqualTo("x");
    assertThat(complete.getUser().getUsername()).isEqualTo("alice");
    assertThat(complete.getImpersonatedUser().getUsername()).isEqualTo("bob");
    assertThat(complete.getImpersonatedUser().getGroups()).containsExactly("system:authenticated");
    assertThat(complete.getResponseStatus().getCode()).isEqualTo(403);
    assertThat(complete.getResponseStatus().getReason()).isEqualTo("Forbidden");
    assertThat(complete.getAnnotations())
        .containsEntry(WithAuthorization.DECISION_ANNOTATION, "forbid");
  }

  @Test
  void attachAndPortForwardAreACreateOfTheirSubresourceWhateverTheMethod() throws Exception {
    HttpResponse<String> attach =
        send("GET", "/api/v1/namespaces/default/pods/x/attach?stdout=true", "bob-token");
    HttpResponse<String> forward =
        send("POST", "/api/v1/namespaces/default/pods/x/portforward", "bob-token");

    assertThat(attach.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(attach.body()).path("message").asText())
        .contains("cannot create resource \"pods/attach\"");
    assertThat(forward.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(forward.body()).path("message").asText())
        .contains("cannot create resource \"pods/portforward\"");
  }

  @Test
  void anAllowedExecReachesTheEndpointAsTheImpersonatedUserWithoutTheHeaders() throws Exception {
    HttpResponse<String> answer =
        send(
            "GET",
            "/api/v1/namespaces/default/pods/x/exec?command=sh&stdout=true",
            "alice-token",
            "Impersonate-User",
            "carol",
            "Impersonate-Group",
            "devs");

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body())
        .isEqualTo("carol [devs, system:authenticated] authorization=null impersonate=null");
    AuditEvent complete = awaitEvents(3).get(2);
    assertThat(complete.getStage()).isEqualTo("ResponseComplete");
    assertThat(complete.getVerb()).isEqualTo("create");
    assertThat(complete.getImpersonatedUser().getUsername()).isEqualTo("carol");
    assertThat(complete.getAnnotations())
        .containsEntry(WithAuthorization.DECISION_ANNOTATION, "allow");
  }

  @Test
  void aUserWhoMayNotImpersonateIs403BeforeTheEndpoint() throws Exception {
    HttpResponse<String> answer =
        send("GET", "/api/v1/namespaces", "carol-token", "Impersonate-User", "alice");

    assertThat(answer.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(answer.body()).path("message").asText())
        .isEqualTo(
            "users \"alice\" is forbidden: User \"carol\" cannot impersonate resource \"users\" in"
                + " API group \"\" at the cluster scope");
    assertThat(reached).isEmpty();
    assertThat(awaitEvents(2).get(1).getResponseStatus().getCode()).isEqualTo(403);
  }

  @Test
  void groupsWithoutAUserAreABadRequest() throws Exception {
    HttpResponse<String> answer =
        send("GET", "/api/v1/namespaces", "alice-token", "Impersonate-Group", "devs");

    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(answer.body()).path("message").asText())
        .isEqualTo("requested [{Group  devs    }] without impersonating a user");
  }

  @Test
  void anEndpointThatThrowsIsAuditedAsAPanicAndAnswered500() throws Exception {
    failure = new IllegalStateException("boom");

    HttpResponse<String> answer = send("GET", "/api/v1/namespaces/default/pods", "alice-token");

    assertThat(answer.statusCode()).isEqualTo(500);
    assertThat(answer.body()).doesNotContain("at io.streamplane");
    assertThat(events).extracting(AuditEvent::getStage).containsExactly("RequestReceived", "Panic");
    assertThat(events.get(1).getResponseStatus().getMessage())
        .isEqualTo("APIServer panic'd: java.lang.IllegalStateException: boom");
  }

  @Test
  void everyAnswerCarriesTheAuditIdTheClientSent() throws Exception {
    HttpResponse<String> refused =
        send("GET", "/version", "nobody-token", "Audit-ID", "client-chosen-id");

    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.headers().firstValue("Audit-Id")).hasValue("client-chosen-id");
  }

  @Test
  void aBrokenEscapeInTheQueryIsABadRequestStatus() throws Exception {
    // The JDK's client refuses to send such a URI; a socket does not.
    String answer;
    try (Socket socket = new Socket("127.0.0.1", connector.getLocalPort())) {
      socket
          .getOutputStream()
          .write(
              ("GET /api/v1/pods?labelSelector=%zz HTTP/1.1\r\nHost: x\r\n"
                      + "Authorization: Bearer alice-token\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    assertThat(answer).startsWith("HTTP/1.1 400 ").contains("\"kind\":\"Status\"");
    assertThat(reached).isEmpty();
  }

  // ---------------------------------------------------------------- helpers

  /** The first {@code count} audit events, once written: the last when the response completes. */
  private List<AuditEvent> awaitEvents(int count) {
    await("" + count + " audit events")
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.size() >= count);
    return List.copyOf(events);
  }

  private HttpResponse<String> send(String method, String path, String token, String... headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + connector.getLocalPort() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .header("Authorization", "Bearer " + token);
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static UserInfo user(String name, String... groups) {
    return UserInfo.newBuilder().setUsername(name).setGroups(List.of(groups)).build();
  }

  private static ObjectNode binding(String name, String clusterRole, String user) throws Exception {
    return (ObjectNode)
        JSON.readTree(
            JSON.writeValueAsString(
                new YAMLMapper()
                    .readTree(
                        """
                        metadata: {name: %s}
                        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: %s}
                        subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: %s}]
                        """
                            .formatted(name, clusterRole, user))));
  }
}
