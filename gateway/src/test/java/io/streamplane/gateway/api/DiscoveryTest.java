package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DiscoveryTest {

  private static final String KUBECTL_ACCEPT =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
          + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
          + "application/json";

  private final ResourceRegistry registry = ResourceRegistry.kubernetes();
  private final Discovery discovery =
      new Discovery(registry, "abc123", Instant.parse("2025-01-02T03:04:05.678Z"));

  private static JsonNode find(JsonNode array, String field, String value) {
    for (JsonNode n : array) {
      if (n.path(field).asText().equals(value)) {
        return n;
      }
    }
    throw new AssertionError(value + " not in " + array);
  }

  @Test
  void registryResolvesByResourceKindAndApiVersion() {
    assertThat(registry.byResource("apps", "deployments"))
        .get()
        .extracting(ResourceType::kind)
        .isEqualTo("Deployment");
    assertThat(registry.byKind("", "Namespace"))
        .get()
        .extracting(ResourceType::namespaced)
        .isEqualTo(false);
    ResourceType rs = registry.byApiVersionKind("apps/v1", "ReplicaSet").orElseThrow();
    assertThat(rs.shortNames()).containsExactly("rs");
    assertThat(rs.listKind()).isEqualTo("ReplicaSetList");
    assertThat(rs.qualifiedResource()).isEqualTo("replicasets.apps");
    assertThat(registry.byApiVersionKind("v1", "Deployment")).isEmpty();
    assertThat(registry.byListKind("v1", "PodList"))
        .get()
        .extracting(ResourceType::plural)
        .isEqualTo("pods");
    assertThat(registry.groups())
        .containsExactly(
            "",
            "apps",
            "events.k8s.io",
            "authentication.k8s.io",
            "authorization.k8s.io",
            "autoscaling",
            "batch",
            "certificates.k8s.io",
            "networking.k8s.io",
            "policy",
            "rbac.authorization.k8s.io",
            "storage.k8s.io",
            "admissionregistration.k8s.io",
            "apiextensions.k8s.io",
            "scheduling.k8s.io",
            "coordination.k8s.io",
            "node.k8s.io",
            "discovery.k8s.io",
            "flowcontrol.apiserver.k8s.io",
            "metrics.k8s.io");
  }

  @Test
  void versionReportsKubernetes132() {
    ObjectNode v = discovery.version();
    assertThat(v.path("major").asText()).isEqualTo("1");
    assertThat(v.path("minor").asText()).isEqualTo("32");
    assertThat(v.path("gitVersion").asText()).isEqualTo("v1.32.0-streamplane");
    assertThat(v.path("gitCommit").asText()).isEqualTo("abc123");
    assertThat(v.path("buildDate").asText()).isEqualTo("2025-01-02T03:04:05Z");
    assertThat(v.path("platform").asText()).contains("/");
  }

  @Test
  void kubectlAcceptHeaderSelectsAggregatedV2() {
    assertThat(Discovery.negotiateAggregated(KUBECTL_ACCEPT))
        .get()
        .extracting(Discovery.AggregatedFormat::contentType)
        .isEqualTo(Discovery.AGGREGATED_V2_CONTENT_TYPE);
    assertThat(
            Discovery.negotiateAggregated(
                "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"))
        .get()
        .extracting(Discovery.AggregatedFormat::version)
        .isEqualTo("v2beta1");
    assertThat(Discovery.negotiateAggregated("application/json")).isEmpty();
    assertThat(Discovery.negotiateAggregated(null)).isEmpty();
    assertThat(
            Discovery.negotiateAggregated(
                "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                    + KUBECTL_ACCEPT))
        .isPresent();
  }

  @Test
  void aggregatedGroupsListDeploymentsWithShortNameCategoryAndScale() {
    ObjectNode doc =
        discovery.aggregatedGroups(Discovery.negotiateAggregated(KUBECTL_ACCEPT).orElseThrow());
    assertThat(doc.path("kind").asText()).isEqualTo("APIGroupDiscoveryList");
    assertThat(doc.path("apiVersion").asText()).isEqualTo("apidiscovery.k8s.io/v2");
    JsonNode apps = null;
    for (JsonNode item : doc.path("items")) {
      if (item.path("metadata").path("name").asText().equals("apps")) {
        apps = item;
      }
    }
    assertThat(apps).isNotNull();
    JsonNode v1 = apps.path("versions").get(0);
    assertThat(v1.path("version").asText()).isEqualTo("v1");
    assertThat(v1.path("freshness").asText()).isEqualTo("Current");
    JsonNode deployments = find(v1.path("resources"), "resource", "deployments");
    assertThat(deployments.path("scope").asText()).isEqualTo("Namespaced");
    assertThat(deployments.path("singularResource").asText()).isEqualTo("deployment");
    assertThat(deployments.path("shortNames").get(0).asText()).isEqualTo("deploy");
    assertThat(deployments.path("categories").get(0).asText()).isEqualTo("all");
    assertThat(deployments.path("responseKind").path("kind").asText()).isEqualTo("Deployment");
    JsonNode scale = find(deployments.path("subresources"), "subresource", "scale");
    assertThat(scale.path("responseKind").path("group").asText()).isEqualTo("autoscaling");
    assertThat(scale.path("responseKind").path("kind").asText()).isEqualTo("Scale");
  }

  @Test
  void aggregatedCoreIsOneUnnamedGroupWithClusterScopedNodes() {
    ObjectNode doc =
        discovery.aggregatedCore(Discovery.negotiateAggregated(KUBECTL_ACCEPT).orElseThrow());
    assertThat(doc.path("items")).hasSize(1);
    JsonNode core = doc.path("items").get(0);
    assertThat(core.path("metadata").has("name")).isFalse();
    JsonNode resources = core.path("versions").get(0).path("resources");
    assertThat(find(resources, "resource", "nodes").path("scope").asText()).isEqualTo("Cluster");
    assertThat(find(resources, "resource", "pods").path("shortNames").get(0).asText())
        .isEqualTo("po");
    assertThat(find(resources, "resource", "namespaces").path("verbs").toString())
        .doesNotContain("deletecollection");
  }

  @Test
  void legacyResourceListsCarrySubresources() {
    ObjectNode core = discovery.apiResourceList("", "v1").orElseThrow();
    assertThat(core.has("apiVersion")).isFalse();
    assertThat(core.path("groupVersion").asText()).isEqualTo("v1");
    JsonNode resources = core.path("resources");
    assertThat(find(resources, "name", "pods/status").path("verbs").toString())
        .isEqualTo("[\"get\",\"patch\",\"update\"]");
    assertThat(find(resources, "name", "pods/log").path("kind").asText()).isEqualTo("Pod");
    assertThat(find(resources, "name", "pods").path("storageVersionHash").asText()).hasSize(12);
    // kubectl drain evicts through policy/v1 only when discovery lists pods/eviction so.
    JsonNode eviction = find(resources, "name", "pods/eviction");
    assertThat(eviction.path("group").asText()).isEqualTo("policy");
    assertThat(eviction.path("version").asText()).isEqualTo("v1");
    assertThat(eviction.path("kind").asText()).isEqualTo("Eviction");
    assertThat(eviction.path("verbs").toString()).isEqualTo("[\"create\"]");

    ObjectNode apps = discovery.apiResourceList("apps", "v1").orElseThrow();
    assertThat(apps.path("apiVersion").asText()).isEqualTo("v1");
    JsonNode scale = find(apps.path("resources"), "name", "deployments/scale");
    assertThat(scale.path("group").asText()).isEqualTo("autoscaling");
    assertThat(scale.path("version").asText()).isEqualTo("v1");
    assertThat(scale.path("kind").asText()).isEqualTo("Scale");
    assertThat(discovery.apiResourceList("autoscaling", "v2beta2")).isEmpty();
  }

  @Test
  void apiAndApisListVersionsAndGroups() {
    ObjectNode api = discovery.apiVersions("127.0.0.1:6443");
    assertThat(api.path("kind").asText()).isEqualTo("APIVersions");
    assertThat(api.path("versions").toString()).isEqualTo("[\"v1\"]");
    assertThat(api.path("serverAddressByClientCIDRs").get(0).path("serverAddress").asText())
        .isEqualTo("127.0.0.1:6443");

    ObjectNode apis = discovery.apiGroupList();
    JsonNode apps = find(apis.path("groups"), "name", "apps");
    assertThat(apps.path("preferredVersion").path("groupVersion").asText()).isEqualTo("apps/v1");
    assertThat(discovery.apiGroup("rbac.authorization.k8s.io"))
        .get()
        .extracting(g -> g.path("kind").asText())
        .isEqualTo("APIGroup");
  }

  @Test
  void networkingListsV1ThenV1beta1WithV1Preferred() {
    JsonNode group = find(discovery.apiGroupList().path("groups"), "name", "networking.k8s.io");
    assertThat(group.path("versions").toString())
        .isEqualTo(
            "[{\"groupVersion\":\"networking.k8s.io/v1\",\"version\":\"v1\"},"
                + "{\"groupVersion\":\"networking.k8s.io/v1beta1\",\"version\":\"v1beta1\"}]");
    assertThat(group.path("preferredVersion").path("version").asText()).isEqualTo("v1");
    assertThat(discovery.apiGroup("networking.k8s.io").orElseThrow().path("versions"))
        .isEqualTo(group.path("versions"));

    ObjectNode v1 = discovery.apiResourceList("networking.k8s.io", "v1").orElseThrow();
    assertThat(v1.path("resources").findValuesAsText("name"))
        .containsExactly("ingressclasses", "ingresses", "ingresses/status", "networkpolicies");
    ObjectNode v1beta1 = discovery.apiResourceList("networking.k8s.io", "v1beta1").orElseThrow();
    assertThat(v1beta1.path("groupVersion").asText()).isEqualTo("networking.k8s.io/v1beta1");
    JsonNode resources = v1beta1.path("resources");
    assertThat(resources.findValuesAsText("name"))
        .containsExactly("ipaddresses", "servicecidrs", "servicecidrs/status");
    JsonNode ipaddresses = find(resources, "name", "ipaddresses");
    assertThat(ipaddresses.path("kind").asText()).isEqualTo("IPAddress");
    assertThat(ipaddresses.path("namespaced").asBoolean()).isFalse();
    assertThat(ipaddresses.path("storageVersionHash").asText())
        .isEqualTo(Discovery.storageVersionHash("networking.k8s.io", "v1beta1", "IPAddress"));
    // The status subresource answers with the kind of its own version: no group or version.
    JsonNode status = find(resources, "name", "servicecidrs/status");
    assertThat(status.has("version")).isFalse();
    assertThat(status.path("kind").asText()).isEqualTo("ServiceCIDR");
  }

  @Test
  void aggregatedNetworkingHasBothVersionsEachWithItsOwnKinds() {
    ObjectNode doc =
        discovery.aggregatedGroups(Discovery.negotiateAggregated(KUBECTL_ACCEPT).orElseThrow());
    JsonNode networking = null;
    for (JsonNode item : doc.path("items")) {
      if (item.path("metadata").path("name").asText().equals("networking.k8s.io")) {
        networking = item;
      }
    }
    assertThat(networking).isNotNull();
    JsonNode versions = networking.path("versions");
    assertThat(versions).hasSize(2);
    assertThat(versions.get(0).path("version").asText()).isEqualTo("v1");
    assertThat(versions.get(1).path("version").asText()).isEqualTo("v1beta1");
    assertThat(versions.get(0).path("resources").findValuesAsText("resource"))
        .containsExactly("ingressclasses", "ingresses", "networkpolicies");
    JsonNode v1beta1 = versions.get(1).path("resources");
    assertThat(v1beta1.findValuesAsText("resource")).containsExactly("ipaddresses", "servicecidrs");
    JsonNode servicecidrs = find(v1beta1, "resource", "servicecidrs");
    assertThat(servicecidrs.path("scope").asText()).isEqualTo("Cluster");
    assertThat(servicecidrs.path("responseKind").toString())
        .isEqualTo(
            "{\"group\":\"networking.k8s.io\",\"version\":\"v1beta1\",\"kind\":\"ServiceCIDR\"}");
    JsonNode status = find(servicecidrs.path("subresources"), "subresource", "status");
    assertThat(status.path("responseKind").path("version").asText()).isEqualTo("v1beta1");
  }
}
