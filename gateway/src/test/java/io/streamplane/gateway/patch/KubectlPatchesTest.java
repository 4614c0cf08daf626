package io.streamplane.gateway.patch;

import static io.streamplane.gateway.patch.Json.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * The strategic merge patches unmodified kubectl sends for everyday commands, applied to a
 * Deployment as kube-apiserver stores it.
 */
class KubectlPatchesTest {

  private static final PatchSchema DEPLOYMENT =
      PatchSchema.forKind("apps/v1", "Deployment").orElseThrow();

  private static final String LAST_APPLIED_V1 =
      "{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":\\\"Deployment\\\",...env A=1, port 80}";

  private static JsonNode nginxDeployment() {
    return json(
        "{'apiVersion':'apps/v1','kind':'Deployment',"
            + "'metadata':{'name':'nginx','namespace':'default','labels':{'app':'nginx'},"
            + "'annotations':{'kubectl.kubernetes.io/last-applied-configuration':'"
            + LAST_APPLIED_V1
            + "'}},"
            + "'spec':{'replicas':3,'selector':{'matchLabels':{'app':'nginx'}},"
            + "'strategy':{'type':'RollingUpdate','rollingUpdate':{'maxSurge':'25%',"
            + "'maxUnavailable':'25%'}},"
            + "'template':{'metadata':{'labels':{'app':'nginx'}},"
            + "'spec':{'containers':[{'name':'nginx','image':'nginx:1.14.2',"
            + "'ports':[{'containerPort':80,'protocol':'TCP'}],"
            + "'env':[{'name':'A','value':'1'}]}]}}},"
            + "'status':{'replicas':3}}");
  }

  private static JsonNode patch(JsonNode original, String patch) {
    return StrategicMergePatch.apply(original, json(patch), DEPLOYMENT);
  }

  @Test
  void kubectlApplyRemovingTheLastPortLeavesAnEmptyPortsListAsApimachineryDoes() {
    // The exact body kubectl 1.32 sends when the manifest changes env A to "2" and drops the port.
    String newLastApplied = "{\\\"apiVersion\\\":\\\"apps/v1\\\",...env A=2, no ports}";
    JsonNode result =
        patch(
            nginxDeployment(),
            "{'metadata':{'annotations':{'kubectl.kubernetes.io/last-applied-configuration':'"
                + newLastApplied
                + "'}},'spec':{'template':{'spec':{'$setElementOrder/containers':[{'name':'nginx'}],"
                + "'containers':[{'$setElementOrder/env':[{'name':'A'}],"
                + "'env':[{'name':'A','value':'2'}],'name':'nginx',"
                + "'ports':[{'$patch':'delete','containerPort':80}]}]}}}}");

    JsonNode container = result.at("/spec/template/spec/containers/0");
    assertThat(container.get("env")).isEqualTo(json("[{'name':'A','value':'2'}]"));
    // Kubernetes then decodes into Go structs where omitempty drops the empty list.
    assertThat(container.get("ports")).isEqualTo(json("[]"));
    assertThat(container.get("image").textValue()).isEqualTo("nginx:1.14.2");
    assertThat(result.at("/spec/template/spec/containers")).hasSize(1);
    assertThat(
            result
                .at("/metadata/annotations")
                .get("kubectl.kubernetes.io/last-applied-configuration")
                .textValue())
        .isEqualTo(newLastApplied.replace("\\\"", "\""));
    assertThat(result.at("/spec/replicas").intValue()).isEqualTo(3);
    assertThat(result.at("/status")).isEqualTo(json("{'replicas':3}"));
  }

  @Test
  void kubectlApplyAddingASidecarPutsItWhereTheManifestHasIt() {
    JsonNode result =
        patch(
            nginxDeployment(),
            "{'spec':{'template':{'spec':{'$setElementOrder/containers':"
                + "[{'name':'nginx'},{'name':'sidecar'}],"
                + "'containers':[{'image':'busybox','name':'sidecar'}]}}}}");

    assertThat(result.at("/spec/template/spec/containers/0/name").textValue()).isEqualTo("nginx");
    assertThat(result.at("/spec/template/spec/containers/1"))
        .isEqualTo(json("{'image':'busybox','name':'sidecar'}"));
  }

  @Test
  void kubectlApplySwitchingToRecreateClearsRollingUpdate() {
    JsonNode result =
        patch(
            nginxDeployment(),
            "{'spec':{'strategy':{'$retainKeys':['type'],'rollingUpdate':null,'type':'Recreate'}}}");

    assertThat(result.at("/spec/strategy")).isEqualTo(json("{'type':'Recreate'}"));
  }

  @Test
  void kubectlLabelAddsALabel() {
    JsonNode result = patch(nginxDeployment(), "{'metadata':{'labels':{'tier':'web'}}}");

    assertThat(result.at("/metadata/labels")).isEqualTo(json("{'app':'nginx','tier':'web'}"));
  }

  @Test
  void kubectlAnnotateWithDashRemovesTheAnnotation() {
    JsonNode result =
        patch(
            nginxDeployment(),
            "{'metadata':{'annotations':{'kubectl.kubernetes.io/last-applied-configuration':null}}}");

    assertThat(result.at("/metadata/annotations")).isEqualTo(json("{}"));
  }

  @Test
  void kubectlScaleSetsReplicas() {
    JsonNode result = patch(nginxDeployment(), "{'spec':{'replicas':5}}");

    assertThat(result.at("/spec/replicas").intValue()).isEqualTo(5);
    assertThat(result.at("/spec/template")).isEqualTo(nginxDeployment().at("/spec/template"));
  }

  @Test
  void kubectlSetImageChangesOnlyThatContainersImage() {
    JsonNode result =
        patch(
            nginxDeployment(),
            "{'spec':{'template':{'spec':{'containers':[{'name':'nginx','image':'nginx:1.16.1'}]}}}}");

    JsonNode expected = nginxDeployment();
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            expected.at("/spec/template/spec/containers/0"))
        .put("image", "nginx:1.16.1");
    assertThat(result).isEqualTo(expected);
  }
}
