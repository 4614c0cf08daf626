package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.gateway.api.OpenApiV2;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** How {@code /openapi/v2} and {@code /openapi/v3} are negotiated and cached over HTTP. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiHandlerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private BrokerlessHandler handler;

  @BeforeAll
  void start() throws Exception {
    handler = new BrokerlessHandler();
  }

  @AfterAll
  void stop() {
    handler.close();
  }

  @Test
  void swagger2IsServedAsJsonAndAsProtobufAndNothingElse() throws Exception {
    HttpResponse<String> json = handler.send("GET", "/openapi/v2", "application/json");
    assertThat(json.statusCode()).isEqualTo(200);
    assertThat(json.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode doc = JSON.readTree(json.body());
    assertThat(doc.path("swagger").asText()).isEqualTo("2.0");
    assertThat(doc.path("definitions").has("io.k8s.api.core.v1.PodSpec")).isTrue();

    HttpResponse<String> protobuf = handler.send("GET", "/openapi/v2", OpenApiV2.PROTOBUF);
    assertThat(protobuf.statusCode()).isEqualTo(200);
    assertThat(protobuf.headers().firstValue("Content-Type"))
        .hasValue("application/com.github.proto-openapi.spec.v2.v1.0+protobuf");

    HttpResponse<String> yaml = handler.send("GET", "/openapi/v2", "application/yaml");
    assertThat(yaml.statusCode()).isEqualTo(406);
    assertThat(JSON.readTree(yaml.body()).path("reason").asText()).isEqualTo("NotAcceptable");
  }

  @Test
  void aCurrentHashIsImmutableAStaleOneRedirectsToTheCurrentUrl() throws Exception {
    String url =
        JSON.readTree(handler.send("GET", "/openapi/v3").body())
            .path("paths")
            .path("apis/apps/v1")
            .path("serverRelativeURL")
            .asText();
    HttpResponse<String> current = handler.send("GET", url);
    assertThat(current.statusCode()).isEqualTo(200);
    assertThat(current.headers().firstValue("Cache-Control")).hasValue("public, immutable");
    assertThat(
            JSON.readTree(current.body())
                .path("components")
                .path("schemas")
                .has("io.k8s.api.apps.v1.Deployment"))
        .isTrue();

    HttpResponse<String> stale = handler.send("GET", "/openapi/v3/apis/apps/v1?hash=ABC");
    assertThat(stale.statusCode()).isEqualTo(301);
    assertThat(stale.headers().firstValue("Location")).hasValue(url);

    HttpResponse<String> unhashed = handler.send("GET", "/openapi/v3/apis/apps/v1");
    assertThat(unhashed.statusCode()).isEqualTo(200);
    assertThat(unhashed.headers().firstValue("Cache-Control")).hasValue("no-cache, private");

    assertThat(handler.send("GET", "/openapi/v3/apis/autoscaling/v2beta2").statusCode())
        .isEqualTo(404);
  }
}
