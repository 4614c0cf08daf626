package io.streamplane.gateway.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusesTest {

  private final ResourceRegistry registry = ResourceRegistry.kubernetes();
  private final ResourceType pods = registry.byResource("", "pods").orElseThrow();
  private final ResourceType deployments = registry.byResource("apps", "deployments").orElseThrow();

  @Test
  void notFoundNamesTheResourceAndCarriesDetails() {
    ObjectNode s = Statuses.notFound(pods, "x");
    assertThat(s.toString())
        .isEqualTo(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\"pods \\\"x\\\" not found\",\"reason\":\"NotFound\","
                + "\"details\":{\"name\":\"x\",\"kind\":\"pods\"},\"code\":404}");
    ObjectNode d = Statuses.notFound(deployments, "web");
    assertThat(d.path("message").asText()).isEqualTo("deployments.apps \"web\" not found");
    assertThat(d.path("details").path("group").asText()).isEqualTo("apps");
  }

  @Test
  void alreadyExistsAndConflictUse409() {
    assertThat(Statuses.alreadyExists(pods, "x").path("message").asText())
        .isEqualTo("pods \"x\" already exists");
    ObjectNode c = Statuses.conflictModified(pods, "x");
    assertThat(c.path("code").asInt()).isEqualTo(409);
    assertThat(c.path("reason").asText()).isEqualTo("Conflict");
    assertThat(c.path("message").asText())
        .isEqualTo(
            "Operation cannot be fulfilled on pods \"x\": the object has been modified; please"
                + " apply your changes to the latest version and try again");
  }

  @Test
  void invalidListsEveryCauseInBracketsAndNamesTheKind() {
    ObjectNode s =
        Statuses.invalid(
            pods,
            "x",
            List.of(
                FieldError.required("spec.containers[0].name", ""),
                FieldError.invalid("spec.containers[0].image", " ", "must not have spaces"),
                FieldError.notSupported(
                    "spec.restartPolicy", "Sometimes", List.of("Always", "Never"))));
    assertThat(s.path("code").asInt()).isEqualTo(422);
    assertThat(s.path("message").asText())
        .isEqualTo(
            "Pod \"x\" is invalid: [spec.containers[0].name: Required value,"
                + " spec.containers[0].image: Invalid value: \" \": must not have spaces,"
                + " spec.restartPolicy: Unsupported value: \"Sometimes\": supported values:"
                + " \"Always\", \"Never\"]");
    assertThat(s.path("details").path("kind").asText()).isEqualTo("Pod");
    assertThat(s.path("details").path("causes").get(0).toString())
        .isEqualTo(
            "{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\","
                + "\"field\":\"spec.containers[0].name\"}");

    ObjectNode one =
        Statuses.invalid(
            deployments,
            "web",
            List.of(FieldError.invalid("spec.replicas", -1, "must be greater than or equal to 0")));
    assertThat(one.path("message").asText())
        .isEqualTo(
            "Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater"
                + " than or equal to 0");
  }

  @Test
  void otherFailuresHaveKubernetesCodesAndReasons() {
    assertThat(Statuses.badRequest("nope").path("code").asInt()).isEqualTo(400);
    assertThat(Statuses.methodNotAllowed("", "pods", "create").path("message").asText())
        .isEqualTo("create is not supported on resources of kind \"pods\"");
    assertThat(Statuses.unsupportedMediaType(List.of("application/json")).path("code").asInt())
        .isEqualTo(415);
    assertThat(Statuses.requestEntityTooLarge("limit is 3145728").path("code").asInt())
        .isEqualTo(413);
    ObjectNode timeout = Statuses.timeout("request did not complete within 60s", 2);
    assertThat(timeout.path("code").asInt()).isEqualTo(504);
    assertThat(timeout.path("details").path("retryAfterSeconds").asInt()).isEqualTo(2);
    ObjectNode expired = Statuses.tooOldResourceVersion("10", "42");
    assertThat(expired.path("code").asInt()).isEqualTo(410);
    assertThat(expired.path("reason").asText()).isEqualTo("Expired");
    assertThat(expired.path("message").asText()).isEqualTo("too old resource version: 10 (42)");
    assertThat(Statuses.gone("gone").path("reason").asText()).isEqualTo("Gone");
    assertThat(Statuses.unauthorized("").path("message").asText()).isEqualTo("Unauthorized");
    assertThat(Statuses.internalError("boom").path("message").asText())
        .isEqualTo("Internal error occurred: boom");
  }

  @Test
  void forbiddenByAuthorizerReadsAsKubeApiserver() {
    ObjectNode s = Statuses.forbiddenByAuthorizer("bob", "list", "", "pods", "", "default", "");
    assertThat(s.path("code").asInt()).isEqualTo(403);
    assertThat(s.path("message").asText())
        .isEqualTo(
            "pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in"
                + " the namespace \"default\"");
    ObjectNode cluster = Statuses.forbiddenByAuthorizer("bob", "get", "", "nodes", "", "", "n1");
    assertThat(cluster.path("message").asText())
        .isEqualTo(
            "nodes \"n1\" is forbidden: User \"bob\" cannot get resource \"nodes\" in API group"
                + " \"\" at the cluster scope");
  }

  @Test
  void successCarriesDetailsAndNoCodeFailure() {
    ObjectNode s = Statuses.success(deployments, "web", "u-1");
    assertThat(s.path("status").asText()).isEqualTo("Success");
    assertThat(s.path("details").toString())
        .isEqualTo(
            "{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"deployments\",\"uid\":\"u-1\"}");
  }

  @Test
  void exceptionExposesCodeAndReason() {
    ApiException e = Statuses.exception(Statuses.notFound(pods, "x"));
    assertThat(e.code()).isEqualTo(404);
    assertThat(e.reason()).isEqualTo("NotFound");
    assertThat(e.getMessage()).isEqualTo("pods \"x\" not found");
  }
}
