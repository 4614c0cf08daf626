package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.KubernetesDefinitions.Dialect;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The generated definitions, checked field by field against what kube-apiserver 1.32 publishes. */
class KubernetesDefinitionsTest {

  private static final List<ResourceType> ALL = ResourceRegistry.kubernetes().all();
  private static final Map<String, ObjectNode> V3 =
      KubernetesDefinitions.of(ALL, Dialect.OPENAPI_3);
  private static final Map<String, ObjectNode> V2 =
      KubernetesDefinitions.of(ALL, Dialect.SWAGGER_2);

  private static JsonNode property(Map<String, ObjectNode> defs, String definition, String field) {
    JsonNode p = defs.get(definition).path("properties").path(field);
    assertThat(p.isObject()).as(definition + "." + field).isTrue();
    return p;
  }

  @Test
  void deploymentStrategyHasKubernetesDescriptionsAndTypes() {
    ObjectNode strategy = V3.get("io.k8s.api.apps.v1.DeploymentStrategy");
    assertThat(strategy.path("description").asText())
        .isEqualTo("DeploymentStrategy describes how to replace existing pods with new ones.");
    assertThat(strategy.path("type").asText()).isEqualTo("object");
    JsonNode type = property(V3, "io.k8s.api.apps.v1.DeploymentStrategy", "type");
    assertThat(type.path("type").asText()).isEqualTo("string");
    assertThat(type.path("description").asText())
        .startsWith("Type of deployment. Can be \"Recreate\" or \"RollingUpdate\".");
    assertThat(
            property(V3, "io.k8s.api.apps.v1.DeploymentStrategy", "rollingUpdate")
                .path("$ref")
                .asText())
        .isEqualTo("#/components/schemas/io.k8s.api.apps.v1.RollingUpdateDeployment");
  }

  @Test
  void podSpecContainersMergeByNameAndAreRequired() {
    JsonNode containers = property(V3, "io.k8s.api.core.v1.PodSpec", "containers");
    assertThat(containers.path("type").asText()).isEqualTo("array");
    assertThat(containers.path("items").path("$ref").asText())
        .isEqualTo("#/components/schemas/io.k8s.api.core.v1.Container");
    assertThat(containers.path("x-kubernetes-patch-strategy").asText()).isEqualTo("merge");
    assertThat(containers.path("x-kubernetes-patch-merge-key").asText()).isEqualTo("name");
    assertThat(V3.get("io.k8s.api.core.v1.PodSpec").path("required").toString())
        .isEqualTo("[\"containers\"]");
    JsonNode volumes = property(V3, "io.k8s.api.core.v1.PodSpec", "volumes");
    assertThat(volumes.path("x-kubernetes-patch-strategy").asText()).isEqualTo("merge,retainKeys");
    assertThat(volumes.path("x-kubernetes-patch-merge-key").asText()).isEqualTo("name");
  }

  @Test
  void containerPortsMergeByContainerPortWithInt32Port() {
    JsonNode ports = property(V3, "io.k8s.api.core.v1.Container", "ports");
    assertThat(ports.path("x-kubernetes-patch-merge-key").asText()).isEqualTo("containerPort");
    assertThat(ports.path("x-kubernetes-patch-strategy").asText()).isEqualTo("merge");
    JsonNode port = property(V3, "io.k8s.api.core.v1.ContainerPort", "containerPort");
    assertThat(port.path("type").asText()).isEqualTo("integer");
    assertThat(port.path("format").asText()).isEqualTo("int32");
    assertThat(V3.get("io.k8s.api.core.v1.ContainerPort").path("required").toString())
        .isEqualTo("[\"containerPort\"]");
    assertThat(V3.get("io.k8s.api.core.v1.Container").path("required").toString())
        .isEqualTo("[\"name\"]");
  }

  @Test
  void retainKeysStrategyIsWrappedInAllOfInOpenApi3AndSiblingInSwagger2() {
    JsonNode v3 = property(V3, "io.k8s.api.apps.v1.DeploymentSpec", "strategy");
    assertThat(v3.path("allOf").get(0).path("$ref").asText())
        .isEqualTo("#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy");
    assertThat(v3.path("x-kubernetes-patch-strategy").asText()).isEqualTo("retainKeys");
    JsonNode v2 = property(V2, "io.k8s.api.apps.v1.DeploymentSpec", "strategy");
    assertThat(v2.path("$ref").asText())
        .isEqualTo("#/definitions/io.k8s.api.apps.v1.DeploymentStrategy");
    assertThat(v2.path("x-kubernetes-patch-strategy").asText()).isEqualTo("retainKeys");
  }

  @Test
  void intOrStringAndQuantityTakeKubernetesForms() {
    ObjectNode v3 = V3.get(KubernetesDefinitions.INT_OR_STRING);
    assertThat(v3.path("format").asText()).isEqualTo("int-or-string");
    assertThat(v3.path("oneOf").toString())
        .isEqualTo("[{\"type\":\"integer\"},{\"type\":\"string\"}]");
    assertThat(v3.path("description").asText())
        .startsWith("IntOrString is a type that can hold an int32 or a string.");
    ObjectNode v2 = V2.get(KubernetesDefinitions.INT_OR_STRING);
    assertThat(v2.path("type").asText()).isEqualTo("string");
    assertThat(v2.path("format").asText()).isEqualTo("int-or-string");
    JsonNode maxSurge = property(V3, "io.k8s.api.apps.v1.RollingUpdateDeployment", "maxSurge");
    assertThat(maxSurge.path("$ref").asText())
        .isEqualTo("#/components/schemas/" + KubernetesDefinitions.INT_OR_STRING);
    assertThat(V2.get(KubernetesDefinitions.QUANTITY).path("type").asText()).isEqualTo("string");
    assertThat(V3.get(KubernetesDefinitions.QUANTITY).path("oneOf").toString())
        .isEqualTo("[{\"type\":\"string\"},{\"type\":\"number\"}]");
    JsonNode limits = property(V3, "io.k8s.api.core.v1.ResourceRequirements", "limits");
    assertThat(limits.path("additionalProperties").path("$ref").asText())
        .isEqualTo("#/components/schemas/" + KubernetesDefinitions.QUANTITY);
  }

  @Test
  void timesBytesAndIntegersKeepTheirFormats() {
    assertThat(V3.get(KubernetesDefinitions.TIME).path("format").asText()).isEqualTo("date-time");
    assertThat(V3.get(KubernetesDefinitions.TIME).path("type").asText()).isEqualTo("string");
    JsonNode created =
        property(V3, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp");
    assertThat(created.path("allOf").get(0).path("$ref").asText())
        .isEqualTo("#/components/schemas/" + KubernetesDefinitions.TIME);
    assertThat(created.path("description").asText()).startsWith("CreationTimestamp is a timestamp");
    JsonNode eventTime = property(V3, "io.k8s.api.core.v1.Event", "eventTime");
    assertThat(eventTime.path("allOf").get(0).path("$ref").asText())
        .isEqualTo("#/components/schemas/" + KubernetesDefinitions.MICRO_TIME);
    JsonNode generation =
        property(V3, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "generation");
    assertThat(generation.path("format").asText()).isEqualTo("int64");
    JsonNode data = property(V3, "io.k8s.api.core.v1.Secret", "data");
    assertThat(data.path("additionalProperties").path("format").asText()).isEqualTo("byte");
    JsonNode fields =
        property(V3, "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry", "fieldsV1");
    assertThat(fields.path("allOf").get(0).path("$ref").asText())
        .isEqualTo("#/components/schemas/" + KubernetesDefinitions.FIELDS_V1);
    JsonNode extra = property(V3, "io.k8s.api.authorization.v1.SubjectAccessReviewSpec", "extra");
    assertThat(extra.path("additionalProperties").path("type").asText()).isEqualTo("array");
  }

  @Test
  void metadataFinalizersAndOwnerReferencesCarryTheirPatchTags() {
    String meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
    assertThat(property(V3, meta, "finalizers").path("x-kubernetes-patch-strategy").asText())
        .isEqualTo("merge");
    JsonNode owners = property(V3, meta, "ownerReferences");
    assertThat(owners.path("x-kubernetes-patch-merge-key").asText()).isEqualTo("uid");
  }

  @Test
  void containerStatusVolumeMountsCarryTheirMergeKeyThoughTheListAroundThemIsReplaced() {
    JsonNode mounts = property(V3, "io.k8s.api.core.v1.ContainerStatus", "volumeMounts");
    assertThat(mounts.path("x-kubernetes-patch-merge-key").asText()).isEqualTo("mountPath");
    JsonNode statuses = property(V3, "io.k8s.api.core.v1.PodStatus", "containerStatuses");
    assertThat(statuses.has("x-kubernetes-patch-strategy")).isFalse();
  }

  @Test
  void listTypesAndMapKeysFollowTheGoMarkersOfThePatchedLists() {
    JsonNode ports = property(V3, "io.k8s.api.core.v1.Container", "ports");
    assertThat(ports.path("x-kubernetes-list-type").asText()).isEqualTo("map");
    assertThat(ports.path("x-kubernetes-list-map-keys").toString())
        .isEqualTo("[\"containerPort\",\"protocol\"]");
    JsonNode containers = property(V3, "io.k8s.api.core.v1.PodSpec", "containers");
    assertThat(containers.path("x-kubernetes-list-map-keys").toString()).isEqualTo("[\"name\"]");
    String meta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
    assertThat(property(V3, meta, "finalizers").path("x-kubernetes-list-type").asText())
        .isEqualTo("set");
    JsonNode hostIps = property(V3, "io.k8s.api.core.v1.PodStatus", "hostIPs");
    assertThat(hostIps.path("x-kubernetes-list-type").asText()).isEqualTo("atomic");
    assertThat(hostIps.path("x-kubernetes-patch-merge-key").asText()).isEqualTo("ip");
    assertThat(hostIps.has("x-kubernetes-list-map-keys")).isFalse();
    assertThat(
            property(V3, "io.k8s.api.core.v1.PodStatus", "containerStatuses")
                .path("x-kubernetes-list-type")
                .asText())
        .isEqualTo("atomic");
  }

  @Test
  void fieldsAreThoseOfKubernetes132NotOfLaterReleases() {
    // Added in 1.32 (alpha): present. Added in 1.33: absent, as from kube-apiserver 1.32.
    assertThat(
            V3.get("io.k8s.api.core.v1.PodSecurityContext")
                .path("properties")
                .has("supplementalGroupsPolicy"))
        .isTrue();
    assertThat(
            V3.get("io.k8s.api.apps.v1.DeploymentStatus")
                .path("properties")
                .has("terminatingReplicas"))
        .isFalse();
    assertThat(V3.get("io.k8s.api.core.v1.Lifecycle").path("properties").has("stopSignal"))
        .isFalse();
  }

  @Test
  void kindsAndTheirListsAreTaggedWithTheirGroupVersionKind() {
    assertThat(
            V3.get("io.k8s.api.apps.v1.Deployment")
                .path("x-kubernetes-group-version-kind")
                .toString())
        .isEqualTo("[{\"group\":\"apps\",\"kind\":\"Deployment\",\"version\":\"v1\"}]");
    assertThat(
            V3.get("io.k8s.api.core.v1.EventList")
                .path("x-kubernetes-group-version-kind")
                .toString())
        .isEqualTo("[{\"group\":\"\",\"kind\":\"EventList\",\"version\":\"v1\"}]");
    assertThat(V3.get("io.k8s.api.coordination.v1.Lease").has("x-kubernetes-group-version-kind"))
        .isTrue();
    assertThat(V3.get("io.k8s.api.core.v1.PodSpec").has("x-kubernetes-group-version-kind"))
        .isFalse();
  }

  @Test
  void everyReferenceResolvesInBothDialects() {
    for (ResourceType t : ALL) {
      for (Dialect dialect : Dialect.values()) {
        Map<String, ObjectNode> defs = KubernetesDefinitions.of(List.of(t), dialect);
        List<String> refs = new ArrayList<>();
        defs.values().forEach(d -> refs(d).forEach(refs::add));
        for (String ref : refs) {
          assertThat(defs)
              .as(t.kind() + " " + dialect)
              .containsKey(ref.substring(ref.lastIndexOf('/') + 1));
        }
      }
    }
  }

  /**
   * The references of a schema document: the text values of its {@code $ref} keys, leaving out
   * JSONSchemaProps' own property named {@code $ref}, whose value is a schema.
   */
  static List<String> refs(com.fasterxml.jackson.databind.JsonNode document) {
    return document.findValues("$ref").stream()
        .filter(com.fasterxml.jackson.databind.JsonNode::isTextual)
        .map(com.fasterxml.jackson.databind.JsonNode::asText)
        .toList();
  }
}
