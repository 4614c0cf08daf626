package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.apiextensions.CustomResources;
import org.junit.jupiter.api.Test;

class CustomResourceSchemasTest {

  private static final String CRD =
      """
      {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "crontabs.stable.example.com"},
       "spec": {"group": "stable.example.com", "scope": "Namespaced",
         "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                   "listKind": "CronTabList"},
         "versions": [{"name": "v1", "served": true, "storage": true,
           "schema": {"openAPIV3Schema": {"type": "object", "description": "A cron table.",
             "properties": {
               "spec": {"type": "object", "description": "What the table runs.",
                 "x-kubernetes-validations": [{"rule": "self.replicas >= 0"}],
                 "properties": {
                   "cronSpec": {"type": "string", "description": "When it runs."},
                   "port": {"x-kubernetes-int-or-string": true, "anyOf": [
                     {"type": "integer"}, {"type": "string"}]},
                   "replicas": {"type": "integer", "nullable": true}}}}}}}]},
       "status": {"conditions": [{"type": "Established", "status": "True"}]}}
      """;

  private static ObjectNode crd(String json) throws Exception {
    return (ObjectNode) new ObjectMapper().readTree(json);
  }

  private static ResourceRegistry serving(String crd) throws Exception {
    ResourceRegistry registry = ResourceRegistry.kubernetes();
    registry.serveCustom(CustomResources.rows(crd(crd)));
    return registry;
  }

  @Test
  void aCustomKindHasItsSchemaWithDescriptionsUnderItsRestFriendlyName() throws Exception {
    OpenApiV3 openApi = new OpenApiV3(serving(CRD));
    assertThat(openApi.index().path("paths").has("apis/stable.example.com/v1")).isTrue();
    JsonNode schemas =
        openApi
            .document("apis/stable.example.com/v1")
            .orElseThrow()
            .path("components")
            .path("schemas");
    JsonNode kind = schemas.path("com.example.stable.v1.CronTab");
    assertThat(kind.path("description").asText()).isEqualTo("A cron table.");
    assertThat(
            kind.path("properties")
                .path("spec")
                .path("properties")
                .path("cronSpec")
                .path("description")
                .asText())
        .isEqualTo("When it runs.");
    assertThat(kind.path("properties").path("metadata").path("allOf").get(0).path("$ref").asText())
        .isEqualTo("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    assertThat(kind.path("x-kubernetes-group-version-kind").get(0).path("kind").asText())
        .isEqualTo("CronTab");
    assertThat(schemas.has("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")).isTrue();
    assertThat(schemas.has("io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta")).isTrue();
    assertThat(
            schemas
                .path("com.example.stable.v1.CronTabList")
                .path("properties")
                .path("items")
                .path("items")
                .path("$ref")
                .asText())
        .isEqualTo("#/components/schemas/com.example.stable.v1.CronTab");
    JsonNode patch =
        openApi
            .document("apis/stable.example.com/v1")
            .orElseThrow()
            .path("paths")
            .path("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}")
            .path("patch");
    assertThat(patch.path("parameters").findValuesAsText("name")).contains("fieldValidation");
    assertThat(patch.path("requestBody").path("content").has("application/merge-patch+json"))
        .isTrue();
    assertThat(
            patch.path("requestBody").path("content").has("application/strategic-merge-patch+json"))
        .as("kubectl must not compute a strategic merge patch for a custom kind")
        .isFalse();
  }

  @Test
  void aChangedDefinitionChangesItsDocumentAndHashAndADeletedOneIsGone() throws Exception {
    ResourceRegistry registry = serving(CRD);
    OpenApiV3 openApi = new OpenApiV3(registry);
    String before = openApi.hash("apis/stable.example.com/v1");
    registry.serveCustom(
        CustomResources.rows(crd(CRD.replace("When it runs.", "When the table runs."))));
    assertThat(openApi.hash("apis/stable.example.com/v1")).isNotEqualTo(before);
    assertThat(openApi.document("apis/stable.example.com/v1").orElseThrow().toString())
        .contains("When the table runs.");
    registry.serveCustom(java.util.List.of());
    assertThat(openApi.index().path("paths").has("apis/stable.example.com/v1")).isFalse();
    assertThat(openApi.index().path("paths").has("apis/apps/v1")).isTrue();
  }

  @Test
  void swagger2HasTheKindWithoutWhatSwagger2CannotSayAndKeepsBuiltInDefinitions() throws Exception {
    ResourceRegistry registry = serving(CRD);
    OpenApiV2 openApi = new OpenApiV2(registry);
    JsonNode definitions = openApi.document().path("definitions");
    JsonNode spec =
        definitions.path("com.example.stable.v1.CronTab").path("properties").path("spec");
    assertThat(spec.has("x-kubernetes-validations")).isFalse();
    assertThat(spec.path("properties").path("port").has("type")).isFalse();
    assertThat(spec.path("properties").path("port").has("anyOf")).isFalse();
    assertThat(spec.path("properties").path("replicas").has("nullable")).isFalse();
    assertThat(
            definitions
                .path("com.example.stable.v1.CronTab")
                .path("properties")
                .path("metadata")
                .path("$ref")
                .asText())
        .isEqualTo("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    assertThat(
            openApi
                .document()
                .path("paths")
                .has("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"))
        .isTrue();
    assertThat(definitions.has("io.k8s.api.apps.v1.Deployment")).isTrue();
    assertThat(
            definitions
                .path("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
                .path("properties")
                .path("ownerReferences")
                .has("x-kubernetes-patch-merge-key"))
        .as("the built-in ObjectMeta, with its patch extensions")
        .isTrue();
    assertThat(OpenApiV2Protobuf.encode(openApi.document())).isEqualTo(openApi.protobuf());
  }
}
