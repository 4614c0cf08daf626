package io.streamplane.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.gateway.api.ApiException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Webhooks} against a real HTTPS webhook server started here (the JDK's HttpsServer with a
 * certificate keytool makes for 127.0.0.1): AdmissionReview v1 both ways, denials, JSON patches,
 * failure policies, timeouts, selectors and dry runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhooksTest {

  private WebhookServer server;

  @BeforeAll
  void startWebhookServer(@TempDir Path dir) throws Exception {
    server = new WebhookServer(dir);
  }

  @AfterAll
  void stopWebhookServer() {
    server.close();
  }

  @BeforeEach
  void reset() {
    server.reset();
  }

  private static String response(JsonNode review, boolean allowed, String extra) {
    return WebhookServer.response(review, allowed, extra);
  }

  private String url() {
    return server.url();
  }

  private Cluster cluster(String kind, String webhook) {
    return new Cluster()
        .with("namespaces", "{'metadata':{'name':'ns','labels':{'team':'a'}}}")
        .with("namespaces", "{'metadata':{'name':'other','labels':{'team':'b'}}}")
        .with(
            "admissionregistration.k8s.io/" + kind,
            "{'metadata':{'name':'config'},'webhooks':[" + webhook + "]}");
  }

  private String webhook(String name, String extra) {
    return "{'name':'"
        + name
        + "','clientConfig':{'url':'"
        + url()
        + "','caBundle':'"
        + server.caBundle()
        + "'},'rules':[{'operations':['CREATE'],'apiGroups':[''],'apiVersions':['v1'],"
        + "'resources':['pods'],'scope':'Namespaced'}],'sideEffects':'None',"
        + "'admissionReviewVersions':['v1']"
        + (extra.isEmpty() ? "" : "," + extra)
        + "}";
  }

  @Test
  void aValidatingWebhookIsSentTheReviewAndItsDenialIsTheAnswer() {
    server.answer(
        review ->
            response(review, false, "\"status\":{\"code\":403,\"message\":\"no pods here\"}"));
    Webhooks plugin =
        Webhooks.validating(
            cluster("validatingwebhookconfigurations", webhook("deny.example.com", "")));

    ApiException e =
        catchThrowableOfType(
            () -> plugin.validate(Cluster.createPod("ns", "{'metadata':{'name':'p'}}")),
            ApiException.class);

    assertThat(e.code()).isEqualTo(403);
    assertThat(e.status().path("message").asText())
        .isEqualTo("admission webhook \"deny.example.com\" denied the request: no pods here");
    JsonNode request = server.lastReview().path("request");
    assertThat(server.lastReview().path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(request.path("operation").asText()).isEqualTo("CREATE");
    assertThat(request.path("resource"))
        .isEqualTo(Cluster.json("{'group':'','version':'v1','resource':'pods'}"));
    assertThat(request.path("namespace").asText()).isEqualTo("ns");
    assertThat(request.path("object").path("metadata").path("name").asText()).isEqualTo("p");
    assertThat(request.path("userInfo").path("username").asText()).isEqualTo("admin");
  }

  @Test
  void aMutatingWebhooksJsonPatchIsAppliedToTheObject() {
    String patch =
        Base64.getEncoder()
            .encodeToString(
                "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"injected\":\"yes\"}}]"
                    .getBytes(StandardCharsets.UTF_8));
    server.answer(
        review ->
            response(review, true, "\"patchType\":\"JSONPatch\",\"patch\":\"" + patch + "\""));
    Webhooks plugin =
        Webhooks.mutating(
            cluster("mutatingwebhookconfigurations", webhook("inject.example.com", "")));
    AdmissionRequest request = Cluster.createPod("ns", "{'metadata':{'name':'p'}}");

    plugin.admit(request);

    assertThat(request.object().path("metadata").path("labels").path("injected").asText())
        .isEqualTo("yes");
  }

  @Test
  void aWebhookThatCannotBeReachedFailsTheWriteUnlessItsPolicyIsIgnore() {
    String unreachable =
        "{'name':'down.example.com','clientConfig':{'url':'https://127.0.0.1:1/x'},"
            + "'rules':[{'operations':['*'],'apiGroups':['*'],'apiVersions':['*'],'resources':['*']}],"
            + "'sideEffects':'None','failurePolicy':'%s'}";
    Webhooks failing =
        Webhooks.validating(
            cluster("validatingwebhookconfigurations", unreachable.formatted("Fail")));
    Webhooks ignoring =
        Webhooks.validating(
            cluster("validatingwebhookconfigurations", unreachable.formatted("Ignore")));

    ApiException e =
        catchThrowableOfType(
            () -> failing.validate(Cluster.createPod("ns", "{'metadata':{'name':'p'}}")),
            ApiException.class);
    ignoring.validate(Cluster.createPod("ns", "{'metadata':{'name':'p'}}"));

    assertThat(e.code()).isEqualTo(500);
    assertThat(e.status().path("message").asText())
        .startsWith("Internal error occurred: failed calling webhook \"down.example.com\": Post");
  }

  @Test
  void aWebhookTooSlowForItsTimeoutIsACallFailure() {
    server.answer(
        review -> {
          try {
            Thread.sleep(2500);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return response(review, true, null);
        });
    Webhooks plugin =
        Webhooks.validating(
            cluster(
                "validatingwebhookconfigurations",
                webhook("slow.example.com", "'timeoutSeconds':1")));

    ApiException e =
        catchThrowableOfType(
            () -> plugin.validate(Cluster.createPod("ns", "{'metadata':{'name':'p'}}")),
            ApiException.class);

    assertThat(e.status().path("message").asText())
        .isEqualTo(
            "Internal error occurred: failed calling webhook \"slow.example.com\": context deadline"
                + " exceeded");
  }

  @Test
  void aServerTheCaBundleDoesNotVouchForIsNotTrusted() {
    String untrusted =
        "{'name':'impostor.example.com','clientConfig':{'url':'"
            + url()
            + "'},'rules':[{'operations':['CREATE'],'apiGroups':[''],'apiVersions':['v1'],"
            + "'resources':['pods']}],'sideEffects':'None'}";
    Webhooks plugin = Webhooks.validating(cluster("validatingwebhookconfigurations", untrusted));

    ApiException e =
        catchThrowableOfType(
            () -> plugin.validate(Cluster.createPod("ns", "{'metadata':{'name':'p'}}")),
            ApiException.class);

    assertThat(e.code()).isEqualTo(500);
    assertThat(server.calls()).isZero();
  }

  @Test
  void onlyWritesTheRulesAndSelectorsMatchAreSent() {
    Webhooks plugin =
        Webhooks.validating(
            cluster(
                "validatingwebhookconfigurations",
                webhook(
                    "selective.example.com",
                    "'namespaceSelector':{'matchLabels':{'team':'a'}},"
                        + "'objectSelector':{'matchExpressions':[{'key':'skip','operator':'DoesNotExist'}]}")));

    plugin.validate(Cluster.createPod("other", "{'metadata':{'name':'p'}}"));
    plugin.validate(Cluster.createPod("ns", "{'metadata':{'name':'p','labels':{'skip':'1'}}}"));
    plugin.validate(
        Cluster.create(
            Cluster.REGISTRY.byResource("", "configmaps").orElseThrow(),
            "ns",
            Cluster.json("{'metadata':{'name':'c'}}")));
    assertThat(server.calls()).isZero();

    plugin.validate(Cluster.createPod("ns", "{'metadata':{'name':'p'}}"));
    assertThat(server.calls()).isEqualTo(1);
  }

  @Test
  void aDryRunIsRefusedByAWebhookWithSideEffects() {
    Webhooks plugin =
        Webhooks.validating(
            cluster(
                "validatingwebhookconfigurations",
                webhook("effects.example.com", "")
                    .replace("'sideEffects':'None'", "'sideEffects':'Some'")));
    AdmissionRequest create = Cluster.createPod("ns", "{'metadata':{'name':'p'}}");
    AdmissionRequest dryRun =
        new AdmissionRequest(
            create.operation(),
            create.type(),
            "",
            "ns",
            "p",
            create.object(),
            null,
            Cluster.ADMIN,
            true);

    ApiException e = catchThrowableOfType(() -> plugin.validate(dryRun), ApiException.class);

    assertThat(e.code()).isEqualTo(400);
    assertThat(e.status().path("message").asText())
        .isEqualTo("admission webhook \"effects.example.com\" does not support dry run");
    assertThat(server.calls()).isZero();
  }
}
