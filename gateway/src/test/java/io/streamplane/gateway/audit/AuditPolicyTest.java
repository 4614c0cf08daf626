package io.streamplane.gateway.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuditPolicyTest {

  private static final UserInfo ALICE =
      UserInfo.newBuilder().setUsername("alice").setGroups(List.of("devs")).build();
  private static final UserInfo NODE =
      UserInfo.newBuilder()
          .setUsername("system:node:n1")
          .setGroups(List.of("system:nodes", "system:authenticated"))
          .build();

  private static RequestInfo request(String method, String path) {
    return RequestInfo.parse(method, path, Map.of());
  }

  private static RequestInfo watch(String path) {
    return RequestInfo.parse("GET", path, Map.of("watch", "true"));
  }

  @Test
  void theFirstMatchingRuleGivesTheLevelAndANoMatchIsNotAudited() {
    AuditPolicy policy =
        AuditPolicy.parse(
            """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            rules:
              - level: RequestResponse
                users: [alice]
                verbs: [delete]
              - level: Request
                userGroups: [devs]
              - level: Metadata
                namespaces: [prod]
            """);

    assertThat(policy.decide(ALICE, request("DELETE", "/api/v1/namespaces/a/pods/p")).level())
        .isEqualTo(AuditLevel.RequestResponse);
    assertThat(policy.decide(ALICE, request("GET", "/api/v1/namespaces/prod/pods")).level())
        .isEqualTo(AuditLevel.Request);
    assertThat(policy.decide(NODE, request("GET", "/api/v1/namespaces/prod/pods")).level())
        .isEqualTo(AuditLevel.Metadata);
    assertThat(policy.decide(NODE, request("GET", "/api/v1/namespaces/dev/pods")).level())
        .isEqualTo(AuditLevel.None);
  }

  @Test
  void usersAndGroupsNeverMatchAnUnauthenticatedRequest() {
    AuditPolicy policy =
        AuditPolicy.parse(
            """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            rules:
              - level: None
                users: [""]
              - level: None
                userGroups: [system:unauthenticated]
              - level: Metadata
            """);

    assertThat(policy.decide(null, request("GET", "/api/v1/pods")).level())
        .isEqualTo(AuditLevel.Metadata);
  }

  @Test
  void resourcesMatchByGroupPluralSubresourceWildcardsAndNames() {
    AuditPolicy policy =
        AuditPolicy.parse(
            """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            rules:
              - level: RequestResponse
                resources:
                  - group: ""
                    resources: ["pods/log"]
              - level: Request
                resources:
                  - group: apps
                    resources: ["deployments/*"]
              - level: Metadata
                resources:
                  - group: ""
                    resources: ["*/status"]
              - level: None
                resources:
                  - group: ""
                    resources: [configmaps]
                    resourceNames: [kube-root-ca.crt]
              - level: RequestResponse
                resources:
                  - group: coordination.k8s.io
            """);

    assertThat(level(policy, "GET", "/api/v1/namespaces/a/pods/p/log"))
        .isEqualTo(AuditLevel.RequestResponse);
    assertThat(level(policy, "GET", "/api/v1/namespaces/a/pods/p")).isEqualTo(AuditLevel.None);
    assertThat(level(policy, "PUT", "/apis/apps/v1/namespaces/a/deployments/d/scale"))
        .isEqualTo(AuditLevel.Request);
    assertThat(level(policy, "PUT", "/apis/apps/v1/namespaces/a/deployments/d"))
        .as("resource/* is the resource with any subresource, and the resource itself")
        .isEqualTo(AuditLevel.Request);
    assertThat(level(policy, "PUT", "/api/v1/namespaces/a/pods/p/status"))
        .isEqualTo(AuditLevel.Metadata);
    assertThat(level(policy, "PUT", "/apis/apps/v1/namespaces/a/replicasets/r/status"))
        .as("*/status in the core group only")
        .isEqualTo(AuditLevel.None);
    assertThat(level(policy, "GET", "/api/v1/namespaces/a/configmaps/kube-root-ca.crt"))
        .isEqualTo(AuditLevel.None);
    assertThat(level(policy, "GET", "/api/v1/namespaces/a/configmaps/other"))
        .isEqualTo(AuditLevel.None);
    assertThat(level(policy, "PUT", "/apis/coordination.k8s.io/v1/namespaces/a/leases/l"))
        .as("a group without resources is all of its resources")
        .isEqualTo(AuditLevel.RequestResponse);
  }

  @Test
  void namespacesUseTheEmptyStringForClusterScopedObjects() {
    AuditPolicy policy =
        AuditPolicy.parse(
            """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            rules:
              - level: Request
                namespaces: [""]
              - level: Metadata
            """);

    assertThat(level(policy, "GET", "/api/v1/nodes/n1")).isEqualTo(AuditLevel.Request);
    assertThat(level(policy, "GET", "/api/v1/namespaces/kube-system"))
        .as("a namespace is itself cluster-scoped")
        .isEqualTo(AuditLevel.Request);
    assertThat(level(policy, "GET", "/api/v1/namespaces/a/pods")).isEqualTo(AuditLevel.Metadata);
    assertThat(level(policy, "GET", "/version"))
        .as("a rule with namespaces never matches a non-resource request")
        .isEqualTo(AuditLevel.Metadata);
  }

  @Test
  void nonResourceUrlsMatchExactlyOrByATrailingStarAndOnlyNonResourceRequests() {
    AuditPolicy policy =
        AuditPolicy.parse(
            """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            rules:
              - level: None
                nonResourceURLs: ["/healthz*", "/version"]
              - level: Request
                nonResourceURLs: ["/api*"]
              - level: Metadata
            """);

    assertThat(level(policy, "GET", "/healthz/etcd")).isEqualTo(AuditLevel.None);
    assertThat(level(policy, "GET", "/version")).isEqualTo(AuditLevel.None);
    assertThat(level(policy, "GET", "/version/x")).isEqualTo(AuditLevel.Metadata);
    assertThat(level(policy, "GET", "/apis/apps/v1")).isEqualTo(AuditLevel.Request);
    assertThat(level(policy, "GET", "/api/v1/pods"))
        .as("a resource request is no non-resource URL")
        .isEqualTo(AuditLevel.Metadata);
  }

  @Test
  void omitStagesOfThePolicyAreAddedToEveryRulesAndToTheNoMatchDecision() {
    AuditPolicy policy =
        AuditPolicy.parse(
            """
            apiVersion: audit.k8s.io/v1
            kind: Policy
            omitStages: [RequestReceived]
            rules:
              - level: Metadata
                verbs: [watch]
                omitStages: [ResponseStarted]
              - level: Metadata
                verbs: [get]
            """);

    AuditPolicy.Decision watching = policy.decide(ALICE, watch("/api/v1/pods"));
    assertThat(watching.omitStages())
        .containsExactlyInAnyOrder(AuditStage.RequestReceived, AuditStage.ResponseStarted);
    assertThat(watching.records(AuditStage.ResponseComplete)).isTrue();
    AuditPolicy.Decision getting = policy.decide(ALICE, request("GET", "/api/v1/nodes/n"));
    assertThat(getting.records(AuditStage.RequestReceived)).isFalse();
    assertThat(getting.records(AuditStage.ResponseStarted)).isTrue();
    assertThat(policy.decide(ALICE, request("POST", "/api/v1/nodes")).records(AuditStage.Panic))
        .as("level None records nothing")
        .isFalse();
  }

  @Test
  void theDefaultPolicyRecordsMetadataButNotProbesLeaseReadsOrNodeHeartbeats() {
    AuditPolicy policy = AuditPolicy.defaultPolicy();

    assertThat(level(policy, "DELETE", "/api/v1/namespaces/a/secrets/s"))
        .isEqualTo(AuditLevel.Metadata);
    assertThat(level(policy, "GET", "/readyz")).isEqualTo(AuditLevel.None);
    assertThat(level(policy, "GET", "/apis")).isEqualTo(AuditLevel.None);
    assertThat(level(policy, "GET", "/apis/coordination.k8s.io/v1/namespaces/n/leases/l"))
        .isEqualTo(AuditLevel.None);
    assertThat(
            policy
                .decide(NODE, request("PUT", "/apis/coordination.k8s.io/v1/namespaces/n/leases/l"))
                .level())
        .isEqualTo(AuditLevel.None);
    assertThat(level(policy, "PUT", "/apis/coordination.k8s.io/v1/namespaces/n/leases/l"))
        .as("a lease written by anyone but a node is recorded")
        .isEqualTo(AuditLevel.Metadata);
    assertThat(policy.omitStages()).containsExactly(AuditStage.RequestReceived);
  }

  @Test
  void anInvalidPolicyIsRefusedWithWhatIsWrong() {
    assertThatThrownBy(
            () ->
                AuditPolicy.parse(
                    "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]"))
        .hasMessageContaining("rules[0].level: Unsupported value: \"Everything\"");
    assertThatThrownBy(
            () ->
                AuditPolicy.parse(
                    "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Later]\nrules: []"))
        .hasMessageContaining("omitStages: Unsupported value: \"Later\"");
    assertThatThrownBy(() -> AuditPolicy.parse("apiVersion: v1\nkind: ConfigMap"))
        .hasMessageContaining("expected apiVersion audit.k8s.io/v1 and kind Policy");
    assertThatThrownBy(
            () ->
                AuditPolicy.parse(
                    "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, user: [a]}]"))
        .hasMessageContaining("rules[0]: unknown field \"user\"");
    assertThatThrownBy(
            () ->
                AuditPolicy.parse(
                    """
                    apiVersion: audit.k8s.io/v1
                    kind: Policy
                    rules:
                      - level: None
                        nonResourceURLs: ["/x"]
                        resources: [{group: ""}]
                    """))
        .hasMessageContaining("both regular resources and non-resource URLs");
  }

  private static AuditLevel level(AuditPolicy policy, String method, String path) {
    return policy.decide(ALICE, request(method, path)).level();
  }
}
