package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Requests the API fuzz test once answered with a 5xx or a body that was no Status. */
class FuzzRegressionTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private BrokerlessHandler handler;

  @BeforeEach
  void start() throws Exception {
    handler = new BrokerlessHandler();
  }

  @AfterEach
  void stop() {
    handler.close();
  }

  @Test
  void metadataThatIsNoObjectIsABadRequestWordedAsKubeApiserversDecoder() throws Exception {
    HttpResponse<String> posted =
        handler.sendJson(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":\"x\"}");

    assertThat(posted.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(posted.body()).path("message").asText())
        .isEqualTo(
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal"
                + " string into Go struct field ConfigMap.metadata of type v1.ObjectMeta");
  }

  @Test
  void aWriteToANonResourcePathIsMethodNotAllowed() throws Exception {
    HttpResponse<String> posted = handler.sendJson("POST", "/apis/apps", "{}");

    assertThat(posted.statusCode()).isEqualTo(405);
    JsonNode status = JSON.readTree(posted.body());
    assertThat(status.path("kind").asText()).isEqualTo("Status");
    assertThat(status.path("reason").asText()).isEqualTo("MethodNotAllowed");
  }

  @Test
  void aPatchWhoseContentTypeIsOnlySemicolonsIsAnsweredNotFailed() throws Exception {
    HttpResponse<String> patched =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + handler.port()
                                + "/api/v1/namespaces/default/nothings/x"))
                    .method("PATCH", HttpRequest.BodyPublishers.ofString("{}"))
                    .header("Content-Type", ";;;")
                    .build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(patched.statusCode()).as(patched.body()).isEqualTo(404);
  }

  @Test
  void aBrokenEscapeInTheQueryIsABadRequest() throws Exception {
    String answer = raw(handler.port(), "GET /api/v1/pods?limit=%zz HTTP/1.1");

    assertThat(answer).startsWith("HTTP/1.1 400");
    assertThat(answer).contains("\"kind\":\"Status\"").contains("invalid URL");
  }

  @Test
  void errorsJettyFindsBeforeAnyHandlerAreStatuses() throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    server.setErrorHandler(new StatusErrorHandler());
    server.start();
    try {
      String answer =
          raw(connector.getLocalPort(), "GET /api/v1/namespaces//configmaps/%zz HTTP/1.1");

      assertThat(answer).startsWith("HTTP/1.1 400");
      String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
      JsonNode status = JSON.readTree(body);
      assertThat(status.path("kind").asText()).isEqualTo("Status");
      assertThat(status.path("code").asInt()).isEqualTo(400);
      assertThat(status.path("reason").asText()).isEqualTo("BadRequest");
    } finally {
      server.stop();
    }
  }

  @Test
  void anEmptyImpersonateUserOrUidHeaderIsNoImpersonation() throws Exception {
    for (String header : List.of("Impersonate-User", "Impersonate-Uid")) {
      HttpResponse<String> answer = get("/apis", header, "");

      assertThat(answer.statusCode()).as(header + ": " + answer.body()).isEqualTo(200);
    }
  }

  @Test
  void impersonatingAGroupWithoutAUserIsABadRequestWordedAsKubeApiservers() throws Exception {
    HttpResponse<String> answer = get("/apis", "Impersonate-Group", "system:masters");

    assertThat(answer.statusCode()).isEqualTo(400);
    JsonNode status = JSON.readTree(answer.body());
    assertThat(status.path("reason").asText()).isEqualTo("BadRequest");
    assertThat(status.path("message").asText())
        .isEqualTo("requested [{Group  system:masters    }] without impersonating a user");
  }

  @Test
  void anImpersonatedExtraWithABrokenEscapeInItsKeyKeepsTheKeyAsItIs() throws Exception {
    HttpResponse<String> answer =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + handler.port()
                                + "/apis/authentication.k8s.io/v1/selfsubjectreviews"))
                    .header("Content-Type", "application/json")
                    .header("Impersonate-User", "alice")
                    .header("Impersonate-Group", "system:masters")
                    .header("Impersonate-Extra-Scope%zz", "x")
                    .header("Impersonate-Extra-A%2Bb+c", "y")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"apiVersion\":\"authentication.k8s.io/v1\","
                                + "\"kind\":\"SelfSubjectReview\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
    JsonNode extra = JSON.readTree(answer.body()).at("/status/userInfo/extra");
    assertThat(extra.path("scope%zz").get(0).asText()).isEqualTo("x");
    assertThat(extra.path("a+b+c").get(0).asText()).isEqualTo("y");
  }

  private HttpResponse<String> get(String path, String header, String value) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + handler.port() + path))
                .header(header, value)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static String raw(int port, String requestLine) throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          (requestLine + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
