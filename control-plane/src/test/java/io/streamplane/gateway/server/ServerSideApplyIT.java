package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.testing.ApiRequests;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.plane.ControlPlane;
import io.streamplane.topics.TopicLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server-side apply and managedFields through the gateway, on the real store and an embedded
 * broker: apply creates and merges, ownership moves with updates and patches, conflicts are
 * kube-apiserver's 409, force takes over, a field no longer applied goes only when nobody else owns
 * it, and concurrent appliers never lose each other's fields.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerSideApplyIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String APPLY = "application/apply-patch+yaml";

  private ApiRequests api;

  private ControlPlane plane;
  private GatewayServer gateway;
  private String namespace;

  @BeforeAll
  void startCluster(EmbeddedKafkaBroker broker, @TempDir Path stateDir) throws Exception {
    plane =
        ControlPlane.builder()
            .bootstrapServers(broker.bootstrapServers())
            .layout(
                TopicLayout.singleBroker(
                    KafkaBrokerExtension.uniqueName("ssa").replaceAll("[^a-zA-Z0-9_-]", "_")))
            .stateDir(stateDir)
            .gateway("127.0.0.1", 26410, 0, null)
            .systemNamespaces(ControlPlane.SystemNamespaces.CREATE)
            .start();
    gateway = plane.gateway();
    api = new ApiRequests(gateway.url());
  }

  @AfterAll
  void stopCluster() {
    if (plane != null) {
      plane.close();
    }
  }

  @BeforeEach
  void createNamespace() {
    namespace = api.createNamespace();
  }

  @Test
  void applyCreatesTheObjectAndRecordsTheAppliersFields() {
    HttpResponse<String> created = apply("web", "a", false, deploymentYaml("web", 2));

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode entries = json(created).path("metadata").path("managedFields");
    assertThat(entries).hasSize(1);
    assertThat(entries.get(0).path("manager").asText()).isEqualTo("a");
    assertThat(entries.get(0).path("operation").asText()).isEqualTo("Apply");
    assertThat(entries.get(0).path("fieldsV1").path("f:spec").has("f:replicas")).isTrue();
    JsonNode read = json(send("GET", deployments() + "/web", null, null));
    assertThat(read.path("metadata").path("managedFields")).isEqualTo(entries);
    assertThat(read.path("spec").path("strategy").path("type").asText())
        .as("defaults are applied, and nobody owns them")
        .isEqualTo("RollingUpdate");
    assertThat(entries.get(0).path("fieldsV1").path("f:spec").has("f:strategy")).isFalse();
  }

  @Test
  void aConfigMapAppliedAsJsonIsCreatedWithItsApplier() {
    HttpResponse<String> created =
        send(
            "PATCH",
            "/api/v1/namespaces/"
                + namespace
                + "/configmaps/applied?fieldManager=java-a&force=false",
            APPLY,
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"applied\"},"
                + "\"data\":{\"owner\":\"a\"}}");

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    assertThat(json(created).path("metadata").path("managedFields").toString())
        .as(created.body())
        .contains("\"manager\":\"java-a\"", "{\"f:data\":{\"f:owner\":{}}}");
  }

  @Test
  void anotherManagersDifferentValueIsAConflictUntilForced() {
    assertThat(apply("web", "a", false, deploymentYaml("web", 2)).statusCode()).isEqualTo(201);

    HttpResponse<String> conflict = apply("web", "b", false, deploymentYaml("web", 3));

    assertThat(conflict.statusCode()).as(conflict.body()).isEqualTo(409);
    JsonNode status = json(conflict);
    assertThat(status.path("reason").asText()).isEqualTo("Conflict");
    assertThat(status.path("message").asText())
        .isEqualTo("Apply failed with 1 conflict: conflict with \"a\": .spec.replicas");
    assertThat(status.path("details").path("causes").get(0).path("reason").asText())
        .isEqualTo("FieldManagerConflict");
    assertThat(status.path("details").path("causes").get(0).path("field").asText())
        .isEqualTo(".spec.replicas");
    assertThat(status.path("details").has("name")).isFalse();

    HttpResponse<String> forced = apply("web", "b", true, deploymentYaml("web", 3));

    assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);
    JsonNode object = json(forced);
    assertThat(object.path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(owner(object, ".spec.replicas")).containsExactly("b");
  }

  @Test
  void anUpdateManagerIsNamedWithItsVersionInTheConflict() {
    assertThat(
            send(
                    "POST",
                    deployments() + "?fieldManager=mgr-a",
                    "application/json",
                    yamlToJson(deploymentYaml("web", 2)))
                .statusCode())
        .isEqualTo(201);

    HttpResponse<String> conflict = apply("web", "b", false, deploymentYaml("web", 5));

    assertThat(json(conflict).path("message").asText())
        .isEqualTo(
            "Apply failed with 1 conflict: conflict with \"mgr-a\" using apps/v1: .spec.replicas");
  }

  @Test
  void severalConflictsAreGroupedByManager() {
    assertThat(apply("web", "a", false, deploymentYaml("web", 2)).statusCode()).isEqualTo(201);

    HttpResponse<String> conflict =
        apply("web", "b", false, deploymentYaml("web", 3).replace("nginx:1.14.2", "nginx:1.25"));

    assertThat(json(conflict).path("message").asText())
        .isEqualTo(
            "Apply failed with 2 conflicts: conflicts with \"a\":\n"
                + "- .spec.replicas\n"
                + "- .spec.template.spec.containers[name=\"nginx\"].image");
    assertThat(json(conflict).path("details").path("causes")).hasSize(2);
  }

  @Test
  void aFieldNoLongerAppliedGoesOnlyWhenNobodyElseOwnsIt() {
    String labelled =
        deploymentYaml("web", 2)
            .replace(
                "  labels:\n    app: web\n",
                "  labels:\n    app: web\n    tier: front\n    team: blue\n");
    assertThat(apply("web", "a", false, labelled).statusCode()).isEqualTo(201);
    assertThat(
            apply(
                    "web",
                    "b",
                    false,
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
                        + "  labels:\n    team: blue\n")
                .statusCode())
        .isEqualTo(200);

    HttpResponse<String> reapplied = apply("web", "a", false, deploymentYaml("web", 2));

    JsonNode labels = json(reapplied).path("metadata").path("labels");
    assertThat(labels.has("tier")).as("only a owned tier").isFalse();
    assertThat(labels.path("team").asText()).as("b still owns team").isEqualTo("blue");
  }

  @Test
  void updatesAndPatchesTakeTheFieldsTheyChange() {
    assertThat(apply("web", "a", false, deploymentYaml("web", 2)).statusCode()).isEqualTo(201);

    HttpResponse<String> patched =
        send(
            "PATCH",
            deployments() + "/web",
            "application/merge-patch+json",
            "{\"spec\":{\"replicas\":4}}",
            "kubectl-patch/v1.32.0 (linux/amd64) kubernetes/abc");
    HttpResponse<String> scaled =
        send(
            "PATCH",
            deployments() + "/web/scale?fieldManager=scaler",
            "application/merge-patch+json",
            "{\"spec\":{\"replicas\":6}}");

    assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
    assertThat(owner(json(patched), ".spec.replicas")).containsExactly("kubectl-patch");
    assertThat(scaled.statusCode()).as(scaled.body()).isEqualTo(200);
    JsonNode object = json(send("GET", deployments() + "/web", null, null));
    assertThat(owner(object, ".spec.replicas")).containsExactly("scaler");
    JsonNode scaler = entry(object, "scaler");
    assertThat(scaler.path("operation").asText()).isEqualTo("Update");
    assertThat(scaler.path("subresource").asText()).isEqualTo("scale");
    assertThat(scaler.path("apiVersion").asText()).isEqualTo("apps/v1");
  }

  @Test
  void aPutWithoutManagedFieldsKeepsThemAndARepeatedApplyChangesNothing() {
    JsonNode created = json(apply("web", "a", false, deploymentYaml("web", 2)));
    ObjectNode unaware = created.deepCopy();
    ((ObjectNode) unaware.path("metadata")).remove("managedFields");
    ((ObjectNode) unaware.path("metadata")).with("annotations").put("note", "x");

    HttpResponse<String> put =
        send(
            "PUT",
            deployments() + "/web?fieldManager=editor",
            "application/json",
            unaware.toString());
    JsonNode updated = json(put);
    HttpResponse<String> again = apply("web", "a", false, deploymentYaml("web", 2));

    assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    assertThat(owner(updated, ".spec.replicas")).containsExactly("a");
    assertThat(owner(updated, ".metadata.annotations.note")).containsExactly("editor");
    assertThat(json(again).path("metadata").path("resourceVersion").asText())
        .as("an apply that changes nothing writes nothing")
        .isEqualTo(updated.path("metadata").path("resourceVersion").asText());
  }

  @Test
  void applyToTheStatusSubresourceOwnsOnlyStatus() {
    assertThat(apply("web", "a", false, deploymentYaml("web", 2)).statusCode()).isEqualTo(201);

    HttpResponse<String> applied =
        send(
            "PATCH",
            deployments() + "/web/status?fieldManager=ctl",
            APPLY,
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
                + "status:\n  observedGeneration: 1\n");

    assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
    JsonNode object = json(send("GET", deployments() + "/web", null, null));
    assertThat(object.path("status").path("observedGeneration").asInt()).isEqualTo(1);
    JsonNode ctl = entry(object, "ctl");
    assertThat(ctl.path("operation").asText()).isEqualTo("Apply");
    assertThat(ctl.path("subresource").asText()).isEqualTo("status");
    assertThat(ctl.path("fieldsV1").toString())
        .isEqualTo("{\"f:status\":{\"f:observedGeneration\":{}}}");
    assertThat(owner(object, ".spec.replicas")).containsExactly("a");
  }

  @Test
  void badFieldManagersAndForceOutsideApplyAreInvalid() {
    HttpResponse<String> missing =
        send("PATCH", deployments() + "/web", APPLY, deploymentYaml("web", 2));
    HttpResponse<String> tooLong =
        send(
            "POST",
            deployments() + "?fieldManager=" + "m".repeat(129),
            "application/json",
            yamlToJson(deploymentYaml("web", 2)));
    HttpResponse<String> force =
        send("PATCH", deployments() + "/web?force=true", "application/merge-patch+json", "{}");

    assertThat(missing.statusCode()).isEqualTo(422);
    assertThat(json(missing).path("message").asText())
        .isEqualTo(
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required"
                + " for apply patch");
    assertThat(tooLong.statusCode()).isEqualTo(422);
    assertThat(json(tooLong).path("message").asText())
        .isEqualTo(
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more"
                + " than 128 bytes");
    assertThat(json(force).path("message").asText())
        .isEqualTo(
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for"
                + " non-apply patch");
  }

  @Test
  void concurrentAppliersOfDifferentFieldsKeepBoth() {
    assertThat(apply("web", "a", false, deploymentYaml("web", 2)).statusCode()).isEqualTo(201);
    List<CompletableFuture<HttpResponse<String>>> writes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String manager = "m" + i;
      String config =
          "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    "
              + manager
              + ": \"on\"\n";
      writes.add(CompletableFuture.supplyAsync(() -> apply("web", manager, false, config)));
    }

    writes.forEach(w -> assertThat(w.join().statusCode()).as(w.join().body()).isEqualTo(200));
    JsonNode object = json(send("GET", deployments() + "/web", null, null));
    for (int i = 0; i < 6; i++) {
      assertThat(object.path("metadata").path("labels").path("m" + i).asText()).isEqualTo("on");
      assertThat(owner(object, ".metadata.labels.m" + i)).containsExactly("m" + i);
    }
  }

  // ---------------------------------------------------------------- helpers

  private static String deploymentYaml(String name, int replicas) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: %s
          labels:
            app: %s
        spec:
          replicas: %d
          selector:
            matchLabels:
              app: %s
          template:
            metadata:
              labels:
                app: %s
            spec:
              containers:
              - name: nginx
                image: nginx:1.14.2
                ports:
                - containerPort: 80
        """
        .formatted(name, name, replicas, name, name);
  }

  private HttpResponse<String> apply(String name, String manager, boolean force, String yaml) {
    return send(
        "PATCH",
        deployments() + "/" + name + "?fieldManager=" + manager + (force ? "&force=true" : ""),
        APPLY,
        yaml);
  }

  /** The managers whose field sets hold {@code path}, e.g. {@code .spec.replicas}. */
  private static List<String> owner(JsonNode object, String path) {
    List<String> owners = new ArrayList<>();
    for (JsonNode entry : object.path("metadata").path("managedFields")) {
      JsonNode node = entry.path("fieldsV1");
      for (String field : path.substring(1).split("\\.")) {
        node = node.path("f:" + field);
      }
      if (!node.isMissingNode()) {
        owners.add(entry.path("manager").asText());
      }
    }
    return owners;
  }

  private static JsonNode entry(JsonNode object, String manager) {
    for (JsonNode entry : object.path("metadata").path("managedFields")) {
      if (entry.path("manager").asText().equals(manager)) {
        return entry;
      }
    }
    throw new AssertionError("no entry of " + manager + " in " + object);
  }

  private String deployments() {
    return "/apis/apps/v1/namespaces/" + namespace + "/deployments";
  }

  private static String yamlToJson(String yaml) {
    try {
      return new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(yaml).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private HttpResponse<String> send(String method, String path, String contentType, String body) {
    return api.send(method, path, contentType, body);
  }

  private HttpResponse<String> send(
      String method, String path, String contentType, String body, String userAgent) {
    return api.send(method, path, contentType, body, userAgent);
  }

  private static JsonNode json(HttpResponse<String> response) {
    return ApiRequests.json(response);
  }
}
