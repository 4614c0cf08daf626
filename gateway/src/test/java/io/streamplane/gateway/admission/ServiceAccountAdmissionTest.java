package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.gateway.api.ApiException;
import org.junit.jupiter.api.Test;

/** {@link ServiceAccountAdmission}: the default account, the token volume, missing accounts. */
class ServiceAccountAdmissionTest {

  private static final String POD =
      "{'metadata':{'name':'p','namespace':'ns'},'spec':{'initContainers':[{'name':'i'}],"
          + "'containers':[{'name':'a'},{'name':'b'}]}}";

  private final Cluster cluster =
      new Cluster()
          .with("serviceaccounts", "{'metadata':{'name':'default','namespace':'ns'}}")
          .with(
              "serviceaccounts",
              "{'metadata':{'name':'quiet','namespace':'ns'},'automountServiceAccountToken':false,"
                  + "'imagePullSecrets':[{'name':'registry'}]}");
  private final ServiceAccountAdmission plugin = new ServiceAccountAdmission(cluster);

  @Test
  void podGetsTheDefaultAccountAndItsTokenVolumeMountedInEveryContainer() {
    AdmissionRequest request = Cluster.createPod("ns", POD);

    plugin.admit(request);
    plugin.validate(request);

    JsonNode spec = request.object().path("spec");
    assertThat(spec.path("serviceAccountName").asText()).isEqualTo("default");
    JsonNode volume = spec.path("volumes").get(0);
    assertThat(volume.path("name").asText())
        .matches("kube-api-access-[bcdfghjklmnpqrstvwxz2-9]{5}");
    assertThat(volume.path("projected"))
        .isEqualTo(
            Cluster.json(
                "{'defaultMode':420,'sources':["
                    + "{'serviceAccountToken':{'expirationSeconds':3607,'path':'token'}},"
                    + "{'configMap':{'name':'kube-root-ca.crt','items':[{'key':'ca.crt','path':'ca.crt'}]}},"
                    + "{'downwardAPI':{'items':[{'path':'namespace','fieldRef':"
                    + "{'apiVersion':'v1','fieldPath':'metadata.namespace'}}]}}]}"));
    for (String list : new String[] {"initContainers", "containers"}) {
      for (JsonNode container : spec.path(list)) {
        assertThat(container.path("volumeMounts"))
            .isEqualTo(
                Cluster.json(
                    "[{'name':'"
                        + volume.path("name").asText()
                        + "','readOnly':true,"
                        + "'mountPath':'/var/run/secrets/kubernetes.io/serviceaccount'}]"));
      }
    }
  }

  @Test
  void anAccountThatOptsOutMountsNothingButLendsItsPullSecrets() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'serviceAccountName':'quiet','containers':[{'name':'a'}]}}");

    plugin.admit(request);

    JsonNode spec = request.object().path("spec");
    assertThat(spec.has("volumes")).isFalse();
    assertThat(spec.path("containers").get(0).has("volumeMounts")).isFalse();
    assertThat(spec.path("imagePullSecrets")).isEqualTo(Cluster.json("[{'name':'registry'}]"));
  }

  @Test
  void aPodThatOptsOutOverridesItsAccount() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'automountServiceAccountToken':false,"
                + "'containers':[{'name':'a'}]}}");

    plugin.admit(request);

    assertThat(request.object().path("spec").has("volumes")).isFalse();
  }

  @Test
  void aContainerWithSomethingMountedAtTheTokenPathKeepsIt() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'volumes':[{'name':'own','emptyDir':{}}],'containers':"
                + "[{'name':'a','volumeMounts':[{'name':'own','mountPath':"
                + "'/var/run/secrets/kubernetes.io/serviceaccount'}]}]}}");

    plugin.admit(request);

    JsonNode spec = request.object().path("spec");
    assertThat(spec.path("volumes")).hasSize(1);
    assertThat(spec.path("containers").get(0).path("volumeMounts")).hasSize(1);
  }

  @Test
  void aMissingAccountIsForbiddenAsKubernetesWordsIt() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'serviceAccountName':'ghost','containers':[{'name':'a'}]}}");

    ApiException e = catchThrowableOfType(() -> plugin.admit(request), ApiException.class);

    assertThat(e.code()).isEqualTo(403);
    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"p\" is forbidden: error looking up service account ns/ghost: serviceaccount"
                + " \"ghost\" not found");
  }

  @Test
  void mirrorPodsAreLeftAlone() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p','annotations':{'kubernetes.io/config.mirror':'x'}},"
                + "'spec':{'containers':[{'name':'a'}]}}");

    plugin.admit(request);
    plugin.validate(request);

    assertThat(request.object().path("spec").has("serviceAccountName")).isFalse();
  }
}
