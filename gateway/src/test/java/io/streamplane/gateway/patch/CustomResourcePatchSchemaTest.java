package io.streamplane.gateway.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.streamplane.gateway.apply.ApplyStatuses;
import io.streamplane.gateway.apply.FieldManager;
import io.streamplane.gateway.apply.FieldSet;
import java.io.IOException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CustomResourcePatchSchemaTest {

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Instant T1 = Instant.parse("2026-11-27T05:00:00Z");
  private static final Instant T2 = Instant.parse("2026-11-27T05:01:00Z");

  private static final PatchSchema SCHEMA =
      CustomResourcePatchSchema.of(
          yaml(
              """
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    ports:
                      type: array
                      x-kubernetes-list-type: map
                      x-kubernetes-list-map-keys: [name]
                      items:
                        type: object
                        required: [name]
                        properties:
                          name: {type: string}
                          port: {type: integer}
                    tags:
                      type: array
                      x-kubernetes-list-type: set
                      items: {type: string}
                    args:
                      type: array
                      items: {type: string}
                    selector:
                      type: object
                      x-kubernetes-map-type: atomic
                      additionalProperties: {type: string}
                    labels:
                      type: object
                      additionalProperties: {type: string}
              """));

  @Test
  void twoAppliersOfAMapListKeepEachOthersItems() {
    ObjectNode live = apply(null, cr("ports: [{name: http, port: 80}]"), "alice", T1);
    ObjectNode both = apply(live, cr("ports: [{name: metrics, port: 9090}]"), "bob", T2);

    assertThat(both.path("spec").path("ports").toString())
        .isEqualTo("[{\"name\":\"http\",\"port\":80},{\"name\":\"metrics\",\"port\":9090}]");
    JsonNode bobs = both.path("metadata").path("managedFields").get(1).path("fieldsV1");
    assertThat(bobs.toString())
        .isEqualTo(
            "{\"f:spec\":{\"f:ports\":{\"k:{\\\"name\\\":\\\"metrics\\\"}\":"
                + "{\".\":{},\"f:name\":{},\"f:port\":{}}}}}");

    ObjectNode alone = apply(both, cr("ports: []"), "alice", T2);
    assertThat(alone.path("spec").path("ports").toString())
        .isEqualTo("[{\"name\":\"metrics\",\"port\":9090}]");
  }

  @Test
  void changingAnotherAppliersItemIsAConflictOnTheItemsField() {
    ObjectNode live = apply(null, cr("ports: [{name: http, port: 80}]"), "alice", T1);

    assertThatThrownBy(() -> apply(live, cr("ports: [{name: http, port: 8080}]"), "bob", T2))
        .isInstanceOfSatisfying(
            FieldManager.ConflictException.class,
            e ->
                assertThat(ApplyStatuses.conflict(e.conflicts()).path("message").asText())
                    .isEqualTo(
                        "Apply failed with 1 conflict: conflict with \"alice\":"
                            + " .spec.ports[name=\"http\"].port"));
  }

  @Test
  void setsMergeByValueAndAtomicListsAreReplaced() {
    ObjectNode live = apply(null, cr("{tags: [a, b], args: [x, y]}"), "alice", T1);
    ObjectNode merged = apply(live, cr("{tags: [b, c]}"), "bob", T2);
    assertThat(merged.path("spec").path("tags").toString()).isEqualTo("[\"a\",\"b\",\"c\"]");

    assertThatThrownBy(() -> apply(live, cr("{args: [z]}"), "bob", T2))
        .isInstanceOfSatisfying(
            FieldManager.ConflictException.class,
            e ->
                assertThat(FieldSet.pathString(e.conflicts().get(0).path()))
                    .isEqualTo(".spec.args"));
    ObjectNode forced =
        FieldManager.apply(
            live,
            cr("{args: [z]}"),
            SCHEMA,
            FieldManager.Scope.ALL,
            new FieldManager.Writer("bob", "stable.example.com/v1", "", T2),
            true);
    assertThat(forced.path("spec").path("args").toString()).isEqualTo("[\"z\"]");
  }

  @Test
  void anAtomicMapIsOwnedWholeAndAGranularOneKeyByKey() {
    ObjectNode live = apply(null, cr("{selector: {app: a}, labels: {x: '1'}}"), "alice", T1);
    JsonNode fields = live.path("metadata").path("managedFields").get(0).path("fieldsV1");

    assertThat(fields.toString())
        .isEqualTo("{\"f:spec\":{\"f:labels\":{\"f:x\":{}},\"f:selector\":{}}}");
    ObjectNode both = apply(live, cr("{labels: {y: '2'}}"), "bob", T2);
    assertThat(both.path("spec").path("labels").size()).isEqualTo(2);
  }

  @Test
  void metadataListsAreObjectMetas() {
    ObjectNode config = cr("{}");
    config.with("metadata").putArray("finalizers").add("example.com/a");
    ObjectNode live = apply(null, config, "alice", T1);
    ObjectNode other = cr("{}");
    other.with("metadata").putArray("finalizers").add("example.com/b");

    ObjectNode both = apply(live, other, "bob", T2);

    assertThat(both.path("metadata").path("finalizers").toString())
        .isEqualTo("[\"example.com/a\",\"example.com/b\"]");
  }

  private static ObjectNode apply(ObjectNode live, ObjectNode config, String manager, Instant t) {
    return FieldManager.apply(
        live,
        config,
        SCHEMA,
        FieldManager.Scope.ALL,
        new FieldManager.Writer(manager, "stable.example.com/v1", "", t),
        false);
  }

  private static ObjectNode cr(String spec) {
    ObjectNode object = (ObjectNode) yaml("{apiVersion: stable.example.com/v1, kind: App}");
    object.putObject("metadata").put("name", "app").put("namespace", "default");
    object.set("spec", yaml(spec.startsWith("{") ? spec : "{" + spec + "}"));
    return object;
  }

  private static JsonNode yaml(String text) {
    try {
      return YAML.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException(text, e);
    }
  }
}
