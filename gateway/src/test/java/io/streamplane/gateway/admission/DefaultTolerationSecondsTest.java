package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link DefaultTolerationSeconds}: five minutes on a not-ready or unreachable node. */
class DefaultTolerationSecondsTest {

  private final DefaultTolerationSeconds plugin = new DefaultTolerationSeconds();

  @Test
  void aPodWithoutTolerationsGetsBothForThreeHundredSeconds() {
    AdmissionRequest request = Cluster.createPod("ns", "{'metadata':{'name':'p'},'spec':{}}");

    plugin.admit(request);

    assertThat(request.object().path("spec").path("tolerations").toString())
        .isEqualTo(
            Cluster.json(
                    "[{'key':'node.kubernetes.io/not-ready','operator':'Exists','effect':'NoExecute',"
                        + "'tolerationSeconds':300},{'key':'node.kubernetes.io/unreachable',"
                        + "'operator':'Exists','effect':'NoExecute','tolerationSeconds':300}]")
                .toString());
  }

  @Test
  void aPodThatToleratesATaintKeepsItsOwnToleration() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns",
            "{'metadata':{'name':'p'},'spec':{'tolerations':[{'key':'node.kubernetes.io/unreachable',"
                + "'operator':'Exists'}]}}");

    plugin.admit(request);

    assertThat(request.object().path("spec").path("tolerations").toString())
        .isEqualTo(
            Cluster.json(
                    "[{'key':'node.kubernetes.io/unreachable','operator':'Exists'},"
                        + "{'key':'node.kubernetes.io/not-ready','operator':'Exists','effect':'NoExecute',"
                        + "'tolerationSeconds':300}]")
                .toString());
  }

  @Test
  void aTolerationOfEveryTaintNeedsNoDefaults() {
    AdmissionRequest request =
        Cluster.createPod(
            "ns", "{'metadata':{'name':'p'},'spec':{'tolerations':[{'operator':'Exists'}]}}");

    plugin.admit(request);

    assertThat(request.object().path("spec").path("tolerations")).hasSize(1);
  }
}
