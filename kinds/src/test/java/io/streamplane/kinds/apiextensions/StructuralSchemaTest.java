package io.streamplane.kinds.apiextensions;

import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class StructuralSchemaTest {

  private static final StructuralSchema CRON_TAB =
      new StructuralSchema(
          json(
              """
              {"type": "object", "properties": {
                "spec": {"type": "object", "required": ["cronSpec"], "properties": {
                  "cronSpec": {"type": "string", "pattern": "^(\\\\d+|\\\\*)(/\\\\d+)?(\\\\s+(\\\\d+|\\\\*)(/\\\\d+)?){4}$"},
                  "image": {"type": "string", "maxLength": 10, "minLength": 1},
                  "replicas": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10, "default": 1},
                  "policy": {"type": "string", "enum": ["Allow", "Forbid"]},
                  "since": {"type": "string", "format": "date-time"},
                  "port": {"x-kubernetes-int-or-string": true},
                  "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                  "note": {"type": "string", "nullable": true},
                  "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                  "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                  "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                               "x-kubernetes-preserve-unknown-fields": true},
                  "limits": {"type": "object", "default": {}, "properties": {
                    "cpu": {"type": "string", "default": "1"}}}
                }},
                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}
              }}
              """));

  @Test
  void aValidObjectHasNoCauses() {
    ObjectNode object =
        json(
            """
            {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "a"},
             "spec": {"cronSpec": "*/5 * * * *", "image": "nginx", "replicas": 3,
                      "policy": "Allow", "since": "2024-05-01T10:00:00Z", "port": "http",
                      "tags": ["a"], "note": null, "labels": {"x": "y"},
                      "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}}
            """);
    assertThat(CRON_TAB.validate(object)).isEmpty();
  }

  @Test
  void causesAreWordedAsKubeApiserverWordsThem() {
    ObjectNode object =
        json(
            """
            {"spec": {"cronSpec": "bad", "image": "much-too-long-image", "replicas": 11,
                      "policy": "Maybe", "since": "yesterday", "port": true,
                      "tags": ["a", "b", "c"], "labels": {"x": 1}}}
            """);
    assertThat(messages(CRON_TAB.validate(object)))
        .containsExactlyInAnyOrder(
            "spec.cronSpec: Invalid value: \"bad\": spec.cronSpec in body should match"
                + " '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
            "spec.image: Too long: may not be longer than 10",
            "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal"
                + " to 10",
            "spec.policy: Unsupported value: \"Maybe\": supported values: \"Allow\", \"Forbid\"",
            "spec.since: Invalid value: \"yesterday\": spec.since in body must be of type"
                + " date-time: \"yesterday\"",
            "spec.port: Invalid value: \"boolean\": spec.port in body must be of type"
                + " integer,string: \"boolean\"",
            "spec.tags: Too many: 3: must have at most 2 items",
            "spec.labels[x]: Invalid value: \"integer\": spec.labels[x] in body must be of type"
                + " string: \"integer\"");
  }

  @Test
  void typesRequiredFieldsAndEmbeddedResourcesAreChecked() {
    ObjectNode object =
        json(
            """
            {"spec": {"replicas": "three", "image": "", "template": {"metadata": {}}}}
            """);
    assertThat(messages(CRON_TAB.validate(object)))
        .containsExactlyInAnyOrder(
            "spec.cronSpec: Required value",
            "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type"
                + " integer: \"string\"",
            "spec.image: Invalid value: \"\": spec.image in body should be at least 1 chars long",
            "spec.template.apiVersion: Required value: must not be empty",
            "spec.template.kind: Required value: must not be empty");
  }

  @Test
  void int32FormatRefusesWhatDoesNotFit() {
    assertThat(
            messages(
                CRON_TAB.validate(
                    json("{\"spec\": {\"cronSpec\": \"* * * * *\", \"replicas\": 4294967296}}"))))
        .contains(
            "spec.replicas: Invalid value: 4294967296: spec.replicas in body must be of type"
                + " int32: 4294967296");
  }

  @Test
  void pruningRemovesWhatTheSchemaDoesNotSpecifyAndKeepsWhatItPreserves() {
    ObjectNode object =
        json(
            """
            {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "a"},
             "spec": {"cronSpec": "* * * * *", "unknown": 1, "extra": {"anything": {"goes": 1}},
                      "replicas": null, "note": null,
                      "template": {"apiVersion": "v1", "kind": "Pod",
                                   "metadata": {"name": "p", "bogus": 1}, "spec": {}}},
             "top": "level"}
            """);
    assertThat(CRON_TAB.prune(object))
        .containsExactlyInAnyOrder("spec.unknown", "spec.template.metadata.bogus", "top");
    assertThat(object.path("spec").has("unknown")).isFalse();
    assertThat(object.path("spec").has("replicas"))
        .as("a null the schema does not allow")
        .isFalse();
    assertThat(object.path("spec").has("note")).as("nullable").isTrue();
    assertThat(object.path("spec").path("extra").path("anything").path("goes").asInt())
        .isEqualTo(1);
    assertThat(object.path("spec").path("template").path("spec").isObject()).isTrue();
    assertThat(object.has("apiVersion") && object.has("kind") && object.has("metadata")).isTrue();
  }

  @Test
  void defaultsFillAbsentFieldsDeeplyAndLeaveGivenOnes() {
    ObjectNode object = json("{\"spec\": {\"cronSpec\": \"* * * * *\"}}");
    CRON_TAB.applyDefaults(object);
    assertThat(object.path("spec").path("replicas").asInt()).isEqualTo(1);
    assertThat(object.path("spec").path("limits").path("cpu").asText()).isEqualTo("1");

    ObjectNode given = json("{\"spec\": {\"replicas\": 5, \"limits\": {\"cpu\": \"2\"}}}");
    CRON_TAB.applyDefaults(given);
    assertThat(given.path("spec").path("replicas").asInt()).isEqualTo(5);
    assertThat(given.path("spec").path("limits").path("cpu").asText()).isEqualTo("2");
  }

  private static final StructuralSchema RULES =
      new StructuralSchema(
          json(
              """
              {"type": "object", "properties": {"spec": {"type": "object",
                "x-kubernetes-validations": [
                  {"rule": "self.replicas <= self.maxReplicas",
                   "message": "replicas must not exceed maxReplicas"},
                  {"rule": "self.minReplicas <= self.replicas",
                   "messageExpression": "'replicas ' + string(self.replicas) + ' below ' + string(self.minReplicas)",
                   "fieldPath": ".replicas", "reason": "FieldValueForbidden"},
                  {"rule": "!has(self.mode) || self.mode != 'off'"}],
                "properties": {
                  "replicas": {"type": "integer"}, "minReplicas": {"type": "integer"},
                  "maxReplicas": {"type": "integer"}, "mode": {"type": "string"},
                  "name": {"type": "string",
                    "x-kubernetes-validations": [
                      {"rule": "self == oldSelf", "message": "Value is immutable"}]}}}}}
              """));

  @Test
  void validationRulesReportTheirMessageAtTheirPathWithTheirReason() {
    ObjectNode valid =
        json("{\"spec\": {\"replicas\": 2, \"minReplicas\": 1, \"maxReplicas\": 3}}");
    assertThat(RULES.validate(valid)).isEmpty();

    ObjectNode invalid =
        json(
            "{\"spec\": {\"replicas\": 5, \"minReplicas\": 6, \"maxReplicas\": 3,"
                + " \"mode\": \"off\"}}");
    assertThat(messages(RULES.validate(invalid)))
        .containsExactly(
            "spec: Invalid value: \"object\": replicas must not exceed maxReplicas",
            "spec.replicas: Forbidden: replicas 5 below 6",
            "spec: Invalid value: \"object\": failed rule: !has(self.mode) || self.mode != 'off'");
  }

  @Test
  void aTransitionRuleComparesWithTheObjectReplacedAndNotOnCreate() {
    ObjectNode created =
        json(
            "{\"spec\": {\"replicas\": 1, \"minReplicas\": 1, \"maxReplicas\": 1,"
                + " \"name\": \"a\"}}");
    assertThat(RULES.validate(created, null)).isEmpty();
    ObjectNode renamed = created.deepCopy();
    ((ObjectNode) renamed.get("spec")).put("name", "b");
    assertThat(messages(RULES.validate(renamed, created)))
        .containsExactly("spec.name: Invalid value: \"string\": Value is immutable");
    assertThat(RULES.validate(created, created)).isEmpty();
  }

  @Test
  void setsAndListMapsMayNotHoldDuplicates() {
    StructuralSchema schema =
        new StructuralSchema(
            json(
                """
                {"type": "object", "properties": {"spec": {"type": "object", "properties": {
                  "tags": {"type": "array", "x-kubernetes-list-type": "set",
                           "items": {"type": "string"}},
                  "sizes": {"type": "array", "x-kubernetes-list-type": "set",
                            "items": {"type": "integer"}},
                  "ports": {"type": "array", "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["name"],
                            "items": {"type": "object", "properties": {
                              "name": {"type": "string"}, "port": {"type": "integer"}}}},
                  "routes": {"type": "array", "x-kubernetes-list-type": "map",
                             "x-kubernetes-list-map-keys": ["host", "port"],
                             "items": {"type": "object", "properties": {
                               "host": {"type": "string"}, "port": {"type": "integer"}}}},
                  "args": {"type": "array", "items": {"type": "string"}}}}}}
                """));
    ObjectNode object =
        json(
            """
            {"spec": {"tags": ["a", "b", "a", "a"], "sizes": [1, 2, 2],
                      "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 8080}],
                      "routes": [{"host": "a", "port": 1}, {"port": 1, "host": "a"},
                                 {"host": "a", "port": 2}],
                      "args": ["x", "x"]}}
            """);

    assertThat(messages(schema.validate(object)))
        .containsExactly(
            "spec.tags[2]: Duplicate value: \"a\"",
            "spec.sizes[2]: Duplicate value: 2",
            "spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"http\"}",
            "spec.routes[1]: Duplicate value: map[string]interface {}{\"host\":\"a\","
                + " \"port\":1}");
  }

  @Test
  void junctorsValidateValuesAsKubeOpenapiReportsThem() {
    StructuralSchema schema =
        new StructuralSchema(
            json(
                """
                {"type": "object", "properties": {"spec": {"type": "object",
                  "anyOf": [{"required": ["cron"]}, {"required": ["interval"]}],
                  "properties": {
                    "cron": {"type": "string"}, "interval": {"type": "integer"},
                    "size": {"type": "integer",
                             "oneOf": [{"minimum": 10}, {"maximum": 20}]},
                    "name": {"type": "string", "not": {"enum": ["root"]},
                             "allOf": [{"maxLength": 5}, {"pattern": "^[a-z]+$"}]}}}}}
                """));

    assertThat(
            messages(schema.validate(json("{\"spec\": {\"cron\": \"* * * * *\", \"size\": 30}}"))))
        .isEmpty();
    assertThat(messages(schema.validate(json("{\"spec\": {\"size\": 15, \"name\": \"root\"}}"))))
        .containsExactly(
            "<nil>: Invalid value: \"\": \"spec.size\" must validate one and only one schema"
                + " (oneOf). Found 2 valid alternatives",
            "<nil>: Invalid value: \"\": \"spec.name\" must not validate the schema (not)",
            "<nil>: Invalid value: \"\": \"spec\" must validate at least one schema (anyOf)",
            "spec.cron: Required value",
            "spec.interval: Required value");
    assertThat(
            messages(
                schema.validate(json("{\"spec\": {\"interval\": 1, \"name\": \"Too-long\"}}"))))
        .containsExactly(
            "spec.name: Too long: may not be longer than 5",
            "spec.name: Invalid value: \"Too-long\": spec.name in body should match"
                + " '^[a-z]+$'",
            "<nil>: Invalid value: \"\": \"spec.name\" must validate all the schemas (allOf)."
                + " None validated");
  }

  private static final StructuralSchema TRANSITIONS =
      new StructuralSchema(
          json(
              """
              {"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "tier": {"type": "string", "x-kubernetes-validations": [
                  {"rule": "oldSelf.hasValue() || self == 'free'", "optionalOldSelf": true,
                   "message": "a new tier starts free"}]},
                "ports": {"type": "array", "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "port": {"type": "integer", "x-kubernetes-validations": [
                      {"rule": "self >= oldSelf", "message": "a port only grows"}]}}}},
                "limits": {"type": "object", "additionalProperties": {"type": "string",
                  "x-kubernetes-validations": [
                    {"rule": "quantity(self).compareTo(quantity(oldSelf)) >= 0",
                     "message": "a limit only grows"}]}}}}}}
              """));

  @Test
  void optionalOldSelfIsCheckedOnCreateTooAndListMapItemsAndMapValuesAreCorrelated() {
    ObjectNode created =
        json(
            "{\"spec\": {\"tier\": \"gold\", \"ports\": [{\"name\": \"http\", \"port\": 80}],"
                + " \"limits\": {\"cpu\": \"1\"}}}");
    assertThat(messages(TRANSITIONS.validate(created, null)))
        .containsExactly("spec.tier: Invalid value: \"string\": a new tier starts free");
    ((ObjectNode) created.get("spec")).put("tier", "free");
    assertThat(TRANSITIONS.validate(created, null)).isEmpty();

    ObjectNode updated = created.deepCopy();
    ((ObjectNode) updated.get("spec")).put("tier", "gold");
    ((ObjectNode) updated.at("/spec/ports/0")).put("port", 79);
    ((ObjectNode) updated.at("/spec/limits")).put("cpu", "500m");
    ((ObjectNode) updated.at("/spec/limits")).put("memory", "1Gi");
    assertThat(messages(TRANSITIONS.validate(updated, created)))
        .containsExactlyInAnyOrder(
            "spec.ports[0].port: Invalid value: \"integer\": a port only grows",
            "spec.limits[cpu]: Invalid value: \"string\": a limit only grows");

    ObjectNode reordered = created.deepCopy();
    ((com.fasterxml.jackson.databind.node.ArrayNode) reordered.at("/spec/ports"))
        .insertObject(0)
        .put("name", "https")
        .put("port", 1);
    assertThat(TRANSITIONS.validate(reordered, created)).isEmpty();
  }
}
