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
      if (t.measured()) {
        continue; // metrics.k8s.io is not published, as metrics-server publishes none
      }
      JsonNode kind = definitions.path(KubernetesDefinitions.definitionName(t));
      assertThat(kind.path("x-kubernetes-group-version-kind").get(0).path("kind").asText())
          .as(t.kind())
          .isEqualTo(t.kind());
    }
    for (String ref : KubernetesDefinitionsTest.refs(DOC)) {
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

  @Test
  void theProtobufFormCarriesTheDefinitionsAndTheirPatchExtensions() throws Exception {
    var document = OpenApiV2Protobuf.decode(OpenApiV2Protobuf.encode(DOC));
    var type = OpenApiV2Protobuf.message("Document");
    assertThat(document.getField(type.findFieldByName("swagger"))).isEqualTo("2.0");

    var podSpec =
        named(
            (com.google.protobuf.Message) document.getField(type.findFieldByName("definitions")),
            "io.k8s.api.core.v1.PodSpec");
    var containers =
        named(
            (com.google.protobuf.Message)
                podSpec.getField(podSpec.getDescriptorForType().findFieldByName("properties")),
            "containers");
    java.util.Map<String, String> extensions = new java.util.TreeMap<>();
    var vendor = containers.getDescriptorForType().findFieldByName("vendor_extension");
    for (int i = 0; i < containers.getRepeatedFieldCount(vendor); i++) {
      var pair = (com.google.protobuf.Message) containers.getRepeatedField(vendor, i);
      var any =
          (com.google.protobuf.Message)
              pair.getField(pair.getDescriptorForType().findFieldByName("value"));
      extensions.put(
          (String) pair.getField(pair.getDescriptorForType().findFieldByName("name")),
          (String) any.getField(any.getDescriptorForType().findFieldByName("yaml")));
    }
    assertThat(extensions)
        .containsEntry("x-kubernetes-patch-merge-key", "\"name\"\n")
        .containsEntry("x-kubernetes-patch-strategy", "\"merge\"\n");
  }

  /** The value of the pair named {@code name} in a message of Named* pairs. */
  private static com.google.protobuf.Message named(com.google.protobuf.Message list, String name) {
    var field = list.getDescriptorForType().findFieldByName("additional_properties");
    for (int i = 0; i < list.getRepeatedFieldCount(field); i++) {
      var pair = (com.google.protobuf.Message) list.getRepeatedField(field, i);
      if (name.equals(pair.getField(pair.getDescriptorForType().findFieldByName("name")))) {
        return (com.google.protobuf.Message)
            pair.getField(pair.getDescriptorForType().findFieldByName("value"));
      }
    }
    throw new AssertionError("no " + name);
  }
}
