package io.streamplane.gateway.authz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The default policy as data, and kube-apiserver's reconciliation of it. */
class BootstrapPolicyTest {

  private final BootstrapPolicy policy = BootstrapPolicy.kubernetes();

  private ObjectNode item(String resource, String name) {
    return policy.items().stream()
        .filter(i -> i.resource().equals(resource) && i.name().equals(name))
        .findFirst()
        .orElseThrow()
        .object();
  }

  @Test
  void everyDefaultIsLabelledAnnotatedAndControllersAreBoundToTheirServiceAccounts() {
    assertThat(policy.items()).hasSizeGreaterThan(90);
    policy
        .items()
        .forEach(
            i -> {
              assertThat(
                      i.object()
                          .path("metadata")
                          .path("labels")
                          .path(BootstrapPolicy.BOOTSTRAPPING)
                          .asText())
                  .isEqualTo("rbac-defaults");
              assertThat(
                      i.object()
                          .path("metadata")
                          .path("annotations")
                          .path(BootstrapPolicy.AUTOUPDATE)
                          .asText())
                  .isEqualTo("true");
            });
    ObjectNode binding = item("clusterrolebindings", "system:controller:deployment-controller");
    assertThat(binding.path("subjects").get(0).toString())
        .isEqualTo(
            "{\"kind\":\"ServiceAccount\",\"name\":\"deployment-controller\",\"namespace\":\"kube-system\",\"apiGroup\":\"\"}");
    assertThat(item("clusterrolebindings", "system:public-info-viewer").path("subjects").toString())
        .contains("system:unauthenticated");
    assertThat(item("clusterrolebindings", "system:discovery").path("subjects").toString())
        .doesNotContain("system:unauthenticated");
  }

  @Test
  void everyDefaultAsTheStoreKeepsItIsConvergedSoARestartWritesNothing() {
    for (BootstrapPolicy.Item item : policy.items()) {
      ObjectNode stored = item.object().deepCopy();
      io.streamplane.kinds.ResourceRegistry.kubernetes()
          .byResource("rbac.authorization.k8s.io", item.resource())
          .orElseThrow()
          .strategy()
          .applyDefaults(stored, true);
      assertThat(BootstrapPolicy.reconcile(item.object(), stored))
          .as(item.resource() + " " + item.name())
          .isEmpty();
    }
  }

  @Test
  void reconcilingCreatesWhatIsMissingAndAddsBackLostRulesAndSubjects() {
    ObjectNode desired = item("clusterroles", "system:basic-user");
    assertThat(BootstrapPolicy.reconcile(desired, null)).contains(desired);
    assertThat(BootstrapPolicy.reconcile(desired, desired.deepCopy())).isEmpty();

    ObjectNode trimmed = desired.deepCopy();
    trimmed.withArray("rules").remove(0);
    trimmed.withArray("rules").addObject().putArray("verbs").add("get");
    ObjectNode reconciled = BootstrapPolicy.reconcile(desired, trimmed).orElseThrow();
    assertThat(reconciled.path("rules")).hasSize(3);
    assertThat(reconciled.path("rules").toString()).contains("selfsubjectaccessreviews");

    ObjectNode optedOut = trimmed.deepCopy();
    optedOut.with("metadata").with("annotations").put(BootstrapPolicy.AUTOUPDATE, "false");
    assertThat(BootstrapPolicy.reconcile(desired, optedOut)).isEmpty();

    ObjectNode binding = item("clusterrolebindings", "system:public-info-viewer");
    ObjectNode lost = binding.deepCopy();
    lost.withArray("subjects").remove(1);
    assertThat(BootstrapPolicy.reconcile(binding, lost).orElseThrow().path("subjects")).hasSize(2);
  }

  @Test
  void theAggregationControllerGivesAnAggregatedRoleTheRulesOfTheRolesItSelects() {
    List<ObjectNode> roles =
        policy.items().stream()
            .filter(i -> i.resource().equals("clusterroles"))
            .map(BootstrapPolicy.Item::object)
            .toList();
    var view = BootstrapPolicy.aggregatedRules(item("clusterroles", "view"), roles).orElseThrow();
    assertThat(view.toString()).contains("\"pods\"").doesNotContain("\"secrets\"");
    ObjectNode written = item("clusterroles", "view").deepCopy();
    written.set("rules", view);
    assertThat(BootstrapPolicy.aggregatedRules(written, roles)).isEmpty();
    assertThat(BootstrapPolicy.aggregatedRules(item("clusterroles", "cluster-admin"), roles))
        .isEmpty();
  }
}
