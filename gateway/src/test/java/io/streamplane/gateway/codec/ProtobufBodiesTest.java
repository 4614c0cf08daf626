package io.streamplane.gateway.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.kubernetes.client.proto.IntStr;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Policy;
import io.streamplane.gateway.api.ApiException;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class ProtobufBodiesTest {

  /** What client-go's protobuf serializer writes: magic, then runtime.Unknown. */
  private static byte[] envelope(String apiVersion, String kind, Message object) {
    Runtime.Unknown unknown =
        Runtime.Unknown.newBuilder()
            .setTypeMeta(Runtime.TypeMeta.newBuilder().setApiVersion(apiVersion).setKind(kind))
            .setRaw(object.toByteString())
            .setContentEncoding("")
            .setContentType("")
            .build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {'k', '8', 's', 0});
    out.writeBytes(unknown.toByteArray());
    return out.toByteArray();
  }

  @Test
  void decodesNamespaceAsKubectlCreateNamespaceSendsIt() {
    V1.Namespace ns =
        V1.Namespace.newBuilder()
            // Go writes every non-pointer field: empty strings, a zero Time, empty spec/status.
            .setMetadata(
                Meta.ObjectMeta.newBuilder()
                    .setName("dev")
                    .setGenerateName("")
                    .setNamespace("")
                    .setCreationTimestamp(Meta.Time.newBuilder().build()))
            .setSpec(V1.NamespaceSpec.newBuilder())
            .setStatus(V1.NamespaceStatus.newBuilder().setPhase(""))
            .build();
    ObjectNode json = ProtobufBodies.decode(envelope("v1", "Namespace", ns));
    assertThat(json.toString())
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"dev\"},"
                + "\"spec\":{},\"status\":{}}");
  }

  @Test
  void decodesAnEvictionAsKubectlDrainSendsIt() {
    V1Policy.Eviction eviction =
        V1Policy.Eviction.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("web-0").setNamespace("default"))
            .setDeleteOptions(Meta.DeleteOptions.newBuilder().setGracePeriodSeconds(0))
            .build();
    ObjectNode json = ProtobufBodies.decode(envelope("policy/v1", "Eviction", eviction));
    assertThat(json.toString())
        .isEqualTo(
            "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":"
                + "\"web-0\",\"namespace\":\"default\"},\"deleteOptions\":"
                + "{\"gracePeriodSeconds\":0}}");
  }

  @Test
  void decodesAPodDisruptionBudgetAsKubectlCreatePdbSendsIt() {
    V1Policy.PodDisruptionBudget pdb =
        V1Policy.PodDisruptionBudget.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("web"))
            .setSpec(
                V1Policy.PodDisruptionBudgetSpec.newBuilder()
                    .setMinAvailable(IntStr.IntOrString.newBuilder().setType(0).setIntVal(2))
                    .setSelector(Meta.LabelSelector.newBuilder().putMatchLabels("app", "web")))
            .build();
    ObjectNode json = ProtobufBodies.decode(envelope("policy/v1", "PodDisruptionBudget", pdb));
    assertThat(json.at("/spec/minAvailable").asInt()).isEqualTo(2);
    assertThat(json.at("/spec/selector/matchLabels/app").asText()).isEqualTo("web");
  }

  @Test
  void decodesDeploymentWithKubernetesJsonNamesAndSpecialTypes() {
    V1Apps.Deployment d =
        V1Apps.Deployment.newBuilder()
            .setMetadata(
                Meta.ObjectMeta.newBuilder()
                    .setName("web")
                    .putLabels("app", "web")
                    .setGeneration(0)
                    .setCreationTimestamp(Meta.Time.newBuilder().setSeconds(1735732800L)))
            .setSpec(
                V1Apps.DeploymentSpec.newBuilder()
                    .setReplicas(0)
                    .setMinReadySeconds(0)
                    .setSelector(Meta.LabelSelector.newBuilder().putMatchLabels("app", "web"))
                    .setStrategy(
                        V1Apps.DeploymentStrategy.newBuilder()
                            .setType("RollingUpdate")
                            .setRollingUpdate(
                                V1Apps.RollingUpdateDeployment.newBuilder()
                                    .setMaxUnavailable(
                                        IntStr.IntOrString.newBuilder().setType(1).setStrVal("25%"))
                                    .setMaxSurge(
                                        IntStr.IntOrString.newBuilder().setType(0).setIntVal(1))))
                    .setTemplate(
                        V1.PodTemplateSpec.newBuilder()
                            .setMetadata(Meta.ObjectMeta.newBuilder().putLabels("app", "web"))
                            .setSpec(
                                V1.PodSpec.newBuilder()
                                    .addContainers(
                                        V1.Container.newBuilder()
                                            .setName("nginx")
                                            .setImage("nginx")
                                            .setImagePullPolicy("")
                                            .setStdin(false)
                                            .addPorts(
                                                V1.ContainerPort.newBuilder().setContainerPort(80))
                                            .setResources(
                                                V1.ResourceRequirements.newBuilder()
                                                    .putLimits(
                                                        "cpu",
                                                        Resource.Quantity.newBuilder()
                                                            .setString("500m")
                                                            .build()))))))
            .setStatus(V1Apps.DeploymentStatus.newBuilder().setReplicas(0))
            .build();
    ObjectNode json = ProtobufBodies.decode(envelope("apps/v1", "Deployment", d));

    assertThat(json.path("apiVersion").asText()).isEqualTo("apps/v1");
    assertThat(json.path("kind").asText()).isEqualTo("Deployment");
    JsonNode meta = json.path("metadata");
    assertThat(meta.path("creationTimestamp").asText()).isEqualTo("2025-01-01T12:00:00Z");
    assertThat(meta.path("labels").path("app").asText()).isEqualTo("web");
    assertThat(meta.has("generation")).isFalse();
    JsonNode spec = json.path("spec");
    // replicas is a pointer in Go: an explicit 0 is kept, minReadySeconds' 0 is not.
    assertThat(spec.path("replicas").isInt()).isTrue();
    assertThat(spec.path("replicas").asInt()).isEqualTo(0);
    assertThat(spec.has("minReadySeconds")).isFalse();
    assertThat(spec.path("selector").path("matchLabels").path("app").asText()).isEqualTo("web");
    JsonNode rolling = spec.path("strategy").path("rollingUpdate");
    assertThat(rolling.path("maxUnavailable").isTextual()).isTrue();
    assertThat(rolling.path("maxUnavailable").asText()).isEqualTo("25%");
    assertThat(rolling.path("maxSurge").isInt()).isTrue();
    assertThat(rolling.path("maxSurge").asInt()).isEqualTo(1);
    JsonNode container = spec.path("template").path("spec").path("containers").get(0);
    assertThat(container.toString())
        .isEqualTo(
            "{\"name\":\"nginx\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"
                + "\"resources\":{\"limits\":{\"cpu\":\"500m\"}}}");
    assertThat(json.path("status").toString()).isEqualTo("{}");
  }

  @Test
  void rendersMicroTimeWithMicroseconds() {
    V1.Event e =
        V1.Event.newBuilder()
            .setEventTime(Meta.MicroTime.newBuilder().setSeconds(1735732800L).setNanos(123456000))
            .build();
    assertThat(ProtobufBodies.toJson(e).path("eventTime").asText())
        .isEqualTo("2025-01-01T12:00:00.123456Z");
  }

  @Test
  void secretDataIsBase64() {
    V1.Secret s =
        V1.Secret.newBuilder()
            .putData("k", ByteString.copyFromUtf8("hi"))
            .setType("Opaque")
            .build();
    ObjectNode json = ProtobufBodies.decode(envelope("v1", "Secret", s));
    assertThat(json.path("data").path("k").asText()).isEqualTo("aGk=");
  }

  @Test
  void rejectsBodiesWithoutEnvelopeOrWithUnknownKinds() {
    assertThatThrownBy(() -> ProtobufBodies.decode("{}".getBytes()))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400));
    byte[] unknownKind =
        envelope("autoscaling/v2", "HorizontalPodAutoscaler", V1.Namespace.getDefaultInstance());
    assertThatThrownBy(() -> ProtobufBodies.decode(unknownKind))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(415));
  }

  @Test
  void recognisesTheProtobufContentType() {
    assertThat(ProtobufBodies.isProtobuf("application/vnd.kubernetes.protobuf")).isTrue();
    assertThat(ProtobufBodies.isProtobuf("application/vnd.kubernetes.protobuf; charset=x"))
        .isTrue();
    assertThat(ProtobufBodies.isProtobuf("application/json")).isFalse();
  }

  @Test
  void decodesAPriorityClassAsKubectlCreatePriorityClassSendsIt() {
    io.kubernetes.client.proto.V1Scheduling.PriorityClass pc =
        io.kubernetes.client.proto.V1Scheduling.PriorityClass.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("high"))
            .setValue(1000)
            .setGlobalDefault(false)
            .setDescription("")
            .build();

    ObjectNode json = ProtobufBodies.decode(envelope("scheduling.k8s.io/v1", "PriorityClass", pc));

    assertThat(json.toString())
        .isEqualTo(
            "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\","
                + "\"metadata\":{\"name\":\"high\"},\"value\":1000}");
  }

  @Test
  void decodesAJobAsKubectlCreateJobSendsItWithAnExplicitZeroBackoffLimit() {
    io.kubernetes.client.proto.V1Batch.Job job =
        io.kubernetes.client.proto.V1Batch.Job.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("pi"))
            .setSpec(
                io.kubernetes.client.proto.V1Batch.JobSpec.newBuilder()
                    .setBackoffLimit(0)
                    .setTemplate(
                        V1.PodTemplateSpec.newBuilder()
                            .setSpec(
                                V1.PodSpec.newBuilder()
                                    .setRestartPolicy("Never")
                                    .addContainers(
                                        V1.Container.newBuilder()
                                            .setName("pi")
                                            .setImage("busybox")))))
            .build();

    ObjectNode json = ProtobufBodies.decode(envelope("batch/v1", "Job", job));

    assertThat(json.path("spec").path("backoffLimit").isInt()).isTrue();
    assertThat(json.path("spec").path("template").path("spec").path("restartPolicy").asText())
        .isEqualTo("Never");
  }

  @Test
  void aNamedSliceIsItsItemsAndAnAcronymFieldHasItsJsonName() {
    io.kubernetes.client.proto.V1Certificates.CertificateSigningRequest csr =
        io.kubernetes.client.proto.V1Certificates.CertificateSigningRequest.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("alice"))
            .setSpec(
                io.kubernetes.client.proto.V1Certificates.CertificateSigningRequestSpec.newBuilder()
                    .setSignerName("kubernetes.io/kube-apiserver-client")
                    .putExtra(
                        "scopes",
                        io.kubernetes.client.proto.V1Certificates.ExtraValue.newBuilder()
                            .addItems("read")
                            .addItems("write")
                            .build()))
            .build();
    io.kubernetes.client.proto.V1Networking.IngressClass ingressClass =
        io.kubernetes.client.proto.V1Networking.IngressClass.newBuilder()
            .setSpec(
                io.kubernetes.client.proto.V1Networking.IngressClassSpec.newBuilder()
                    .setParameters(
                        io.kubernetes.client.proto.V1Networking.IngressClassParametersReference
                            .newBuilder()
                            .setAPIGroup("k8s.example.com")
                            .setKind("P")
                            .setName("p")))
            .build();

    assertThat(
            ProtobufBodies.decode(
                    envelope("certificates.k8s.io/v1", "CertificateSigningRequest", csr))
                .path("spec")
                .path("extra")
                .toString())
        .isEqualTo("{\"scopes\":[\"read\",\"write\"]}");
    assertThat(
            ProtobufBodies.decode(envelope("networking.k8s.io/v1", "IngressClass", ingressClass))
                .path("spec")
                .path("parameters")
                .toString())
        .isEqualTo("{\"apiGroup\":\"k8s.example.com\",\"kind\":\"P\",\"name\":\"p\"}");
  }

  @Test
  void aStructGoEmbedsInlineHasItsFieldsInPlaceAsKubectlCreateIngressNeeds() {
    var rule =
        io.kubernetes.client.proto.V1Networking.IngressRule.newBuilder()
            .setHost("shop.example.com")
            .setIngressRuleValue(
                io.kubernetes.client.proto.V1Networking.IngressRuleValue.newBuilder()
                    .setHttp(
                        io.kubernetes.client.proto.V1Networking.HTTPIngressRuleValue.newBuilder()
                            .addPaths(
                                io.kubernetes.client.proto.V1Networking.HTTPIngressPath.newBuilder()
                                    .setPath("/")
                                    .setPathType("Exact"))))
            .build();
    var ingress =
        io.kubernetes.client.proto.V1Networking.Ingress.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName("shop"))
            .setSpec(
                io.kubernetes.client.proto.V1Networking.IngressSpec.newBuilder().addRules(rule))
            .build();

    assertThat(
            ProtobufBodies.decode(envelope("networking.k8s.io/v1", "Ingress", ingress))
                .path("spec")
                .path("rules")
                .toString())
        .isEqualTo(
            "[{\"host\":\"shop.example.com\",\"http\":{\"paths\":[{\"path\":\"/\","
                + "\"pathType\":\"Exact\"}]}}]");
  }

  @Test
  void managedFieldsAsKubectlCertificateApproveSendsThemBackAreTheirJson() {
    V1.ConfigMap cm =
        V1.ConfigMap.newBuilder()
            .setMetadata(
                Meta.ObjectMeta.newBuilder()
                    .setName("c")
                    .addManagedFields(
                        Meta.ManagedFieldsEntry.newBuilder()
                            .setManager("kubectl")
                            .setFieldsType("FieldsV1")
                            .setFieldsV1(
                                Meta.FieldsV1.newBuilder()
                                    .setRaw(ByteString.copyFromUtf8("{\"f:data\":{}}")))))
            .build();

    assertThat(
            ProtobufBodies.decode(envelope("v1", "ConfigMap", cm))
                .path("metadata")
                .path("managedFields")
                .toString())
        .isEqualTo(
            "[{\"manager\":\"kubectl\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{}}}]");
  }
}
