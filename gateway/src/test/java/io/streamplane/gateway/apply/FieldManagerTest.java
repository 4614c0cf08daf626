package io.streamplane.gateway.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.streamplane.gateway.patch.PatchSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FieldManagerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PatchSchema DEPLOYMENT =
      PatchSchema.forKind("apps/v1", "Deployment").orElseThrow();
  private static final Instant T1 = Instant.parse("2026-11-23T05:00:00Z");
  private static final Instant T2 = Instant.parse("2026-11-23T05:01:00Z");

  /**
   * What kube-apiserver 1.32 records for {@code kubectl apply --server-side -f
   * examples/nginx-deployment.yaml}: the applied fields only, selectors atomic, containers by name,
   * ports by containerPort and the defaulted protocol.
   */
  private static final String NGINX_APPLIED =
      "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:replicas\":{},"
          + "\"f:selector\":{},\"f:template\":{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},"
          + "\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"nginx\\\"}\":{\".\":{},"
          + "\"f:image\":{},\"f:name\":{},\"f:ports\":{"
          + "\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{\".\":{},"
          + "\"f:containerPort\":{}}}}}}}}}";

  @Test
  void appliedNginxDeploymentOwnsTheFieldsKubernetesRecords() throws IOException {
    ObjectNode created = apply(null, nginx(), "kubectl", false, T1);

    JsonNode entry = created.path("metadata").path("managedFields").get(0);
    assertThat(created.path("metadata").path("managedFields")).hasSize(1);
    assertThat(entry.path("manager").asText()).isEqualTo("kubectl");
    assertThat(entry.path("operation").asText()).isEqualTo("Apply");
    assertThat(entry.path("apiVersion").asText()).isEqualTo("apps/v1");
    assertThat(entry.path("time").asText()).isEqualTo("2026-11-23T05:00:00Z");
    assertThat(entry.path("fieldsType").asText()).isEqualTo("FieldsV1");
    assertThat(entry.has("subresource")).isFalse();
    assertThat(entry.path("fieldsV1").toString()).isEqualTo(NGINX_APPLIED);
  }

  @Test
  void fieldsV1RoundTripsThroughTheFieldSet() {
    FieldSet set = FieldSet.fromFieldsV1(json(NGINX_APPLIED));

    assertThat(set.toFieldsV1().toString()).isEqualTo(NGINX_APPLIED);
    assertThat(set.toString())
        .contains(
            ".spec.template.spec.containers[name=\"nginx\"].ports"
                + "[containerPort=80,protocol=\"TCP\"].containerPort");
  }

  @Test
  void serializationSortsFieldsBeforeKeysBeforeValuesAndNamesByBytes() {
    FieldSet set =
        FieldSet.fromFieldsV1(
            json(
                "{\"f:b\":{},\"f:B\":{},\"f:list\":{\"v:\\\"x\\\"\":{},\"v:2\":{}},"
                    + "\"f:a\":{\"k:{\\\"name\\\":\\\"z\\\"}\":{},\"f:z\":{}}}"));

    assertThat(set.toFieldsV1().toString())
        .isEqualTo(
            "{\"f:B\":{},\"f:a\":{\"f:z\":{},\"k:{\\\"name\\\":\\\"z\\\"}\":{}},\"f:b\":{},"
                + "\"f:list\":{\"v:2\":{},\"v:\\\"x\\\"\":{}}}");
  }

  @Test
  void createByUpdateOwnsDefaultedFieldsWithTheDotsKubernetesWrites() {
    ObjectNode body = nginx();
    body.with("spec").put("revisionHistoryLimit", 10);
    body.with("spec").with("strategy").put("type", "RollingUpdate");
    body.with("spec").with("strategy").with("rollingUpdate").put("maxSurge", "25%");

    ObjectNode created =
        FieldManager.update(
            null,
            body,
            DEPLOYMENT,
            FieldManager.Scope.MAIN,
            new FieldManager.Writer("kubectl-create", "apps/v1", "", T1));

    JsonNode fields = created.path("metadata").path("managedFields").get(0).path("fieldsV1");
    assertThat(created.path("metadata").path("managedFields").get(0).path("operation").asText())
        .isEqualTo("Update");
    assertThat(fields.path("f:metadata").path("f:labels").has(".")).isTrue();
    assertThat(fields.path("f:spec").has(".")).isFalse();
    assertThat(fields.path("f:spec").path("f:strategy").has(".")).isFalse();
    assertThat(fields.path("f:spec").path("f:strategy").path("f:rollingUpdate").has(".")).isTrue();
    JsonNode spec = fields.path("f:spec").path("f:template").path("f:spec");
    assertThat(spec.path("f:containers").has(".")).isFalse();
    assertThat(spec.path("f:containers").path("k:{\"name\":\"nginx\"}").path("f:ports").has("."))
        .isTrue();
  }

  @Test
  void applyMergesIntoLiveAndAnotherManagersChangedValueIsAConflict() throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);
    ObjectNode other = nginx();
    other.with("spec").put("replicas", 3);

    assertThatThrownBy(() -> apply(live, other, "b", false, T2))
        .isInstanceOfSatisfying(
            FieldManager.ConflictException.class,
            e -> {
              assertThat(e.conflicts()).hasSize(1);
              assertThat(e.conflicts().get(0).manager().manager()).isEqualTo("a");
              assertThat(FieldSet.pathString(e.conflicts().get(0).path()))
                  .isEqualTo(".spec.replicas");
            });
  }

  @Test
  void theSameValueIsSharedWithoutConflict() throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);

    ObjectNode both = apply(live, nginx(), "b", false, T2);

    assertThat(both.path("metadata").path("managedFields")).hasSize(2);
    assertThat(both.path("metadata").path("managedFields").get(1).path("fieldsV1").toString())
        .isEqualTo(NGINX_APPLIED);
  }

  @Test
  void forceTakesOwnershipOfTheConflictingField() throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);
    ObjectNode other = nginx();
    other.with("spec").put("replicas", 3);

    ObjectNode forced = apply(live, other, "b", true, T2);

    assertThat(forced.path("spec").path("replicas").asInt()).isEqualTo(3);
    JsonNode entries = forced.path("metadata").path("managedFields");
    assertThat(entries.get(0).path("manager").asText()).isEqualTo("a");
    assertThat(entries.get(0).path("fieldsV1").path("f:spec").has("f:replicas")).isFalse();
    assertThat(entries.get(1).path("manager").asText()).isEqualTo("b");
    assertThat(entries.get(1).path("fieldsV1").path("f:spec").has("f:replicas")).isTrue();
  }

  @Test
  void aFieldNoLongerAppliedIsRemovedOnlyWhenNobodyElseOwnsIt() throws IOException {
    ObjectNode withLabel = nginx();
    withLabel.with("metadata").with("labels").put("tier", "web");
    ObjectNode live = apply(null, withLabel, "a", false, T1);
    ObjectNode b =
        (ObjectNode)
            json(
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
                    + "\"metadata\":{\"name\":\"nginx-deployment\",\"labels\":{\"app\":\"nginx\"}}}");
    ObjectNode shared = apply(live, b, "b", false, T2);

    ObjectNode without = nginx();
    ((ObjectNode) without.path("metadata")).remove("labels");
    ObjectNode reapplied = apply(shared, without, "a", false, T2);

    assertThat(reapplied.path("metadata").path("labels").has("tier")).isFalse();
    assertThat(reapplied.path("metadata").path("labels").path("app").asText()).isEqualTo("nginx");
  }

  @Test
  void aContainerNoLongerAppliedIsRemovedWithItsDefaultedFields() throws IOException {
    ObjectNode two = nginx();
    ((com.fasterxml.jackson.databind.node.ArrayNode)
            two.path("spec").path("template").path("spec").path("containers"))
        .addObject()
        .put("name", "sidecar")
        .put("image", "busybox");
    ObjectNode live = apply(null, two, "a", false, T1);
    ((ObjectNode) live.path("spec").path("template").path("spec").path("containers").get(1))
        .put("terminationMessagePath", "/dev/termination-log");

    ObjectNode reapplied = apply(live, nginx(), "a", false, T2);

    assertThat(reapplied.path("spec").path("template").path("spec").path("containers")).hasSize(1);
  }

  @Test
  void anUpdateTakesTheFieldsItChangesFromAppliers() throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);
    ObjectNode scaled = live.deepCopy();
    scaled.with("spec").put("replicas", 5);

    ObjectNode updated =
        FieldManager.update(
            live,
            scaled,
            DEPLOYMENT,
            FieldManager.Scope.MAIN,
            new FieldManager.Writer("kubectl-scale", "apps/v1", "scale", T2));

    JsonNode entries = updated.path("metadata").path("managedFields");
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0).path("fieldsV1").path("f:spec").has("f:replicas")).isFalse();
    assertThat(entries.get(1).path("manager").asText()).isEqualTo("kubectl-scale");
    assertThat(entries.get(1).path("subresource").asText()).isEqualTo("scale");
    assertThat(entries.get(1).path("fieldsV1").toString())
        .isEqualTo("{\"f:spec\":{\"f:replicas\":{}}}");
  }

  @Test
  void anUpdateWithoutManagedFieldsKeepsTheLiveOnesAndOneWithAnEmptyEntryResetsThem()
      throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);
    ObjectNode unaware = live.deepCopy();
    ((ObjectNode) unaware.path("metadata")).remove("managedFields");
    unaware.with("metadata").with("labels").put("x", "y");

    ObjectNode kept =
        FieldManager.update(
            live,
            unaware,
            DEPLOYMENT,
            FieldManager.Scope.MAIN,
            new FieldManager.Writer("kubectl-edit", "apps/v1", "", T2));
    ObjectNode reset = live.deepCopy();
    reset.with("metadata").putArray("managedFields").addObject();
    ObjectNode wasReset =
        FieldManager.update(
            live,
            reset,
            DEPLOYMENT,
            FieldManager.Scope.MAIN,
            new FieldManager.Writer("kubectl-edit", "apps/v1", "", T2));

    assertThat(kept.path("metadata").path("managedFields")).hasSize(2);
    assertThat(wasReset.path("metadata").path("managedFields")).isEmpty();
  }

  @Test
  void nullsAddedByAnUpdateAreOwnedLikeAnyValue() throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);
    ObjectNode withNulls = live.deepCopy();
    withNulls.with("spec").with("template").with("metadata").putNull("creationTimestamp");
    withNulls.with("spec").putNull("paused");

    ObjectNode updated =
        FieldManager.update(
            live,
            withNulls,
            DEPLOYMENT,
            FieldManager.Scope.MAIN,
            new FieldManager.Writer("kubectl-rollout", "apps/v1", "", T2));

    JsonNode entries = updated.path("metadata").path("managedFields");
    assertThat(entries.get(1).path("fieldsV1").toString())
        .isEqualTo(
            "{\"f:spec\":{\"f:paused\":{},\"f:template\":{\"f:metadata\":"
                + "{\"f:creationTimestamp\":{}}}}}");
  }

  @Test
  void aNoOpApplyKeepsTheTimeOfTheEntry() throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);

    ObjectNode again = apply(live, nginx(), "a", false, T2);

    assertThat(again.path("metadata").path("managedFields").get(0).path("time").asText())
        .isEqualTo("2026-11-23T05:00:00Z");
  }

  @Test
  void statusWritesOwnOnlyStatus() throws IOException {
    ObjectNode live = apply(null, nginx(), "a", false, T1);
    ObjectNode withStatus = live.deepCopy();
    withStatus.with("status").put("replicas", 2);
    withStatus.with("spec").put("replicas", 9);

    ObjectNode updated =
        FieldManager.update(
            live,
            withStatus,
            DEPLOYMENT,
            FieldManager.Scope.STATUS,
            new FieldManager.Writer("controller", "apps/v1", "status", T2));

    JsonNode entries = updated.path("metadata").path("managedFields");
    assertThat(entries.get(1).path("fieldsV1").toString())
        .isEqualTo("{\"f:status\":{\"f:replicas\":{}}}");
    assertThat(entries.get(0).path("fieldsV1").path("f:spec").has("f:replicas")).isTrue();
  }

  private static ObjectNode apply(
      ObjectNode live, ObjectNode config, String manager, boolean force, Instant time) {
    return FieldManager.apply(
        live,
        config,
        DEPLOYMENT,
        FieldManager.Scope.MAIN,
        new FieldManager.Writer(manager, "apps/v1", "", time),
        force);
  }

  private static ObjectNode nginx() {
    try {
      return (ObjectNode)
          new YAMLMapper()
              .readTree(Files.readAllBytes(Path.of("../examples/nginx-deployment.yaml")));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalArgumentException(text, e);
    }
  }
}
