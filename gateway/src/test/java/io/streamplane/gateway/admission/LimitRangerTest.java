package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.streamplane.gateway.api.ApiException;
import org.junit.jupiter.api.Test;

/** {@link LimitRanger}: container defaults from LimitRanges, then min, max and ratio checks. */
class LimitRangerTest {

  private static final String RANGE =
      "{'metadata':{'name':'limits','namespace':'ns'},'spec':{'limits':[{'type':'Container',"
          + "'default':{'cpu':'500m','memory':'256Mi'},'defaultRequest':{'cpu':'100m'},"
          + "'max':{'cpu':'1'},'min':{'cpu':'50m'},'maxLimitRequestRatio':{'cpu':'10'}},"
          + "{'type':'Pod','max':{'memory':'1Gi'}}]}}";

  private final LimitRanger plugin = new LimitRanger(new Cluster().with("limitranges", RANGE));

  @Test
  void containersGetTheDefaultsTheyLackAndThePodSaysWhichItGot() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'app','resources':"
                + "{'requests':{'memory':'128Mi'}}}]}}");

    plugin.admit(request);

    assertThat(request.object().path("spec").path("containers").get(0).path("resources"))
        .isEqualTo(
            Cluster.json(
                "{'requests':{'memory':'128Mi','cpu':'100m'},'limits':{'cpu':'500m','memory':'256Mi'}}"));
    assertThat(
            request
                .object()
                .path("metadata")
                .path("annotations")
                .path("kubernetes.io/limit-ranger")
                .asText())
        .isEqualTo(
            "LimitRanger plugin set: cpu request for container app; cpu, memory limit for container app");
    assertThatCode(() -> plugin.validate(request)).doesNotThrowAnyException();
  }

  @Test
  void aLimitAboveTheMaximumIsForbiddenWithKubernetesMessage() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'app','resources':"
                + "{'requests':{'cpu':'1'},'limits':{'cpu':'2','memory':'256Mi'}}}]}}");

    ApiException e = catchThrowableOfType(() -> plugin.validate(request), ApiException.class);

    assertThat(e.code()).isEqualTo(403);
    assertThat(e.status().path("message").asText())
        .isEqualTo("pods \"p\" is forbidden: maximum cpu usage per Container is 1, but limit is 2");
  }

  @Test
  void severalViolationsAreListedTogether() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'app','resources':"
                + "{'requests':{'cpu':'50m','memory':'2Gi'},'limits':{'cpu':'1','memory':'2Gi'}}}]}}");

    ApiException e = catchThrowableOfType(() -> plugin.validate(request), ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "pods \"p\" is forbidden: [cpu max limit to request ratio per Container is 10, but"
                + " provided ratio is 20.000000, maximum memory usage per Pod is 1Gi, but limit is"
                + " 2Gi]");
  }

  @Test
  void aMinimumWithoutARequestIsForbidden() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'app','resources':"
                + "{'limits':{'cpu':'1','memory':'1Gi'}}}]}}");

    ApiException e = catchThrowableOfType(() -> plugin.validate(request), ApiException.class);

    assertThat(e.status().path("message").asText())
        .contains("minimum cpu usage per Container is 50m.  No request is specified");
  }
}
