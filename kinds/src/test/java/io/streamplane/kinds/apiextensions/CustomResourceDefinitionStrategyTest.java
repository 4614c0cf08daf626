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
  void listAndMapMarkersAndUniqueItemsAreValidatedAsKubeApiserverValidatesThem() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"properties\": {\"replicas\": {\"type\": \"integer\"}}},\n",
                """
                "properties": {"replicas": {"type": "integer"},
                  "ports": {"type": "array", "x-kubernetes-list-type": "map",
                    "items": {"type": "object", "properties": {
                      "name": {"type": "string"}, "port": {"type": "integer"}}}},
                  "keyed": {"type": "array", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
                  "byObject": {"type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["ref", "missing"],
                    "items": {"type": "object", "required": ["ref"],
                      "properties": {"ref": {"type": "object"}}}},
                  "tags": {"type": "array", "x-kubernetes-list-type": "bag",
                    "items": {"type": "string"}},
                  "pairs": {"type": "array", "x-kubernetes-list-type": "set",
                    "items": {"type": "object"}},
                  "unique": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
                  "labels": {"type": "string", "x-kubernetes-map-type": "atomic"},
                  "selector": {"type": "object", "x-kubernetes-map-type": "whole"}}},
                """));
    String at = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties";
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactlyInAnyOrder(
            at
                + "[ports].x-kubernetes-list-map-keys: Required value: must not be empty if"
                + " x-kubernetes-list-type is map",
            at
                + "[keyed].x-kubernetes-list-type: Required value: must be map if"
                + " x-kubernetes-list-map-keys is non-empty",
            at
                + "[byObject].items.properties[ref].type: Invalid value: \"object\": must be a"
                + " scalar type if parent array's x-kubernetes-list-type is map",
            at
                + "[byObject].x-kubernetes-list-map-keys: Invalid value: []string{\"ref\","
                + " \"missing\"}: entries must all be names of item properties",
            at
                + "[tags].x-kubernetes-list-type: Unsupported value: \"bag\": supported values:"
                + " \"atomic\", \"set\", \"map\"",
            at
                + "[pairs].items.x-kubernetes-map-type: Invalid value: \"null\": must be atomic as"
                + " item of a list with x-kubernetes-list-type=set",
            at
                + "[unique].uniqueItems: Forbidden: uniqueItems cannot be set to true since the"
                + " runtime complexity becomes quadratic",
            at
                + "[labels].type: Invalid value: \"string\": must be object if"
                + " x-kubernetes-map-type is specified",
            at
                + "[selector].x-kubernetes-map-type: Unsupported value: \"whole\": supported"
                + " values: \"atomic\", \"granular\"");
  }

  @Test
  void aListMapKeyIsRequiredOrDefaulted() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"properties\": {\"replicas\": {\"type\": \"integer\"}}},\n",
                """
                "properties": {"ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name", "protocol"],
                  "items": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string"}, "protocol": {"type": "string"}}}}}},
                """));
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactly(
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[ports].items"
                + ".properties[protocol].default: Required value: this property is in"
                + " x-kubernetes-list-map-keys, so it must have a default or be a required"
                + " property");

    ((ObjectNode)
            json.at(
                "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/ports/items"
                    + "/properties/protocol"))
        .put("default", "TCP");
    assertThat(strategy.validate(stored(json))).isEmpty();
  }

  @Test
  void aReadShowsTheCurrentSchemasDefaultsWithoutChangingTheStoredObject() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"properties\": {\"replicas\": {\"type\": \"integer\"}}},\n",
                "\"properties\": {\"replicas\": {\"type\": \"integer\"},"
                    + " \"color\": {\"type\": \"string\", \"default\": \"blue\"}}},\n"));
    strategy.applyDefaults(json, true);
    json.putObject("status")
        .putArray("conditions")
        .addObject()
        .put("type", "Established")
        .put("status", "True");
    ResourceType row = CustomResources.rows(json).get(0);
    ObjectNode stored =
        json(
            """
            {"apiVersion": "stable.example.com/v1", "kind": "CronTab",
             "metadata": {"name": "old", "namespace": "default"}, "spec": {"replicas": 2}}
            """);
    String before = stored.toString();

    ObjectNode read = row.fromStorage(stored);

    assertThat(read.path("spec").path("color").asText()).isEqualTo("blue");
    assertThat(read.path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(stored.toString()).isEqualTo(before);
    ((ObjectNode) stored.path("spec")).put("color", "red");
    assertThat(row.fromStorage(stored))
        .as("nothing to default: the object itself")
        .isSameAs(stored);
  }

  @Test
  void selectableFieldsAreSimplePathsToScalarFieldsAtMostEight() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"properties\": {\"replicas\": {\"type\": \"integer\"}}},\n",
                "\"properties\": {\"replicas\": {\"type\": \"integer\"},"
                    + " \"color\": {\"type\": \"string\"}, \"on\": {\"type\": \"boolean\"},"
                    + " \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},"
                    + " \"labels\": {\"type\": \"object\","
                    + " \"additionalProperties\": {\"type\": \"string\"}}}},\n"));
    ObjectNode version = (ObjectNode) json.path("spec").path("versions").get(0);
    var fields = version.putArray("selectableFields");
    for (String path :
        List.of(
            ".spec.color",
            ".spec.replicas",
            ".spec.on",
            ".spec.tags",
            ".spec.missing",
            ".spec.tags[0]",
            ".spec.color",
            "",
            ".spec.labels.a",
            ".spec.labels.b",
            ".spec.labels.c",
            ".spec.labels.d",
            ".spec.labels.e")) {
      fields.addObject().put("jsonPath", path);
    }
    String at = "spec.versions[0].selectableFields";
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactly(
            at
                + "[3].jsonPath: Invalid value: \".spec.tags\": must point to a field of type"
                + " string, boolean or integer. Enum string fields and strings with formats are"
                + " allowed.",
            at
                + "[4].jsonPath: Invalid value: \".spec.missing\": is an invalid path: does not"
                + " refer to a valid field",
            at
                + "[5].jsonPath: Invalid value: \".spec.tags[0]\": is an invalid path: array"
                + " notation is not allowed",
            at + "[6].jsonPath: Duplicate value: \".spec.color\"",
            at + "[7].jsonPath: Required value",
            at + ": Too many: 9: must have at most 8 items");
  }

  @Test
  void aCustomKindIsSelectedByItsSelectableFields() {
    ObjectNode version =
        json(
            """
            {"name": "v1", "schema": {"openAPIV3Schema": {"type": "object", "properties": {
              "spec": {"type": "object", "properties": {
                "color": {"type": "string"}, "size": {"type": "integer"},
                "on": {"type": "boolean"}}}}}},
             "selectableFields": [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.size"},
                                  {"jsonPath": ".spec.on"}]}
            """);
    CustomResourceStrategy custom = new CustomResourceStrategy(version, null);
    ObjectNode object =
        json(
            """
            {"metadata": {"name": "a", "namespace": "default"},
             "spec": {"color": "blue", "size": 3, "on": true}}
            """);

    var fields = custom.selectableFields();
    assertThat(fields.keySet())
        .containsExactlyInAnyOrder(
            "metadata.name", "metadata.namespace", "spec.color", "spec.size", "spec.on");
    assertThat(fields.get("spec.color").apply(object)).isEqualTo("blue");
    assertThat(fields.get("spec.size").apply(object)).isEqualTo("3");
    assertThat(fields.get("spec.on").apply(object)).isEqualTo("true");
    assertThat(fields.get("spec.color").apply(json("{\"spec\": {}}"))).isEmpty();
    assertThat(custom.unknownFieldLabel("spec.shape"))
        .isEqualTo(
            "\"spec.shape\" is not a known field selector: only \"metadata.name\","
                + " \"metadata.namespace\"");
  }

  @Test
  void junctorsHoldValueValidationsOnlyAndUniqueItemsIsRefused() {
    ObjectNode json =
        json(
            CRD.replace(
                "\"properties\": {\"replicas\": {\"type\": \"integer\"}}},\n",
                """
                "properties": {"replicas": {"type": "integer",
                    "anyOf": [{"type": "integer", "minimum": 1}, {"maximum": 5,
                              "description": "small"}],
                    "not": {"default": 3, "x-kubernetes-validations": [{"rule": "true"}]}},
                  "port": {"x-kubernetes-int-or-string": true,
                    "anyOf": [{"type": "integer"}, {"type": "string"}]},
                  "meta": {"type": "object",
                    "oneOf": [{"properties": {"metadata": {"required": ["name"]}}}]}}},
                """));
    String at = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties";
    assertThat(messages(strategy.validate(stored(json))))
        .containsExactlyInAnyOrder(
            at + "[replicas].anyOf[0].type: Forbidden: must be empty to be structural",
            at + "[replicas].anyOf[1].description: Forbidden: must be empty to be structural",
            at + "[replicas].not.default: Forbidden: must be undefined to be structural",
            at
                + "[replicas].not.x-kubernetes-validations: Forbidden: must be empty to be"
                + " structural",
            at
                + "[meta].oneOf[0].properties[metadata]: Forbidden: must not be specified in a"
                + " nested context");
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
