package io.streamplane.gateway.admission;

import static io.streamplane.gateway.admission.Cluster.ADMIN;
import static io.streamplane.gateway.admission.Cluster.PODS;
import static io.streamplane.gateway.admission.Cluster.REGISTRY;
import static io.streamplane.gateway.admission.Cluster.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.kinds.ResourceType;
import org.junit.jupiter.api.Test;

class PodSecurityTest {

  private final Cluster cluster =
      new Cluster()
          .with(
              "namespaces",
              "{'metadata':{'name':'locked','labels':{'pod-security.kubernetes.io/enforce':"
                  + "'restricted'}}}")
          .with(
              "namespaces",
              "{'metadata':{'name':'base','labels':{'pod-security.kubernetes.io/enforce':"
                  + "'baseline','pod-security.kubernetes.io/warn':'restricted',"
                  + "'pod-security.kubernetes.io/warn-version':'v1.32'}}}")
          .with("namespaces", "{'metadata':{'name':'open'}}");
  private final PodSecurity plugin = new PodSecurity(cluster);

  private static AdmissionRequest create(ResourceType type, String namespace, String object) {
    ObjectNode body = json(object);
    return new AdmissionRequest(
        Operation.CREATE,
        type,
        "",
        namespace,
        body.path("metadata").path("name").asText(),
        body,
        null,
        ADMIN,
        false);
  }

  private static final String PRIVILEGED_POD =
      "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'c','image':'busybox',"
          + "'securityContext':{'privileged':true}}]}}";

  @Test
  void aPrivilegedPodInARestrictedNamespaceIsForbiddenWithEveryViolation() {
    assertThatThrownBy(() -> plugin.validate(create(PODS, "locked", PRIVILEGED_POD)))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(403);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "pods \"p\" is forbidden: violates PodSecurity \"restricted:latest\":"
                          + " privileged (container \"c\" must not set"
                          + " securityContext.privileged=true), allowPrivilegeEscalation != false"
                          + " (container \"c\" must set"
                          + " securityContext.allowPrivilegeEscalation=false), unrestricted"
                          + " capabilities (container \"c\" must set"
                          + " securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true"
                          + " (pod or container \"c\" must set securityContext.runAsNonRoot=true),"
                          + " seccompProfile (pod or container \"c\" must set"
                          + " securityContext.seccompProfile.type to \"RuntimeDefault\" or"
                          + " \"Localhost\")");
            });
  }

  @Test
  void aPodThatMeetsRestrictedIsAdmitted() {
    String pod =
        "{'metadata':{'name':'p'},'spec':{'securityContext':{'runAsNonRoot':true,"
            + "'seccompProfile':{'type':'RuntimeDefault'}},'containers':[{'name':'c',"
            + "'image':'busybox','securityContext':{'allowPrivilegeEscalation':false,"
            + "'capabilities':{'drop':['ALL']}}}]}}";

    assertThatNoException().isThrownBy(() -> plugin.validate(create(PODS, "locked", pod)));
  }

  @Test
  void baselineForbidsHostNamespacesAndHostPathButNotAMissingSeccompProfile() {
    String pod =
        "{'metadata':{'name':'p'},'spec':{'hostNetwork':true,'volumes':[{'name':'root',"
            + "'hostPath':{'path':'/'}}],'containers':[{'name':'c','image':'busybox'}]}}";

    assertThatThrownBy(() -> plugin.validate(create(PODS, "base", pod)))
        .hasMessage(
            "pods \"p\" is forbidden: violates PodSecurity \"baseline:latest\": host namespaces"
                + " (hostNetwork=true), hostPath volumes (volume \"root\")");
    String plain =
        "{'metadata':{'name':'q'},'spec':{'containers':[{'name':'c','image':'busybox'}]}}";
    assertThatNoException().isThrownBy(() -> plugin.validate(create(PODS, "base", plain)));
  }

  @Test
  void aNamespaceWithoutLabelsAdmitsEverything() {
    assertThatNoException().isThrownBy(() -> plugin.validate(create(PODS, "open", PRIVILEGED_POD)));
    assertThat(plugin.warnings(create(PODS, "open", PRIVILEGED_POD))).isEmpty();
  }

  @Test
  void aWorkloadIsAdmittedButWarnedAboutWhatItsPodsWouldBreak() {
    ResourceType deployments = REGISTRY.byResource("apps", "deployments").orElseThrow();
    AdmissionRequest deployment =
        create(
            deployments,
            "base",
            "{'metadata':{'name':'d'},'spec':{'template':{'spec':{'containers':[{'name':'c',"
                + "'image':'busybox'}]}}}}");

    assertThatNoException().isThrownBy(() -> plugin.validate(deployment));
    assertThat(plugin.warnings(deployment))
        .singleElement()
        .asString()
        .startsWith(
            "would violate PodSecurity \"restricted:v1.32\": allowPrivilegeEscalation != false");
  }
}
