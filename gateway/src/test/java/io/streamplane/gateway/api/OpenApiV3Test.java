package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OpenApiV3Test {

  private final OpenApiV3 openApi = new OpenApiV3(ResourceRegistry.kubernetes());

  /** What cli-runtime's queryParamVerifierV3 and the apply patcher look for. */
  private static JsonNode patchOperationFor(ObjectNode doc, String group, String kind) {
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("paths").fields(); it.hasNext(); ) {
      JsonNode patch = it.next().getValue().path("patch");
      JsonNode gvk = patch.path("x-kubernetes-group-version-kind");
      if (gvk.path("group").asText().equals(group) && gvk.path("kind").asText().equals(kind)) {
        return patch;
      }
    }
    throw new AssertionError("no PATCH for " + kind);
  }

  @Test
  void indexListsEveryServedGroupVersionWithHashedUrl() {
    JsonNode paths = openApi.index().path("paths");
    assertThat(paths.has("api/v1")).isTrue();
    assertThat(paths.has("apis/apps/v1")).isTrue();
    assertThat(paths.has("apis/rbac.authorization.k8s.io/v1")).isTrue();
    assertThat(paths.has("apis/coordination.k8s.io/v1")).isTrue();
    assertThat(paths.path("apis/apps/v1").path("serverRelativeURL").asText())
        .isEqualTo("/openapi/v3/apis/apps/v1?hash=" + openApi.hash("apis/apps/v1"))
        .matches(".*hash=[0-9A-F]{128}");
  }

  @Test
  void everyStoredKindHasPatchWithFieldValidationAndStrategicMerge() {
    for (ResourceType t : ResourceRegistry.kubernetes().all()) {
      if (!t.stored()) {
        continue;
      }
      String path = t.groupVersionPath().substring(1);
      ObjectNode doc = openApi.document(path).orElseThrow();
      JsonNode patch = patchOperationFor(doc, t.group(), t.kind());
      assertThat(patch.path("parameters").findValuesAsText("name"))
          .as(t.kind())
          .contains("fieldValidation", "dryRun", "fieldManager");
      assertThat(
              patch
                  .path("requestBody")
                  .path("content")
                  .has("application/strategic-merge-patch+json"))
          .as(t.kind())
          .isTrue();
    }
  }

  @Test
  void kindSchemasCarryGvkAndTheirFullPropertyTree() {
    ObjectNode doc = openApi.document("apis/apps/v1").orElseThrow();
    JsonNode schemas = doc.path("components").path("schemas");
    JsonNode deployment = schemas.path("io.k8s.api.apps.v1.Deployment");
    assertThat(deployment.path("x-kubernetes-group-version-kind").toString())
        .isEqualTo("[{\"group\":\"apps\",\"kind\":\"Deployment\",\"version\":\"v1\"}]");
    assertThat(deployment.path("properties").has("spec")).isTrue();
    // What kubectl's strategic merge patch walks: Deployment.spec.template.spec.containers.
    assertThat(schemas.has("io.k8s.api.core.v1.PodTemplateSpec")).isTrue();
    assertThat(schemas.has("io.k8s.api.core.v1.Container")).isTrue();
    assertThat(schemas.has("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")).isTrue();
    assertThat(schemas.has("io.k8s.apimachinery.pkg.apis.meta.v1.Status")).isTrue();
    assertThat(doc.path("openapi").asText()).isEqualTo("3.0.0");
    assertThat(doc.path("paths").has("/apis/apps/v1/namespaces/{namespace}/deployments/{name}"))
        .isTrue();
  }

  @Test
  void everyReferenceOfEveryDocumentResolvesInThatDocument() {
    for (String path :
        ResourceRegistry.kubernetes().groups().stream()
            .flatMap(
                g ->
                    ResourceRegistry.kubernetes().versions(g).stream()
                        .filter(v -> !g.equals("metrics.k8s.io"))
                        .map(v -> g.isEmpty() ? "api/" + v : "apis/" + g + "/" + v))
            .toList()) {
      ObjectNode doc = openApi.document(path).orElseThrow();
      JsonNode schemas = doc.path("components").path("schemas");
      for (String ref : KubernetesDefinitionsTest.refs(doc)) {
        assertThat(schemas.has(ref.substring("#/components/schemas/".length())))
            .as(path + " " + ref)
            .isTrue();
      }
    }
  }

  @Test
  void unknownGroupVersionHasNoDocument() {
    assertThat(openApi.document("apis/autoscaling/v2beta2")).isEmpty();
  }

  @Test
  void networkingHasADocumentPerVersionAndTheV1beta1KindsReferenceMetaByItsOwnName() {
    JsonNode paths = openApi.index().path("paths");
    assertThat(paths.has("apis/networking.k8s.io/v1")).isTrue();
    assertThat(paths.has("apis/networking.k8s.io/v1beta1")).isTrue();
    ObjectNode doc = openApi.document("apis/networking.k8s.io/v1beta1").orElseThrow();
    assertThat(doc.path("paths").has("/apis/networking.k8s.io/v1beta1/ipaddresses/{name}"))
        .isTrue();
    assertThat(doc.path("paths").has("/apis/networking.k8s.io/v1beta1/servicecidrs/{name}/status"))
        .isTrue();
    assertThat(
            patchOperationFor(doc, "networking.k8s.io", "IPAddress")
                .path("x-kubernetes-group-version-kind")
                .path("version")
                .asText())
        .isEqualTo("v1beta1");
    JsonNode schemas = doc.path("components").path("schemas");
    // No proto message names these kinds' shared types: they are still meta/v1's.
    assertThat(schemas.has("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")).isTrue();
    assertThat(schemas.has("io.k8s.api.networking.v1beta1.ObjectMeta")).isFalse();
    assertThat(
            schemas
                .path("io.k8s.api.networking.v1beta1.ServiceCIDRStatus")
                .path("properties")
                .path("conditions")
                .path("items")
                .path("$ref")
                .asText())
        .isEqualTo("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Condition");
    assertThat(
            schemas
                .path("io.k8s.api.networking.v1beta1.ParentReference")
                .path("required")
                .toString())
        .contains("\"name\"", "\"resource\"");
    // v1 keeps its own kinds.
    assertThat(
            openApi
                .document("apis/networking.k8s.io/v1")
                .orElseThrow()
                .path("components")
                .path("schemas")
                .has("io.k8s.api.networking.v1beta1.IPAddress"))
        .isFalse();
  }
}
