package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
  void kindSchemasCarryNoGvkSoKubectlFallsBackToBuiltinPatchMeta() {
    ObjectNode doc = openApi.document("apis/apps/v1").orElseThrow();
    JsonNode deployment =
        doc.path("components").path("schemas").path("io.k8s.api.apps.v1.Deployment");
    assertThat(deployment.isObject()).isTrue();
    assertThat(deployment.has("x-kubernetes-group-version-kind")).isFalse();
    assertThat(doc.path("openapi").asText()).isEqualTo("3.0.0");
    assertThat(doc.path("paths").has("/apis/apps/v1/namespaces/{namespace}/deployments/{name}"))
        .isTrue();
  }

  @Test
  void unknownGroupVersionHasNoDocument() {
    assertThat(openApi.document("apis/batch/v1")).isEmpty();
  }
}
