package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway's HTTP handler on what it answers before storage is reached (no broker here): the
 * shape of its bodies as kube-apiserver writes them.
 */
class ApiHandlerTest {

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
  void statusErrorBodiesEndWithANewline() throws Exception {
    HttpResponse<String> forbidden = send("DELETE", "/api/v1/namespaces/default");
    HttpResponse<String> notFound = send("GET", "/api/v1/nothings");

    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).startsWith("{\"kind\":\"Status\"").endsWith("}\n");
    assertThat(notFound.statusCode()).isEqualTo(404);
    assertThat(notFound.body()).startsWith("{\"kind\":\"Status\"").endsWith("}\n");
  }

  @Test
  void objectBodiesEndWithANewlineToo() throws Exception {
    HttpResponse<String> version = send("GET", "/version");

    assertThat(version.statusCode()).isEqualTo(200);
    assertThat(version.body()).endsWith("}\n");
  }

  @Test
  void aBodyOfAnotherKindIsUnrecognizedAsKubeApiserverSaysIt() throws Exception {
    // kubectl's own tests post a Pod to the namespaces and expect this wording.
    HttpResponse<String> posted =
        handler.sendJson(
            "POST",
            "/api/v1/namespaces",
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"valid-pod\"}}");

    assertThat(posted.statusCode()).isEqualTo(400);
    assertThat(posted.body())
        .contains(
            "the object provided is unrecognized (must be of type Namespace): the kind in the"
                + " data (Pod) does not match the expected kind (Namespace)"
                + " ({\\\"apiVersion\\\":\\\"v1\\\",\\\"kind\\\":\\\"Pod ...)");
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    return handler.send(method, path);
  }
}
