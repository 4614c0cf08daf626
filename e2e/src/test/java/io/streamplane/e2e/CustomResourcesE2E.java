package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A CustomResourceDefinition applied with kubectl on a cluster without nodes: Established within a
 * second, its kind served with its printer columns, schema (a pattern, a default, pruning of
 * unknown fields, 422 with kube-apiserver's message), status and scale subresources ({@code kubectl
 * scale}), and deleting the definition deleting its objects.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CustomResourcesE2E {

  private static final ObjectMapper JSON = new ObjectMapper();

  static final String CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: crontabs.stable.example.com
      spec:
        group: stable.example.com
        scope: Namespaced
        names:
          plural: crontabs
          singular: crontab
          kind: CronTab
          shortNames: [ct]
          categories: [all]
        versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  x-kubernetes-validations:
                  - rule: "!has(self.image) || !self.image.startsWith('forbidden')"
                    message: image must not be a forbidden one
                    fieldPath: .image
                  properties:
                    cronSpec:
                      type: string
                      pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
                    image:
                      type: string
                    replicas:
                      type: integer
                      minimum: 0
                      maximum: 10
                      default: 1
                    selector:
                      type: string
                status:
                  type: object
                  properties:
                    replicas:
                      type: integer
          subresources:
            status: {}
            scale:
              specReplicasPath: .spec.replicas
              statusReplicasPath: .status.replicas
              labelSelectorPath: .spec.selector
          additionalPrinterColumns:
          - name: Spec
            type: string
            jsonPath: .spec.cronSpec
          - name: Replicas
            type: integer
            jsonPath: .spec.replicas
          - name: Image
            type: string
            jsonPath: .spec.image
            priority: 1
          - name: Age
            type: date
            jsonPath: .metadata.creationTimestamp
      """;

  static final String CRON_TAB =
      """
      apiVersion: stable.example.com/v1
      kind: CronTab
      metadata:
        name: my-cron
      spec:
        cronSpec: '* * * * */5'
        image: my-cron-image
      """;

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster() throws Exception {
    home = Files.createTempDirectory("custom-resources-e2e");
    cluster = new LocalCluster(home, "--nodes", "0").start();
    kubectl = cluster.kubectl;
  }

  @AfterAll
  void stopCluster() throws Exception {
    try {
      cluster.stop();
    } finally {
      cluster.close();
      try (var files = Files.walk(home)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  @Order(1)
  void aDefinitionIsEstablishedWithinASecondAndItsKindServedWithItsColumns() throws Exception {
    kubectl.runWithInput(CRD, "apply", "-f", "-").expectSuccess();
    kubectl
        .run(
            "wait",
            "--for=condition=Established",
            "crd/crontabs.stable.example.com",
            "--timeout=10s")
        .expectSuccess();
    JsonNode crd =
        JSON.readTree(
            kubectl
                .run("get", "crd", "crontabs.stable.example.com", "-o", "json")
                .expectSuccess()
                .out());
    Instant created = Instant.parse(crd.path("metadata").path("creationTimestamp").asText());
    for (String type : List.of("NamesAccepted", "Established")) {
      JsonNode condition = null;
      for (JsonNode c : crd.path("status").path("conditions")) {
        condition = c.path("type").asText().equals(type) ? c : condition;
      }
      assertThat(condition).as(type).isNotNull();
      assertThat(condition.path("status").asText()).isEqualTo("True");
      // Both times are in whole seconds, as Kubernetes writes them. On a quiet machine the
      // conditions carry the creation's own second; the bound leaves room for a loaded one.
      assertThat(
              Duration.between(
                  created, Instant.parse(condition.path("lastTransitionTime").asText())))
          .as("%s set soon after the definition's creation", type)
          .isLessThanOrEqualTo(Duration.ofSeconds(5));
    }
    assertThat(crd.path("metadata").path("finalizers").toString())
        .contains("customresourcecleanup.apiextensions.k8s.io");
    assertThat(kubectl.run("get", "crd").expectSuccess().out())
        .contains("NAME", "CREATED AT", "crontabs.stable.example.com");
    assertThat(kubectl.run("api-resources", "--api-group=stable.example.com").expectSuccess().out())
        .contains("crontabs", "ct", "stable.example.com/v1", "true", "CronTab");

    kubectl.runWithInput(CRON_TAB, "apply", "-f", "-").expectSuccess();
    String table = kubectl.run("get", "crontabs").expectSuccess().out();
    assertThat(table.lines().findFirst().orElseThrow().split("\\s+"))
        .containsExactly("NAME", "SPEC", "REPLICAS", "AGE");
    assertThat(table).contains("my-cron", "* * * * */5", " 1 ");
    assertThat(kubectl.run("get", "ct", "-o", "wide").expectSuccess().out())
        .contains("IMAGE", "my-cron-image");
    assertThat(kubectl.run("get", "all").expectSuccess().out())
        .contains("crontab.stable.example.com/my-cron");
  }

  @Test
  @Order(2)
  void aWriteThatBreaksTheSchemaIsRefusedWith422AndUnknownFieldsArePruned() throws Exception {
    Kubectl.Result refused =
        kubectl.runWithInput(CRON_TAB.replace("'* * * * */5'", "'bad'"), "apply", "-f", "-");
    assertThat(refused.exitCode()).isNotZero();
    assertThat(refused.err())
        .contains(
            "The CronTab \"my-cron\" is invalid: spec.cronSpec: Invalid value: \"bad\":"
                + " spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)"
                + "(/\\d+)?){4}$'");
    Kubectl.Result tooMany =
        kubectl.run("patch", "ct", "my-cron", "--type=merge", "-p", "{\"spec\":{\"replicas\":11}}");
    assertThat(tooMany.err())
        .contains(
            "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or"
                + " equal to 10");
    Kubectl.Result ruled =
        kubectl.run(
            "patch",
            "ct",
            "my-cron",
            "--type=merge",
            "-p",
            "{\"spec\":{\"image\":\"forbidden-1\"}}");
    assertThat(ruled.err())
        .contains("spec.image: Invalid value: \"object\": image must not be a forbidden one");
    Kubectl.Result strategic =
        kubectl.run(
            "patch", "ct", "my-cron", "--type=strategic", "-p", "{\"spec\":{\"replicas\":2}}");
    assertThat(strategic.err())
        .contains(
            "accepted media types include: application/json-patch+json,"
                + " application/merge-patch+json, application/apply-patch+yaml");

    String unknown = CRON_TAB.replace("my-cron", "other").replace("image:", "bogus: 1\n  image:");
    Kubectl.Result strict = kubectl.runWithInput(unknown, "create", "-f", "-");
    assertThat(strict.err()).contains("unknown field \"spec.bogus\"");
    Kubectl.Result warned = kubectl.runWithInput(unknown, "create", "--validate=warn", "-f", "-");
    warned.expectSuccess();
    assertThat(warned.err()).contains("unknown field \"spec.bogus\"");
    JsonNode other =
        JSON.readTree(kubectl.run("get", "ct", "other", "-o", "json").expectSuccess().out());
    assertThat(other.path("spec").has("bogus")).isFalse();
    assertThat(other.path("spec").path("replicas").asInt()).as("defaulted").isEqualTo(1);
    assertThat(other.path("metadata").path("generation").asInt()).isEqualTo(1);
  }

  @Test
  @Order(3)
  void kubectlScaleWritesTheReplicasPathAndStatusIsItsOwnSubresource() throws Exception {
    kubectl.run("scale", "crontab", "my-cron", "--replicas=5").expectSuccess();
    JsonNode scaled =
        JSON.readTree(kubectl.run("get", "ct", "my-cron", "-o", "json").expectSuccess().out());
    assertThat(scaled.path("spec").path("replicas").asInt()).isEqualTo(5);
    assertThat(scaled.path("metadata").path("generation").asInt()).isEqualTo(2);

    kubectl
        .run(
            "patch",
            "ct",
            "my-cron",
            "--subresource=status",
            "--type=merge",
            "-p",
            "{\"status\":{\"replicas\":5}}")
        .expectSuccess();
    kubectl
        .run("patch", "ct", "my-cron", "--type=merge", "-p", "{\"status\":{\"replicas\":9}}")
        .expectSuccess();
    JsonNode after =
        JSON.readTree(kubectl.run("get", "ct", "my-cron", "-o", "json").expectSuccess().out());
    assertThat(after.path("status").path("replicas").asInt())
        .as("the main resource does not write status")
        .isEqualTo(5);
    assertThat(after.path("metadata").path("generation").asInt()).isEqualTo(2);
    JsonNode scale =
        JSON.readTree(
            kubectl
                .run(
                    "get",
                    "--raw",
                    "/apis/stable.example.com/v1/namespaces/default/crontabs/my-cron/scale")
                .expectSuccess()
                .out());
    assertThat(scale.path("status").path("replicas").asInt()).isEqualTo(5);
  }

  @Test
  @Order(4)
  void deletingTheDefinitionDeletesItsObjects() throws Exception {
    kubectl.run("delete", "crd", "crontabs.stable.example.com", "--timeout=30s").expectSuccess();
    assertThat(kubectl.run("get", "crd", "crontabs.stable.example.com").err()).contains("NotFound");
    kubectl.runWithInput(CRD, "apply", "-f", "-").expectSuccess();
    kubectl
        .run(
            "wait",
            "--for=condition=Established",
            "crd/crontabs.stable.example.com",
            "--timeout=10s")
        .expectSuccess();
    await("the kind served again, empty")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(kubectl.run("get", "crontabs", "-A").err())
                    .contains("No resources found"));
  }
}
