package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class OpenApiV2Test {

  private static final ObjectNode DOC = new OpenApiV2(ResourceRegistry.kubernetes()).document();

  @Test
  void isSwagger2WithEveryServedKindTagged() {
    assertThat(DOC.path("swagger").asText()).isEqualTo("2.0");
    JsonNode definitions = DOC.path("definitions");
    for (ResourceType t : ResourceRegistry.kubernetes().all()) {
      JsonNode kind = definitions.path(KubernetesDefinitions.definitionName(t));
      assertThat(kind.path("x-kubernetes-group-version-kind").get(0).path("kind").asText())
          .as(t.kind())
          .isEqualTo(t.kind());
    }
    for (String ref : DOC.findValuesAsText("$ref")) {
      assertThat(definitions.has(ref.substring("#/definitions/".length()))).as(ref).isTrue();
    }
  }

  @Test
  void patchOperationsNameTheirKindAndTheStrategicMergePatchType() {
    JsonNode patch =
        DOC.path("paths")
            .path("/apis/apps/v1/namespaces/{namespace}/deployments/{name}")
            .path("patch");
    assertThat(patch.path("x-kubernetes-group-version-kind").path("kind").asText())
        .isEqualTo("Deployment");
    assertThat(patch.path("consumes").toString())
        .contains("application/strategic-merge-patch+json");
    assertThat(patch.path("parameters").findValuesAsText("name"))
        .contains("fieldValidation", "body");
  }

  @Test
  void jsonIsServedToJsonAndWildcardAcceptsButNotToProtobufOnly() {
    assertThat(OpenApiV2.acceptsJson(null)).isTrue();
    assertThat(OpenApiV2.acceptsJson("application/json")).isTrue();
    assertThat(OpenApiV2.acceptsJson(OpenApiV2.PROTOBUF + ", */*;q=0.1")).isTrue();
    assertThat(OpenApiV2.acceptsJson(OpenApiV2.PROTOBUF)).isFalse();
    assertThat(OpenApiV2.acceptsJson("application/yaml")).isFalse();
  }
}
