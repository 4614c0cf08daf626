package io.streamplane.gateway.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.log.UserInfo;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The access reviews' answers and refusals, as kube-apiserver gives them. */
class AccessReviewsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final UserInfo ALICE =
      UserInfo.newBuilder().setUsername("alice").setGroups(List.of("system:authenticated")).build();

  private AccessReviews reviews;

  @BeforeEach
  void policy() throws Exception {
    AuthorizationIndex index = new AuthorizationIndex();
    BootstrapPolicy.kubernetes().items().forEach(i -> index.put(i.resource(), i.object()));
    index.put(
        "rolebindings",
        (ObjectNode)
            JSON.readTree(
                """
                {"metadata": {"name": "alice-view", "namespace": "team-a"},
                 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                             "name": "view"},
                 "subjects": [{"kind": "User", "name": "alice"}]}
                """));
    reviews =
        new AccessReviews(new Authorization(List.of(new PrivilegedGroups(), new Rbac(index))));
  }

  @Test
  void aSelfSubjectAccessReviewAnswersForTheRequester() throws Exception {
    ObjectNode answer =
        reviews.review(
            "selfsubjectaccessreviews",
            null,
            JSON.readTree(
                """
                {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                 "spec": {"resourceAttributes": {"namespace": "team-a", "verb": "list",
                                                 "resource": "pods"}}}
                """),
            ALICE);
    assertThat(answer.path("status").path("allowed").asBoolean()).isTrue();
    assertThat(answer.path("status").path("reason").asText())
        .isEqualTo(
            "RBAC: allowed by RoleBinding \"alice-view/team-a\" of ClusterRole \"view\" to User"
                + " \"alice\"");
    assertThat(answer.path("metadata").has("creationTimestamp")).isTrue();
    JsonNode denied =
        reviews.review(
            "selfsubjectaccessreviews",
            null,
            JSON.readTree(
                "{\"spec\": {\"resourceAttributes\": {\"namespace\": \"team-b\", \"verb\":"
                    + " \"list\", \"resource\": \"pods\"}}}"),
            ALICE);
    assertThat(denied.path("status").path("allowed").asBoolean()).isFalse();
    assertThat(denied.path("status").has("denied")).isFalse();
  }

  @Test
  void aSubjectAccessReviewAnswersForItsSpecsUser() throws Exception {
    UserInfo admin =
        UserInfo.newBuilder().setUsername("admin").setGroups(List.of("system:masters")).build();
    JsonNode answer =
        reviews.review(
            "subjectaccessreviews",
            null,
            JSON.readTree(
                "{\"spec\": {\"user\": \"alice\", \"nonResourceAttributes\": {\"verb\": \"get\","
                    + " \"path\": \"/metrics\"}}}"),
            admin);
    assertThat(answer.path("status").path("allowed").asBoolean()).isFalse();
  }

  @Test
  void invalidReviewsAreRefusedWithKubernetesMessages() throws Exception {
    assertThatThrownBy(
            () ->
                reviews.review(
                    "selfsubjectaccessreviews", null, JSON.readTree("{\"spec\": {}}"), ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(422);
              assertThat(e.status().path("message").asText())
                  .isEqualTo(
                      "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid:"
                          + " spec.resourceAttributes: Invalid value: \"null\": exactly one of"
                          + " nonResourceAttributes or resourceAttributes must be specified");
            });
    assertThatThrownBy(
            () ->
                reviews.review(
                    "subjectaccessreviews",
                    null,
                    JSON.readTree(
                        "{\"spec\": {\"nonResourceAttributes\": {\"verb\": \"get\", \"path\":"
                            + " \"/\"}}}"),
                    ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.status().path("message").asText())
                    .contains("spec.user: Invalid value: \"\": at least one of user or group"));
    assertThatThrownBy(
            () ->
                reviews.review(
                    "localsubjectaccessreviews",
                    "team-a",
                    JSON.readTree(
                        "{\"spec\": {\"user\": \"alice\", \"resourceAttributes\": {\"namespace\":"
                            + " \"team-b\", \"verb\": \"get\", \"resource\": \"pods\"}}}"),
                    ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.status().path("message").asText())
                    .contains(
                        "spec.resourceAttributes.namespace: Invalid value: \"team-b\": must match"
                            + " metadata.namespace"));
    assertThatThrownBy(
            () ->
                reviews.review(
                    "selfsubjectrulesreviews", null, JSON.readTree("{\"spec\": {}}"), ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.status().path("message").asText())
                    .isEqualTo("no namespace on request"));
  }

  @Test
  void aRulesReviewListsResourceAndNonResourceRules() throws Exception {
    JsonNode status =
        reviews
            .review(
                "selfsubjectrulesreviews",
                null,
                JSON.readTree("{\"spec\": {\"namespace\": \"team-a\"}}"),
                ALICE)
            .path("status");
    assertThat(status.path("incomplete").asBoolean()).isFalse();
    assertThat(status.path("resourceRules").toString())
        .contains("\"pods\"", "selfsubjectaccessreviews");
    assertThat(status.path("nonResourceRules").toString()).contains("/healthz", "/api/*");
    assertThat(status.path("resourceRules").toString()).doesNotContain("\"secrets\"");
  }
}
