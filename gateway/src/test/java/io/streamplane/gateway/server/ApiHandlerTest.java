package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.streamplane.gateway.api.Discovery;
import io.streamplane.gateway.api.OpenApiV3;
import io.streamplane.gateway.api.ResourceRegistry;
import io.streamplane.gateway.api.table.TableConverter;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.schema.convert.KubeJson;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gateway's HTTP handler on what it answers before storage is reached (no broker here): the
 * shape of its bodies as kube-apiserver writes them.
 */
class ApiHandlerTest {

  private final HttpClient client = HttpClient.newHttpClient();
  private HttpServer server;

  @BeforeEach
  void start() throws Exception {
    ResourceRegistry registry = ResourceRegistry.kubernetes();
    ApiHandler handler =
        new ApiHandler(
            registry,
            new ResourceService(null, null, new KubeJson(), Duration.ofSeconds(1)),
            null,
            new Discovery(registry, "test", Instant.parse("2026-11-22T00:00:00Z")),
            new OpenApiV3(registry),
            new TableConverter(Clock.systemUTC()));
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    server.createContext("/", handler);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
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

  private HttpResponse<String> send(String method, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
