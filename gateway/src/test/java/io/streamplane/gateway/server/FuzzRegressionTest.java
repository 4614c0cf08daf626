package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
