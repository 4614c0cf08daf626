package io.streamplane.kinds.apiextensions;

import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.CustomObject;
import io.streamplane.schema.convert.KubeJson;
import java.util.List;
import org.junit.jupiter.api.Test;

class CustomResourceDefinitionStrategyTest {

  private static final String CRD =
      """
      {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "crontabs.stable.example.com"},
       "spec": {"group": "stable.example.com", "scope": "Namespaced",
         "names": {"plural": "crontabs", "kind": "CronTab", "shortNames": ["ct"]},
         "versions": [{"name": "v1", "served": true, "storage": true,
           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
             "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
             "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}},
           "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
             "statusReplicasPath": ".status.replicas"}},
           "additionalPrinterColumns": [
             {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}]}]}}
      """;

  private final CustomResourceDefinitionStrategy strategy = new CustomResourceDefinitionStrategy();
  private final KubeJson kubeJson = new KubeJson();

  private CustomObject stored(ObjectNode json) {
    strategy.applyDefaults(json, true);
    strategy.prepareForCreate(json);
    return kubeJson.toAvro(json, CustomObject.class).record();
  }

  @Test
  void aValidDefinitionIsDefaultedGetsItsFinalizerAndRoundTrips() {
    ObjectNode json = json(CRD);
    CustomObject crd = stored(json);
    assertThat(strategy.validate(crd)).isEmpty();
    assertThat(crd.getMetadata().getFinalizers())
        .containsExactly("customresourcecleanup.apiextensions.k8s.io");
    ObjectNode back = kubeJson.toJson(crd);
    assertThat(back.path("spec").path("names").path("singular").asText()).isEqualTo("crontab");
    assertThat(back.path("spec").path("names").path("listKind").asText()).isEqualTo("CronTabList");
    assertThat(back.path("spec").path("conversion").path("strategy").asText()).isEqualTo("None");
    assertThat(back.path("spec").path("versions").get(0).path("schema"))
        .isEqualTo(json.path("spec").path("versions").get(0).path("schema"));
  }

  @Test
  void namesGroupScopeVersionsAndSchemaAreValidated() {
    ObjectNode json =
        json(
            """
            {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "crontabs.example"},
             "spec": {"group": "example", "scope": "Global",
               "names": {"plural": "CronTabs", "kind": "CronTab"},
               "versions": [{"name": "v1", "served": true, "storage": false,
                 "schema": {"openAPIV3Schema": {"properties": {"spec": {}}}}}]}}
            """);
    assertThat(messages(strategy.validate(stored(json))))
        .contains(
            "metadata.name: Invalid value: \"crontabs.example\": must be"
                + " spec.names.plural+\".\"+spec.group",
            "spec.group: Invalid value: \"example\": should be a domain with at least one dot",
            "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\","
                + " \"Namespaced\"",
            "spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at"
                + " the root",
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must"
                + " not be empty for specified object fields",
            "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{v1}:"
                + " must have exactly one version marked as storage version");
  }

  @Test
  void aWebhookConversionNeedsOneOfUrlOrServiceAndAKnownReviewVersion() {
    ObjectNode json = json(CRD);
    json.with("spec")
        .putObject("conversion")
        .put("strategy", "Webhook")
        .putObject("webhook")
        .putArray("conversionReviewVersions")
        .add("v2");
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactlyInAnyOrder(
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set"
                + " to Webhook",
            "spec.conversion.conversionReviewVersions: Invalid value: []string{\"v2\"}: must"
                + " include at least one of v1, v1beta1");

    ObjectNode webhook = (ObjectNode) json.path("spec").path("conversion").path("webhook");
    webhook.putArray("conversionReviewVersions").add("v1");
    webhook.putObject("clientConfig").put("url", "http://127.0.0.1:8443/convert");
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactly(
            "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the"
                + " only allowed URL scheme");

    webhook.putObject("clientConfig").put("url", "https://127.0.0.1:8443/convert");
    assertThat(strategy.validate(stored(json))).isEmpty();

    ((ObjectNode) json.path("spec").path("conversion")).put("strategy", "None");
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactlyInAnyOrder(
            "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is"
                + " not set to Webhook",
            "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy"
                + " is not set to Webhook");
  }

  @Test
  void anEstablishedDefinitionServesItsKindWithItsNamesSubresourcesAndColumns() {
    ObjectNode json = json(CRD);
    strategy.applyDefaults(json, true);
    json.putObject("status")
        .putArray("conditions")
        .addObject()
        .put("type", "Established")
        .put("status", "True");
    List<ResourceType> rows = CustomResources.rows(json);
    assertThat(rows).hasSize(1);
    ResourceType row = rows.get(0);
    assertThat(row.groupVersion()).isEqualTo("stable.example.com/v1");
    assertThat(row.shortNames()).containsExactly("ct");
    assertThat(row.singular()).isEqualTo("crontab");
    assertThat(row.subresources())
        .extracting(ResourceType.Subresource::name)
        .containsExactly("scale", "status");
    assertThat(row.strategy().printer().columns())
        .extracting(c -> c.name())
        .containsExactly("Name", "Replicas");

    ResourceRegistry registry = ResourceRegistry.kubernetes();
    registry.serveCustom(rows);
    assertThat(registry.served("stable.example.com", "v1", "crontabs")).isPresent();
    assertThat(registry.groups()).contains("stable.example.com");
    registry.serveCustom(List.of());
    assertThat(registry.served("stable.example.com", "v1", "crontabs")).isEmpty();

    json.with("metadata").put("deletionTimestamp", "2024-05-01T10:00:00Z");
    assertThat(CustomResources.rows(json))
        .as("a definition being deleted serves nothing")
        .isEmpty();
  }

  @Test
  void aKindWithoutTheStatusSubresourceKeepsStatusWithItsOtherFields() {
    ObjectNode version =
        json("{\"name\": \"v1\", \"schema\": {\"openAPIV3Schema\": {\"type\": \"object\"}}}");
    CustomResourceStrategy noStatus = new CustomResourceStrategy(version, null);
    CustomObject decoded =
        kubeJson
            .toAvro(
                json(
                    "{\"apiVersion\": \"a.b/v1\", \"kind\": \"K\", \"metadata\": {\"name\": \"x\"},"
                        + " \"spec\": {\"b\": 1, \"a\": 2}, \"status\": {\"ok\": true}}"),
                CustomObject.class)
            .record();
    assertThat(decoded.getContent()).isEqualTo("{\"spec\":{\"a\":2,\"b\":1}}");
    CustomObject stored = (CustomObject) noStatus.stored(decoded);
    assertThat(stored.getStatus()).isNull();
    assertThat(stored.getContent())
        .isEqualTo("{\"spec\":{\"a\":2,\"b\":1},\"status\":{\"ok\":true}}");
    assertThat(kubeJson.toJson(stored).path("status").path("ok").asBoolean()).isTrue();
  }

  @Test
  void aRuleThatDoesNotCompileRefusesTheDefinition() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"spec\": {\"type\": \"object\", \"properties\"",
                "\"spec\": {\"type\": \"object\", \"x-kubernetes-validations\":"
                    + " [{\"rule\": \"self.replicas >\"}], \"properties\""));
    assertThat(messages(strategy.validate(stored(json))))
        .singleElement()
        .asString()
        .startsWith(
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"
                + ".rule: Invalid value: \"self.replicas >\": compilation failed: ");
  }

  @Test
  void aRuleWhoseEstimatedCostIsOverTheLimitRefusesTheDefinition() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"spec\": {\"type\": \"object\", \"properties\": {\"replicas\": {\"type\":"
                    + " \"integer\"}}}",
                "\"spec\": {\"type\": \"object\", \"properties\": {\"names\": {\"type\":"
                    + " \"array\", \"items\": {\"type\": \"string\"}, \"x-kubernetes-validations\":"
                    + " [{\"rule\": \"self.all(a, self.all(b, a == b))\"}]}, \"replicas\":"
                    + " {\"type\": \"integer\"}}}"));
    assertThat(messages(strategy.validate(stored(json))))
        .contains(
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[names]"
                + ".x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget"
                + " by factor of more than 100x (try simplifying the rule, or adding maxItems,"
                + " maxProperties, and maxLength where arrays, maps, and strings are declared)",
            "spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations"
                + " estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor"
                + " of more than 100x (try simplifying the rule, or adding maxItems, maxProperties,"
                + " and maxLength where arrays, maps, and strings are declared)");
    ObjectNode bounded =
        json(
            CRD.replace(
                "\"spec\": {\"type\": \"object\", \"properties\": {\"replicas\": {\"type\":"
                    + " \"integer\"}}}",
                "\"spec\": {\"type\": \"object\", \"properties\": {\"names\": {\"type\":"
                    + " \"array\", \"maxItems\": 100, \"items\": {\"type\": \"string\","
                    + " \"maxLength\": 64}, \"x-kubernetes-validations\": [{\"rule\":"
                    + " \"self.all(a, self.all(b, a == b))\"}]}, \"replicas\": {\"type\":"
                    + " \"integer\"}}}"));
    assertThat(strategy.validate(stored(bounded))).isEmpty();
  }

  @Test
  void oldSelfUnderAnAtomicListAndOptionalOldSelfWithoutOldSelfAreRefused() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"spec\": {\"type\": \"object\", \"properties\": {\"replicas\": {\"type\":"
                    + " \"integer\"}}}",
                "\"spec\": {\"type\": \"object\", \"properties\": {\"names\": {\"type\":"
                    + " \"array\", \"maxItems\": 5, \"items\": {\"type\": \"string\", \"maxLength\":"
                    + " 5, \"x-kubernetes-validations\": [{\"rule\": \"self == oldSelf\"}]}},"
                    + " \"replicas\": {\"type\": \"integer\", \"x-kubernetes-validations\":"
                    + " [{\"rule\": \"self > 0\", \"optionalOldSelf\": true}]}}}"));
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactlyInAnyOrder(
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas]"
                + ".x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be"
                + " set if oldSelf is not used in rule",
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[names].items"
                + ".x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf"
                + " cannot be used on the uncorrelatable portion of the schema within"
                + " spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[names]");
  }
}
