package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.controller.ControllersApp;
import io.streamplane.gateway.admission.WebhookServer;
import io.streamplane.gateway.testing.ApiRequests;
import io.streamplane.gateway.testing.TestPlane;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.UserInfo;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.Topics;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admission chain of a real gateway in front of the real store: the ServiceAccount controller
 * and plugin (a {@code default} account in every namespace, its token volume in every pod), the
 * root-CA publisher, and ResourceQuota (a quota of two pods stops the third with Kubernetes'
 * message, its usage kept in its status by the controller and by the charges of admission).
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdmissionIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final UserInfo SYSTEM = TestPlane.SYSTEM;

  private ApiRequests api;

  private TestPlane plane;
  private WebhookServer webhook;
  private StreamsApp controllers;
  private GatewayServer gateway;
  private String namespace;

  @BeforeAll
  void startCluster(EmbeddedKafkaBroker broker, @TempDir Path stateDir) throws Exception {
    plane = TestPlane.start(broker, "adm", stateDir);
    String bootstrap = plane.bootstrap();
    Topics topics = plane.topics();
    controllers = ControllersApp.start(topics, bootstrap, stateDir.resolve("controllers"));
    gateway = GatewayServer.start(bootstrap, topics, "127.0.0.1", 0, 0);
    gateway.ensureSystemNamespaces(SYSTEM);
    api = new ApiRequests(gateway.url());
    webhook = new WebhookServer(stateDir);
  }

  @AfterAll
  void stopCluster() throws Exception {
    TestPlane.closeAll(webhook, gateway, controllers, plane);
  }

  @BeforeEach
  void createNamespace() {
    namespace = api.createNamespace();
  }

  @Test
  void everyNamespaceGetsADefaultServiceAccountWhoseTokenEveryPodMounts() {
    Awaitility.await("the default ServiceAccount of " + namespace)
        .atMost(WAIT)
        .until(() -> send("GET", path("serviceaccounts") + "/default", null).statusCode() == 200);

    HttpResponse<String> created = send("POST", path("pods"), pod("web"));

    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode spec = json(created).path("spec");
    assertThat(spec.path("serviceAccountName").asText()).isEqualTo("default");
    assertThat(spec.path("volumes").get(0).path("name").asText()).startsWith("kube-api-access-");
    assertThat(
            spec.path("containers").get(0).path("volumeMounts").get(0).path("mountPath").asText())
        .isEqualTo("/var/run/secrets/kubernetes.io/serviceaccount");
    assertThat(spec.path("tolerations")).hasSize(2);
  }

  @Test
  void aDeletedDefaultServiceAccountIsCreatedAgain() {
    Awaitility.await("the default ServiceAccount of " + namespace)
        .atMost(WAIT)
        .until(() -> send("GET", path("serviceaccounts") + "/default", null).statusCode() == 200);
    String uid =
        json(send("GET", path("serviceaccounts") + "/default", null))
            .path("metadata")
            .path("uid")
            .asText();

    assertThat(send("DELETE", path("serviceaccounts") + "/default", null).statusCode())
        .isEqualTo(200);

    Awaitility.await("a new default ServiceAccount in " + namespace)
        .atMost(WAIT)
        .until(
            () -> {
              HttpResponse<String> again = send("GET", path("serviceaccounts") + "/default", null);
              return again.statusCode() == 200
                  && !json(again).path("metadata").path("uid").asText().equals(uid);
            });
  }

  @Test
  void aPodNamingAMissingServiceAccountIsForbidden() {
    ObjectNode pod = pod("ghostly");
    pod.with("spec").put("serviceAccountName", "ghost");

    HttpResponse<String> answer = send("POST", path("pods"), pod);

    assertThat(answer.statusCode()).isEqualTo(403);
    assertThat(json(answer).path("message").asText())
        .isEqualTo(
            "pods \"ghostly\" is forbidden: error looking up service account "
                + namespace
                + "/ghost: serviceaccount \"ghost\" not found");
  }

  @Test
  void theClusterCaIsPublishedInEveryNamespace() {
    gateway.publishRootCa("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");

    Awaitility.await("kube-root-ca.crt in " + namespace)
        .atMost(WAIT)
        .until(
            () -> send("GET", path("configmaps") + "/kube-root-ca.crt", null).statusCode() == 200);
    assertThat(
            json(send("GET", path("configmaps") + "/kube-root-ca.crt", null))
                .path("data")
                .path("ca.crt")
                .asText())
        .startsWith("-----BEGIN CERTIFICATE-----");
  }

  @Test
  void aQuotaOfTwoPodsStopsTheThirdWithKubernetesMessageAndFreesASlotOnDelete() {
    ObjectNode quota = JSON.createObjectNode();
    quota.putObject("metadata").put("name", "q");
    quota.putObject("spec").putObject("hard").put("pods", "2");
    assertThat(send("POST", path("resourcequotas"), quota).statusCode()).isEqualTo(201);
    Awaitility.await("the quota's usage, worked out by its controller")
        .atMost(WAIT)
        .until(() -> used("pods").equals("0"));
    Awaitility.await("the default ServiceAccount of " + namespace)
        .atMost(WAIT)
        .until(() -> send("GET", path("serviceaccounts") + "/default", null).statusCode() == 200);

    assertThat(send("POST", path("pods"), pod("one")).statusCode()).isEqualTo(201);
    assertThat(send("POST", path("pods"), pod("two")).statusCode()).isEqualTo(201);
    HttpResponse<String> third = send("POST", path("pods"), pod("three"));

    assertThat(third.statusCode()).isEqualTo(403);
    JsonNode status = json(third);
    assertThat(status.path("reason").asText()).isEqualTo("Forbidden");
    assertThat(status.path("message").asText())
        .isEqualTo(
            "pods \"three\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2,"
                + " limited: pods=2");
    assertThat(send("GET", path("pods") + "/three", null).statusCode()).isEqualTo(404);
    assertThat(used("pods")).isEqualTo("2");

    ObjectNode now = JSON.createObjectNode().put("gracePeriodSeconds", 0);
    assertThat(send("DELETE", path("pods") + "/one", now).statusCode()).isEqualTo(200);
    Awaitility.await("the quota's usage after a delete")
        .atMost(WAIT)
        .until(() -> used("pods").equals("1"));
    assertThat(send("POST", path("pods"), pod("three")).statusCode()).isEqualTo(201);
  }

  @Test
  void aValidatingWebhookConfigurationIsStoredAndItsWebhookRefusesOverHttps() throws Exception {
    webhook.answer(
        review ->
            WebhookServer.response(
                review,
                !review.path("request").path("object").path("metadata").path("labels").has("bad"),
                "\"status\":{\"code\":403,\"message\":\"bad pods are not welcome\"}"));
    String configuration =
        ("{'apiVersion':'admissionregistration.k8s.io/v1','kind':'ValidatingWebhookConfiguration',"
                + "'metadata':{'name':'NS'},'webhooks':[{'name':'bad-pods.example.com',"
                + "'admissionReviewVersions':['v1'],'sideEffects':'None','failurePolicy':'Fail',"
                + "'clientConfig':{'url':'URL','caBundle':'CA'},'rules':[{'operations':['CREATE'],"
                + "'apiGroups':[''],'apiVersions':['v1'],'resources':['pods']}],"
                + "'namespaceSelector':{'matchLabels':{'kubernetes.io/metadata.name':'NS'}}}]}")
            .replace('\'', '"')
            .replace("NS", namespace)
            .replace("URL", webhook.url())
            .replace("CA", webhook.caBundle());
    String configurations = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
    HttpResponse<String> created = send("POST", configurations, JSON.readTree(configuration));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    assertThat(send("GET", configurations + "/" + namespace, null).statusCode()).isEqualTo(200);
    Awaitility.await("the default ServiceAccount of " + namespace)
        .atMost(WAIT)
        .until(() -> send("GET", path("serviceaccounts") + "/default", null).statusCode() == 200);

    ObjectNode bad = pod("bad");
    bad.with("metadata").putObject("labels").put("bad", "yes");
    HttpResponse<String> refused = send("POST", path("pods"), bad);
    HttpResponse<String> admitted = send("POST", path("pods"), pod("good"));

    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(json(refused).path("message").asText())
        .isEqualTo(
            "admission webhook \"bad-pods.example.com\" denied the request: bad pods are not"
                + " welcome");
    assertThat(admitted.statusCode()).isEqualTo(201);
    assertThat(send("DELETE", configurations + "/" + namespace, null).statusCode()).isEqualTo(200);
  }

  @Test
  void aDeploymentsPodsGetTheLimitRangesDefaultsAndAMutatingWebhooksLabel() throws Exception {
    awaitDefaultServiceAccount();
    ObjectNode limits =
        (ObjectNode)
            JSON.readTree(
                "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"metadata\":{\"name\":\"l\"},"
                    + "\"spec\":{\"limits\":[{\"type\":\"Container\",\"defaultRequest\":{\"cpu\":"
                    + "\"100m\"}}]}}");
    assertThat(send("POST", path("limitranges"), limits).statusCode()).isEqualTo(201);
    String patch =
        Base64.getEncoder()
            .encodeToString(
                "[{\"op\":\"add\",\"path\":\"/metadata/labels/injected\",\"value\":\"yes\"}]"
                    .getBytes(StandardCharsets.UTF_8));
    webhook.answer(
        review ->
            WebhookServer.response(
                review, true, "\"patchType\":\"JSONPatch\",\"patch\":\"" + patch + "\""));
    String configurations = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
    HttpResponse<String> configured =
        send(
            "POST",
            configurations,
            JSON.readTree(webhookConfiguration("MutatingWebhookConfiguration")));
    assertThat(configured.statusCode()).as(configured.body()).isEqualTo(201);

    HttpResponse<String> created = send("POST", deployments(), deployment("web"));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

    JsonNode pod =
        Awaitility.await("the Deployment's pod")
            .atMost(WAIT)
            .until(
                () ->
                    json(send("GET", path("pods") + "?labelSelector=app%3Dweb", null))
                        .path("items"),
                items -> items.size() == 1)
            .get(0);
    assertThat(pod.path("metadata").path("labels").path("injected").asText())
        .as("the mutating webhook's label")
        .isEqualTo("yes");
    assertThat(
            pod.path("spec")
                .path("containers")
                .get(0)
                .path("resources")
                .path("requests")
                .path("cpu")
                .asText())
        .as("the LimitRange's default request")
        .isEqualTo("100m");
    assertThat(send("DELETE", configurations + "/" + namespace, null).statusCode()).isEqualTo(200);
  }

  @Test
  void inARestrictedNamespaceAPrivilegedPodIsRefusedAndADeploymentsPodsLeaveFailedCreate()
      throws Exception {
    awaitDefaultServiceAccount();
    ObjectNode labels = JSON.createObjectNode();
    labels
        .putObject("metadata")
        .putObject("labels")
        .put("pod-security.kubernetes.io/enforce", "restricted");
    HttpResponse<String> labelled =
        send("PATCH", "/api/v1/namespaces/" + namespace, labels, "application/merge-patch+json");
    assertThat(labelled.statusCode()).as(labelled.body()).isEqualTo(200);
    // Admission reads the namespace from the cache as it is, as kube-apiserver reads its lister; a
    // consistent GET brings the cache up to the log's end, so the label is seen by what follows.
    assertThat(send("GET", "/api/v1/namespaces/" + namespace, null).statusCode()).isEqualTo(200);
    ObjectNode privileged = pod("root");
    ((ObjectNode) privileged.path("spec").path("containers").get(0))
        .putObject("securityContext")
        .put("privileged", true);

    HttpResponse<String> refused = send("POST", path("pods"), privileged);
    HttpResponse<String> created = send("POST", deployments(), deployment("web"));

    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(json(refused).path("message").asText())
        .startsWith(
            "pods \"root\" is forbidden: violates PodSecurity \"restricted:latest\": privileged"
                + " (container \"c\" must not set securityContext.privileged=true)");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonNode event =
        Awaitility.await("a FailedCreate event on the Deployment's ReplicaSet")
            .atMost(WAIT)
            .until(
                () ->
                    json(send("GET", path("events") + "?fieldSelector=reason%3DFailedCreate", null))
                        .path("items"),
                items -> items.size() > 0)
            .get(0);
    assertThat(event.path("involvedObject").path("kind").asText()).isEqualTo("ReplicaSet");
    assertThat(event.path("type").asText()).isEqualTo("Warning");
    assertThat(event.path("message").asText())
        .startsWith("Error creating: pods \"web-")
        .contains("violates PodSecurity \"restricted:latest\"");
    assertThat(json(send("GET", path("pods"), null)).path("items")).isEmpty();
  }

  private void awaitDefaultServiceAccount() {
    Awaitility.await("the default ServiceAccount of " + namespace)
        .atMost(WAIT)
        .until(() -> send("GET", path("serviceaccounts") + "/default", null).statusCode() == 200);
  }

  private String deployments() {
    return "/apis/apps/v1/namespaces/" + namespace + "/deployments";
  }

  private static ObjectNode deployment(String name) {
    ObjectNode deployment = JSON.createObjectNode();
    deployment.put("apiVersion", "apps/v1").put("kind", "Deployment");
    deployment.putObject("metadata").put("name", name);
    ObjectNode spec = deployment.putObject("spec");
    spec.put("replicas", 1);
    spec.putObject("selector").putObject("matchLabels").put("app", name);
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", name);
    template.set("spec", pod(name).path("spec"));
    return deployment;
  }

  /**
   * A webhook configuration for pods created in this test's namespace, calling {@link #webhook}.
   */
  private String webhookConfiguration(String kind) {
    return ("{'apiVersion':'admissionregistration.k8s.io/v1','kind':'KIND',"
            + "'metadata':{'name':'NS'},'webhooks':[{'name':'label-pods.example.com',"
            + "'admissionReviewVersions':['v1'],'sideEffects':'None','failurePolicy':'Fail',"
            + "'clientConfig':{'url':'URL','caBundle':'CA'},'rules':[{'operations':['CREATE'],"
            + "'apiGroups':[''],'apiVersions':['v1'],'resources':['pods']}],"
            + "'namespaceSelector':{'matchLabels':{'kubernetes.io/metadata.name':'NS'}}}]}")
        .replace('\'', '"')
        .replace("KIND", kind)
        .replace("NS", namespace)
        .replace("URL", webhook.url())
        .replace("CA", webhook.caBundle());
  }

  private String used(String resource) {
    HttpResponse<String> quota = send("GET", path("resourcequotas") + "/q", null);
    return json(quota).path("status").path("used").path(resource).asText("");
  }

  private String path(String resource) {
    return "/api/v1/namespaces/" + namespace + "/" + resource;
  }

  private static ObjectNode pod(String name) {
    ObjectNode pod = JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    pod.putObject("metadata").put("name", name);
    pod.putObject("spec")
        .putArray("containers")
        .addObject()
        .put("name", "c")
        .put("image", "nginx:1.25");
    return pod;
  }

  private HttpResponse<String> send(String method, String path, JsonNode body) {
    return send(method, path, body, "application/json");
  }

  private HttpResponse<String> send(String method, String path, JsonNode body, String contentType) {
    return api.send(
        method, path, body == null ? null : contentType, body == null ? null : body.toString());
  }

  private static JsonNode json(HttpResponse<String> response) {
    return ApiRequests.json(response);
  }
}
