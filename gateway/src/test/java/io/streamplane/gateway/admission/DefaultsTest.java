package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Defaults}: the values a real cluster fills in on create — pod spec and container defaults,
 * the image pull policy rule, the QoS class, Deployment strategy, Secret stringData.
 */
class DefaultsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ResourceRegistry REGISTRY = ResourceRegistry.kubernetes();
  private static final ResourceType PODS = REGISTRY.byResource("", "pods").orElseThrow();
  private static final ResourceType DEPLOYMENTS =
      REGISTRY.byResource("apps", "deployments").orElseThrow();
  private static final ResourceType SECRETS = REGISTRY.byResource("", "secrets").orElseThrow();

  private static ObjectNode json(String text) {
    try {
      return (ObjectNode) JSON.readTree(text.replace('\'', '"'));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static ObjectNode createdPod(String spec) {
    ObjectNode pod = json("{'metadata':{'name':'p'},'spec':" + spec + "}");
    Defaults.apply(PODS, pod, true);
    Defaults.prepareForCreate(PODS, pod, null);
    return pod;
  }

  @Test
  void podSpecGetsKubernetesDefaults() {
    ObjectNode pod =
        createdPod(
            "{'containers':[{'name':'c','image':'nginx:1.14.2','ports':[{'containerPort':80}]}]}");

    assertThat(pod.path("apiVersion").asText()).isEqualTo("v1");
    assertThat(pod.path("kind").asText()).isEqualTo("Pod");
    ObjectNode spec = (ObjectNode) pod.path("spec");
    assertThat(spec.path("restartPolicy").asText()).isEqualTo("Always");
    assertThat(spec.path("terminationGracePeriodSeconds").asInt()).isEqualTo(30);
    assertThat(spec.path("dnsPolicy").asText()).isEqualTo("ClusterFirst");
    assertThat(spec.path("schedulerName").asText()).isEqualTo("default-scheduler");
    ObjectNode container = (ObjectNode) spec.path("containers").get(0);
    assertThat(container.path("terminationMessagePath").asText()).isEqualTo("/dev/termination-log");
    assertThat(container.path("terminationMessagePolicy").asText()).isEqualTo("File");
    assertThat(container.path("imagePullPolicy").asText()).isEqualTo("IfNotPresent");
    assertThat(container.path("resources").isObject()).isTrue();
    assertThat(container.path("ports").get(0).path("protocol").asText()).isEqualTo("TCP");
    assertThat(pod.path("status").path("phase").asText()).isEqualTo("Pending");
    assertThat(pod.path("status").path("qosClass").asText()).isEqualTo("BestEffort");
  }

  @Test
  void givenValuesAreKept() {
    ObjectNode pod =
        createdPod(
            "{'restartPolicy':'Never','dnsPolicy':'Default','terminationGracePeriodSeconds':5,"
                + "'containers':[{'name':'c','image':'nginx','imagePullPolicy':'Never',"
                + "'ports':[{'containerPort':53,'protocol':'UDP'}]}]}");

    assertThat(pod.path("spec").path("restartPolicy").asText()).isEqualTo("Never");
    assertThat(pod.path("spec").path("dnsPolicy").asText()).isEqualTo("Default");
    assertThat(pod.path("spec").path("terminationGracePeriodSeconds").asInt()).isEqualTo(5);
    ObjectNode container = (ObjectNode) pod.path("spec").path("containers").get(0);
    assertThat(container.path("imagePullPolicy").asText()).isEqualTo("Never");
    assertThat(container.path("ports").get(0).path("protocol").asText()).isEqualTo("UDP");
  }

  @Test
  void initContainersAreDefaultedLikeContainers() {
    ObjectNode pod =
        createdPod(
            "{'initContainers':[{'name':'i','image':'busybox'}],"
                + "'containers':[{'name':'c','image':'nginx:1.25'}]}");

    ObjectNode init = (ObjectNode) pod.path("spec").path("initContainers").get(0);
    assertThat(init.path("imagePullPolicy").asText()).isEqualTo("Always");
    assertThat(init.path("terminationMessagePolicy").asText()).isEqualTo("File");
  }

  @Test
  void envFieldRefGetsApiVersionV1() {
    ObjectNode pod =
        createdPod(
            "{'containers':[{'name':'c','image':'busybox','env':["
                + "{'name':'NODE','valueFrom':{'fieldRef':{'fieldPath':'spec.nodeName'}}},"
                + "{'name':'OLD','valueFrom':{'fieldRef':{'apiVersion':'v1beta','fieldPath':'x'}}},"
                + "{'name':'PLAIN','value':'1'}]}]}");

    JsonNode env = pod.path("spec").path("containers").get(0).path("env");
    assertThat(env.get(0).path("valueFrom").path("fieldRef").path("apiVersion").asText())
        .isEqualTo("v1");
    assertThat(env.get(1).path("valueFrom").path("fieldRef").path("apiVersion").asText())
        .isEqualTo("v1beta");
    assertThat(env.get(2).has("valueFrom")).isFalse();
  }

  @Test
  void volumeWithoutASourceBecomesAnEmptyDirAndOthersAreKept() {
    ObjectNode pod =
        createdPod(
            "{'containers':[{'name':'c','image':'busybox'}],'volumes':["
                + "{'name':'scratch'},"
                + "{'name':'config','configMap':{'name':'cm'}},"
                + "{'name':'cache','emptyDir':{'medium':'Memory'}}]}");

    JsonNode volumes = pod.path("spec").path("volumes");
    assertThat(volumes.get(0)).isEqualTo(json("{'name':'scratch','emptyDir':{}}"));
    assertThat(volumes.get(1))
        .isEqualTo(json("{'name':'config','configMap':{'name':'cm','defaultMode':420}}"));
    assertThat(volumes.get(2)).isEqualTo(json("{'name':'cache','emptyDir':{'medium':'Memory'}}"));
  }

  @Test
  void deploymentTemplateVolumesAreDefaulted() {
    ObjectNode deployment =
        json(
            "{'metadata':{'name':'d'},'spec':{'template':{'spec':{"
                + "'containers':[{'name':'c','image':'busybox'}],'volumes':[{'name':'v'}]}}}}");

    Defaults.apply(DEPLOYMENTS, deployment, true);

    assertThat(deployment.path("spec").path("template").path("spec").path("volumes").get(0))
        .isEqualTo(json("{'name':'v','emptyDir':{}}"));
  }

  @Test
  void updateDoesNotResetStatus() {
    ObjectNode pod =
        json(
            "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'c','image':'nginx'}]},"
                + "'status':{'phase':'Running','qosClass':'Burstable'}}");

    Defaults.apply(PODS, pod, false);

    assertThat(pod.path("status").path("phase").asText()).isEqualTo("Running");
    assertThat(pod.path("status").path("qosClass").asText()).isEqualTo("Burstable");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "nginx, Always",
    "nginx:1.14.2, IfNotPresent",
    "nginx:latest, Always",
    "registry:5000/img, Always",
    "registry:5000/img:v1, IfNotPresent",
    "registry:5000/team/img:latest, Always",
    "nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31, IfNotPresent",
    "registry:5000/img@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31,"
        + " IfNotPresent",
    "nginx:1.25@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31,"
        + " IfNotPresent",
    "nginx:latest@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31,"
        + " Always",
  })
  void imagePullPolicyIsAlwaysOnlyForLatestOrUntaggedImages(String image, String policy) {
    ObjectNode pod = createdPod("{'containers':[{'name':'c','image':'" + image + "'}]}");

    assertThat(pod.path("spec").path("containers").get(0).path("imagePullPolicy").asText())
        .isEqualTo(policy);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "no requests or limits | {} | BestEffort",
        "requests only | {'requests':{'cpu':'100m'}} | Burstable",
        "limits only, for cpu and memory | {'limits':{'cpu':'1','memory':'1Gi'}} | Guaranteed",
        "requests equal to limits | {'requests':{'cpu':'1','memory':'1Gi'},"
            + "'limits':{'cpu':'1','memory':'1Gi'}} | Guaranteed",
        "requests below limits | {'requests':{'cpu':'500m','memory':'1Gi'},"
            + "'limits':{'cpu':'1','memory':'1Gi'}} | Burstable",
        "cpu limit without memory limit | {'limits':{'cpu':'1'}} | Burstable",
      })
  void qosClassFollowsRequestsAndLimits(String description, String resources, String qosClass) {
    ObjectNode pod =
        createdPod("{'containers':[{'name':'c','image':'nginx','resources':" + resources + "}]}");

    assertThat(pod.path("status").path("qosClass").asText()).isEqualTo(qosClass);
  }

  @Test
  void oneBestEffortContainerMakesAGuaranteedPodBurstable() {
    ObjectNode pod =
        createdPod(
            "{'containers':[{'name':'a','image':'nginx','resources':"
                + "{'limits':{'cpu':'1','memory':'1Gi'}}},{'name':'b','image':'nginx'}]}");

    assertThat(pod.path("status").path("qosClass").asText()).isEqualTo("Burstable");
  }

  @Test
  void deploymentGetsRollingUpdateStrategyAndLimits() {
    ObjectNode deployment =
        json(
            "{'metadata':{'name':'d'},'spec':{'selector':{'matchLabels':{'app':'d'}},"
                + "'template':{'metadata':{'labels':{'app':'d'}},"
                + "'spec':{'containers':[{'name':'c','image':'nginx'}]}}}}");

    Defaults.apply(DEPLOYMENTS, deployment, true);

    ObjectNode spec = (ObjectNode) deployment.path("spec");
    assertThat(deployment.path("apiVersion").asText()).isEqualTo("apps/v1");
    assertThat(spec.path("replicas").asInt()).isEqualTo(1);
    assertThat(spec.path("strategy").path("type").asText()).isEqualTo("RollingUpdate");
    assertThat(spec.path("strategy").path("rollingUpdate").path("maxUnavailable").asText())
        .isEqualTo("25%");
    assertThat(spec.path("strategy").path("rollingUpdate").path("maxSurge").asText())
        .isEqualTo("25%");
    assertThat(spec.path("revisionHistoryLimit").asInt()).isEqualTo(10);
    assertThat(spec.path("progressDeadlineSeconds").asInt()).isEqualTo(600);
    assertThat(spec.path("template").path("spec").path("restartPolicy").asText())
        .isEqualTo("Always");
    assertThat(
            spec.path("template")
                .path("spec")
                .path("containers")
                .get(0)
                .path("imagePullPolicy")
                .asText())
        .isEqualTo("Always");
  }

  @Test
  void recreateDeploymentGetsNoRollingUpdateParameters() {
    ObjectNode deployment =
        json("{'metadata':{'name':'d'},'spec':{'replicas':3,'strategy':{'type':'Recreate'}}}");

    Defaults.apply(DEPLOYMENTS, deployment, true);

    assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(deployment.path("spec").path("strategy").has("rollingUpdate")).isFalse();
  }

  @Test
  void givenRollingUpdateParametersAreKept() {
    ObjectNode deployment =
        json(
            "{'metadata':{'name':'d'},'spec':{'strategy':"
                + "{'rollingUpdate':{'maxUnavailable':0,'maxSurge':1}}}}");

    Defaults.apply(DEPLOYMENTS, deployment, true);

    ObjectNode rolling =
        (ObjectNode) deployment.path("spec").path("strategy").path("rollingUpdate");
    assertThat(deployment.path("spec").path("strategy").path("type").asText())
        .isEqualTo("RollingUpdate");
    assertThat(rolling.path("maxUnavailable").asInt()).isZero();
    assertThat(rolling.path("maxSurge").asInt()).isEqualTo(1);
  }

  @Test
  void secretStringDataIsMergedIntoBase64DataAndWins() {
    ObjectNode secret =
        json(
            "{'metadata':{'name':'s'},'data':{'kept':'a2VwdA==','user':'b2xk'},"
                + "'stringData':{'user':'admin','password':'p@ss wörd'}}");

    Defaults.apply(SECRETS, secret, true);

    assertThat(secret.has("stringData")).isFalse();
    assertThat(secret.path("type").asText()).isEqualTo("Opaque");
    ObjectNode data = (ObjectNode) secret.path("data");
    assertThat(data.size()).isEqualTo(3);
    assertThat(data.path("kept").asText()).isEqualTo("a2VwdA==");
    assertThat(decode(data.path("user").asText())).isEqualTo("admin");
    assertThat(decode(data.path("password").asText())).isEqualTo("p@ss wörd");
  }

  @Test
  void secretTypeIsKeptWhenGiven() {
    ObjectNode secret =
        json("{'metadata':{'name':'s'},'type':'kubernetes.io/tls','stringData':{'tls.crt':'x'}}");

    Defaults.apply(SECRETS, secret, true);

    assertThat(secret.path("type").asText()).isEqualTo("kubernetes.io/tls");
    assertThat(decode(secret.path("data").path("tls.crt").asText())).isEqualTo("x");
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  @Test
  void aPodIsDefaultedAsKubernetes132DefaultsIt() {
    ObjectNode pod =
        createdPod(
            "{'hostNetwork':true,'containers':[{'name':'c','image':'nginx',"
                + "'ports':[{'containerPort':8080}],"
                + "'resources':{'limits':{'cpu':'1','memory':'1Gi'},'requests':{'cpu':'500m'}},"
                + "'livenessProbe':{'httpGet':{'port':8080}},"
                + "'readinessProbe':{'tcpSocket':{'port':8080},'periodSeconds':5}}],"
                + "'volumes':[{'name':'s','secret':{'secretName':'x'}},"
                + "{'name':'t','projected':{'sources':[{'serviceAccountToken':{'path':'token'}}]}},"
                + "{'name':'h','hostPath':{'path':'/tmp'}}]}");

    JsonNode spec = pod.path("spec");
    assertThat(spec.path("securityContext").isObject()).isTrue();
    assertThat(spec.path("securityContext").isEmpty()).isTrue();
    assertThat(spec.path("enableServiceLinks").asBoolean()).isTrue();
    // The Priority admission plugin sets these, from the pod's class.
    assertThat(spec.has("priority")).isFalse();
    assertThat(spec.has("preemptionPolicy")).isFalse();
    JsonNode container = spec.path("containers").get(0);
    assertThat(container.path("resources").path("requests"))
        .isEqualTo(json("{'cpu':'500m','memory':'1Gi'}"));
    assertThat(container.path("ports").get(0).path("hostPort").asInt()).isEqualTo(8080);
    assertThat(container.path("livenessProbe"))
        .isEqualTo(
            json(
                "{'httpGet':{'port':8080,'path':'/','scheme':'HTTP'},'timeoutSeconds':1,"
                    + "'periodSeconds':10,'successThreshold':1,'failureThreshold':3}"));
    assertThat(container.path("readinessProbe").path("periodSeconds").asInt()).isEqualTo(5);
    assertThat(spec.path("volumes").get(0).path("secret").path("defaultMode").asInt())
        .isEqualTo(420);
    JsonNode projected = spec.path("volumes").get(1).path("projected");
    assertThat(projected.path("defaultMode").asInt()).isEqualTo(420);
    assertThat(projected.path("sources").get(0).path("serviceAccountToken"))
        .isEqualTo(json("{'path':'token','expirationSeconds':3600}"));
    assertThat(spec.path("volumes").get(2).path("hostPath"))
        .isEqualTo(json("{'path':'/tmp','type':''}"));
  }

  @Test
  void aTemplateGetsThePodSpecDefaultsButNotThePodOnes() {
    ObjectNode deployment =
        json(
            "{'metadata':{'name':'d'},'spec':{'template':{'spec':{'containers':"
                + "[{'name':'c','image':'nginx:1.27','resources':{'limits':{'cpu':'1'}}}]}}}}");
    Defaults.apply(DEPLOYMENTS, deployment, true);

    JsonNode spec = deployment.path("spec").path("template").path("spec");
    assertThat(spec.path("securityContext").isObject()).isTrue();
    assertThat(spec.has("enableServiceLinks")).isFalse();
    assertThat(spec.has("priority")).isFalse();
    assertThat(spec.path("containers").get(0).path("resources").has("requests")).isFalse();
  }

  @Test
  void defaultingTwiceChangesNothing() {
    ObjectNode once =
        createdPod(
            "{'containers':[{'name':'c','image':'nginx','livenessProbe':{'exec':{'command':['true']}},"
                + "'resources':{'limits':{'cpu':'1'}}}],'volumes':[{'name':'v'}]}");
    ObjectNode twice = once.deepCopy();
    Defaults.apply(PODS, twice, false);

    assertThat(twice).isEqualTo(once);
  }

  @Test
  void namespacesNodesLimitRangesAndBindingsGetTheirDefaults() {
    ObjectNode namespace = json("{'metadata':{'name':'team-a'}}");
    Defaults.apply(REGISTRY.byResource("", "namespaces").orElseThrow(), namespace, true);
    assertThat(namespace.path("metadata").path("labels"))
        .isEqualTo(json("{'kubernetes.io/metadata.name':'team-a'}"));

    ObjectNode node =
        json("{'metadata':{'name':'n'},'status':{'capacity':{'cpu':'4','pods':'110'}}}");
    Defaults.apply(REGISTRY.byResource("", "nodes").orElseThrow(), node, true);
    assertThat(node.path("status").path("allocatable")).isEqualTo(json("{'cpu':'4','pods':'110'}"));

    ObjectNode limitRange =
        json(
            "{'metadata':{'name':'l'},'spec':{'limits':[{'type':'Container',"
                + "'max':{'cpu':'2'},'min':{'memory':'64Mi'}},{'type':'Pod','max':{'cpu':'4'}}]}}");
    Defaults.apply(REGISTRY.byResource("", "limitranges").orElseThrow(), limitRange, true);
    assertThat(limitRange.path("spec").path("limits").get(0).path("default"))
        .isEqualTo(json("{'cpu':'2'}"));
    assertThat(limitRange.path("spec").path("limits").get(0).path("defaultRequest"))
        .isEqualTo(json("{'cpu':'2','memory':'64Mi'}"));
    assertThat(limitRange.path("spec").path("limits").get(1).has("default")).isFalse();

    ObjectNode binding =
        json(
            "{'metadata':{'name':'b'},'roleRef':{'kind':'ClusterRole','name':'view'},"
                + "'subjects':[{'kind':'User','name':'alice'},"
                + "{'kind':'ServiceAccount','name':'default','namespace':'ns'}]}");
    Defaults.apply(
        REGISTRY.byResource("rbac.authorization.k8s.io", "rolebindings").orElseThrow(),
        binding,
        true);
    assertThat(binding.path("roleRef").path("apiGroup").asText())
        .isEqualTo("rbac.authorization.k8s.io");
    assertThat(binding.path("subjects").get(0).path("apiGroup").asText())
        .isEqualTo("rbac.authorization.k8s.io");
    assertThat(binding.path("subjects").get(1).path("apiGroup").asText("absent")).isEmpty();
  }
}
