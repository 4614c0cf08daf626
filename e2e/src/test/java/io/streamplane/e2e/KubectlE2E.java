package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.streamplane.schema.convert.KubeJson;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Unmodified kubectl 1.32 against {@code ./streamplane up}: what kubectl users do every day, each
 * test on its own objects in one shared cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubectlE2E {

  private static final ObjectMapper JSON = new ObjectMapper();

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster() throws Exception {
    assertThat(Kubectl.BINARY).as("kubectl 1.32 must be installed at /usr/bin/kubectl").exists();
    home = Files.createTempDirectory("kubectl-e2e");
    // Nodes scraped and autoscalers synced every 2 s, for the autoscaler of a custom resource.
    cluster =
        new LocalCluster(home)
            .javaOptions(
                System.getenv().getOrDefault("STREAMPLANE_JAVA_OPTS", "")
                    + " -Dstreamplane.metric-resolution=PT2S"
                    + " -Dstreamplane.horizontal-pod-autoscaler-sync-period=PT2S")
            .start();
    kubectl = cluster.kubectl;
    // Ready means ready, as kube-apiserver's post-start hooks: the moment up says so, the default
    // policy (aggregated roles included) authorizes a user bound to view.
    kubectl
        .run("create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice")
        .expectSuccess();
    assertThat(kubectl.run("auth", "can-i", "list", "pods", "--as=alice").out().trim())
        .isEqualTo("yes");
    assertThat(kubectl.run("get", "priorityclass", "system-node-critical").exitCode()).isZero();
    List<String> kubernetes = words(kubectl.run("get", "svc", "kubernetes").expectSuccess().out());
    assertThat(kubernetes.get(1))
        .matches("kubernetes ClusterIP 127\\.\\d+\\.0\\.1 <none> 443/TCP \\S+");
    assertThat(
            kubectl
                .run(
                    "get",
                    "endpoints",
                    "kubernetes",
                    "-o",
                    "jsonpath={.subsets[0].addresses[0].ip}")
                .out())
        .isEqualTo("127.0.0.1");
  }

  @AfterAll
  void stopCluster() throws Exception {
    cluster.stop();
    cluster.close();
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void theServerReportsKubernetes132AndItsSystemNamespaces() throws Exception {
    assertThat(kubectl.run("version", "-o", "json").expectSuccess().out())
        .contains("\"minor\": \"32\"");
    assertThat(kubectl.run("get", "namespaces").expectSuccess().out())
        .contains("default", "kube-system", "kube-public", "kube-node-lease");
  }

  @Test
  void applyingTheExamplesCreatesThemAndGetShowsThemInEveryFormat() throws Exception {
    Path examples = Launcher.repositoryRoot().resolve("examples");
    assertThat(
            kubectl
                .run("apply", "-f", examples.resolve("nginx-deployment.yaml").toString())
                .expectSuccess()
                .out())
        .contains("deployment.apps/nginx-deployment created");
    assertThat(
            kubectl
                .run("apply", "-f", examples.resolve("pod.yaml").toString())
                .expectSuccess()
                .out())
        .contains("created");
    assertThat(
            kubectl
                .run("apply", "-f", examples.resolve("namespace.yaml").toString())
                .expectSuccess()
                .out())
        .contains("created");

    String all = kubectl.run("get", "deploy,pods", "-A").expectSuccess().out();
    assertThat(all).contains("deployment.apps/nginx-deployment", "0/2", "pod/nginx-deployment-");
    assertThat(kubectl.run("get", "pods", "-o", "wide").expectSuccess().out())
        .contains("NOMINATED NODE", "Pending");
    assertThat(kubectl.run("get", "deploy", "nginx-deployment", "-o", "yaml").expectSuccess().out())
        .contains("image: nginx:1.14.2", "containerPort: 80", "uid:", "resourceVersion:");
    JsonNode deployment =
        JSON.readTree(
            kubectl.run("get", "deploy", "nginx-deployment", "-o", "json").expectSuccess().out());
    assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(kubectl.run("describe", "deploy", "nginx-deployment").expectSuccess().out())
        .contains("Replicas:", "2 desired", "nginx:1.14.2", "RollingUpdateStrategy:");
  }

  @Test
  void getWatchSeesChangesMadeAfterItStarted() throws Exception {
    Path out = Files.createTempFile(home, "watch", ".out");
    Process watch = kubectl.start(out, "get", "configmaps", "-w");
    try {
      await("the watch to print its header")
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(out).contains("NAME"));
      kubectl.run("create", "configmap", "watched", "--from-literal=a=1").expectSuccess();
      kubectl.run("label", "configmap", "watched", "seen=yes").expectSuccess();
      kubectl.run("delete", "configmap", "watched").expectSuccess();
      await("the watch to show the configmap three times")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  Files.readString(out).lines().filter(l -> l.startsWith("watched")).count() >= 3);
    } finally {
      watch.destroy();
    }
  }

  @Test
  void labelAnnotateAndScaleChangeExactlyWhatTheyName() throws Exception {
    kubectl.run("create", "deployment", "scaled", "--image=nginx:1.14.2").expectSuccess();

    kubectl.run("label", "deploy", "scaled", "tier=web").expectSuccess();
    kubectl.run("annotate", "deploy", "scaled", "note=hello").expectSuccess();
    assertThat(kubectl.run("scale", "deployment", "scaled", "--replicas=5").expectSuccess().out())
        .contains("scaled");

    JsonNode d =
        JSON.readTree(kubectl.run("get", "deploy", "scaled", "-o", "json").expectSuccess().out());
    assertThat(d.path("spec").path("replicas").asInt()).isEqualTo(5);
    assertThat(d.path("metadata").path("labels").path("tier").asText()).isEqualTo("web");
    assertThat(d.path("metadata").path("annotations").path("note").asText()).isEqualTo("hello");
    assertThat(
            d.path("spec")
                .path("template")
                .path("spec")
                .path("containers")
                .get(0)
                .path("image")
                .asText())
        .isEqualTo("nginx:1.14.2");
  }

  @Test
  void reapplyingWithAChangedEnvAndARemovedPortPatchesExactlyThat() throws Exception {
    String first = manifest("reapplied", "\"1\"", "        ports:\n        - containerPort: 80\n");
    kubectl.runWithInput(first, "apply", "-f", "-").expectSuccess();
    String second = manifest("reapplied", "\"2\"", "");

    assertThat(kubectl.runWithInput(second, "apply", "-f", "-").expectSuccess().out())
        .contains("deployment.apps/reapplied configured");

    JsonNode container =
        JSON.readTree(kubectl.run("get", "deploy", "reapplied", "-o", "json").expectSuccess().out())
            .path("spec")
            .path("template")
            .path("spec")
            .path("containers")
            .get(0);
    assertThat(container.path("env").toString()).isEqualTo("[{\"name\":\"A\",\"value\":\"2\"}]");
    assertThat(container.has("ports")).as("the removed port is gone").isFalse();
    assertThat(container.path("image").asText()).isEqualTo("nginx:1.14.2");
  }

  @Test
  void explainPrintsTheFieldDocumentationOfDeploymentsAndPods() throws Exception {
    assertThat(kubectl.run("explain", "deployment.spec.strategy").expectSuccess().out())
        .contains(
            "KIND:       Deployment",
            "FIELD: strategy <DeploymentStrategy>",
            "DeploymentStrategy describes how to replace existing pods with new ones.",
            "rollingUpdate\t<RollingUpdateDeployment>",
            "type\t<string>",
            "Type of deployment. Can be \"Recreate\" or \"RollingUpdate\".");
    assertThat(kubectl.run("explain", "pod.spec.securityContext").expectSuccess().out())
        .contains(
            "FIELD: securityContext <PodSecurityContext>",
            "PodSecurityContext holds pod-level security attributes",
            "runAsUser\t<integer>",
            "seccompProfile\t<SeccompProfile>");

    // The Swagger 2 form, which kubectl reads as protobuf.
    assertThat(
            kubectl
                .run("explain", "deployment.spec.strategy", "--output=plaintext-openapiv2")
                .expectSuccess()
                .out())
        .contains(
            "KIND:     Deployment",
            "RESOURCE: strategy <Object>",
            "DeploymentStrategy describes how to replace existing pods with new ones.",
            "rollingUpdate\t<Object>");
  }

  @Test
  void reapplyingTheNginxExampleWithANewImageAndPortMergesContainersByName() throws Exception {
    String ns = "reapply-example";
    kubectl.run("create", "namespace", ns).expectSuccess();
    Path example = Launcher.repositoryRoot().resolve("examples").resolve("nginx-deployment.yaml");
    kubectl.run("apply", "-n", ns, "-f", example.toString()).expectSuccess();
    // A container the manifest does not name: merged by name it stays, replaced it would go.
    kubectl
        .run(
            "patch",
            "-n",
            ns,
            "deploy",
            "nginx-deployment",
            "--type=strategic",
            "-p",
            "{\"spec\":{\"template\":{\"spec\":{\"containers\":"
                + "[{\"name\":\"sidecar\",\"image\":\"busybox:1.36\"}]}}}}")
        .expectSuccess();
    String changed =
        Files.readString(example)
            .replace("nginx:1.14.2", "nginx:1.16.1")
            .replace(
                "- containerPort: 80\n", "- containerPort: 80\n        - containerPort: 443\n");
    assertThat(changed).contains("nginx:1.16.1", "containerPort: 443");

    Kubectl.Result reapply =
        kubectl.runWithInput(changed, "apply", "-n", ns, "-f", "-", "-v=8").expectSuccess();

    assertThat(reapply.out()).contains("deployment.apps/nginx-deployment configured");
    assertThat(reapply.err()).doesNotContain("error calculating patch").doesNotContain("warning:");
    // The patch was computed from the served OpenAPI v3 schema (no fallback to /openapi/v2 or to
    // kubectl's compiled-in types), ordering the ports by their merge key.
    assertThat(reapply.err())
        .contains("/openapi/v3/apis/apps/v1?hash=")
        .doesNotContain("/openapi/v2")
        .contains(
            "$setElementOrder/ports\\\":[{\\\"containerPort\\\":80},{\\\"containerPort\\\":443}]");
    JsonNode containers =
        JSON.readTree(
                kubectl
                    .run("get", "-n", ns, "deploy", "nginx-deployment", "-o", "json")
                    .expectSuccess()
                    .out())
            .path("spec")
            .path("template")
            .path("spec")
            .path("containers");
    assertThat(containers.findValuesAsText("name")).containsExactlyInAnyOrder("nginx", "sidecar");
    for (JsonNode container : containers) {
      if (container.path("name").asText().equals("nginx")) {
        assertThat(container.path("image").asText()).isEqualTo("nginx:1.16.1");
        assertThat(container.path("ports").findValuesAsText("containerPort"))
            .containsExactly("80", "443");
      } else {
        assertThat(container.path("image").asText()).isEqualTo("busybox:1.36");
      }
    }
  }

  @Test
  void strictValidationOfAMisspelledFieldIsStillTheServersStrictError() throws Exception {
    String misspelled =
        Files.readString(
                Launcher.repositoryRoot().resolve("examples").resolve("nginx-deployment.yaml"))
            .replace("name: nginx-deployment", "name: misspelled")
            .replace("  replicas: 2", "  replicaz: 2");
    assertThat(misspelled).contains("replicaz");

    Kubectl.Result create =
        kubectl.runWithInput(misspelled, "create", "--validate=strict", "-f", "-");

    assertThat(create.exitCode()).isNotZero();
    assertThat(create.err())
        .contains(
            "Error from server (BadRequest)",
            "strict decoding error: unknown field \"spec.replicaz\"");
  }

  @Test
  void deleteRemovesTheObject() throws Exception {
    kubectl.run("create", "configmap", "doomed", "--from-literal=a=1").expectSuccess();

    assertThat(kubectl.run("delete", "configmap", "doomed").expectSuccess().out())
        .contains("configmap \"doomed\" deleted");

    Kubectl.Result get = kubectl.run("get", "configmap", "doomed");
    assertThat(get.exitCode()).isNotZero();
    assertThat(get.err()).contains("NotFound", "configmaps \"doomed\" not found");
  }

  @Test
  void deleteWithCascadeOrphanKeepsTheReplicaSetAndForegroundRemovesEverything() throws Exception {
    kubectl
        .run("create", "deployment", "orphaner", "--image=nginx:1.14.2", "--replicas=2")
        .expectSuccess();
    await("the orphaner ReplicaSet")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> !kubectl.run("get", "rs", "-l", "app=orphaner", "--no-headers").out().isBlank());

    kubectl.run("delete", "deploy", "orphaner", "--cascade=orphan").expectSuccess();

    await("the ReplicaSet to lose its owner reference")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kubectl
                    .run(
                        "get",
                        "rs",
                        "-l",
                        "app=orphaner",
                        "-o",
                        "jsonpath={.items[0].metadata.ownerReferences}")
                    .out()
                    .isBlank());
    assertThat(kubectl.run("get", "deploy", "orphaner").exitCode()).isNotZero();
    assertThat(
            kubectl.run("get", "pods", "-l", "app=orphaner", "--no-headers").out().lines().count())
        .isEqualTo(2);

    kubectl.run("create", "deployment", "foreground", "--image=nginx:1.14.2").expectSuccess();
    await("the foreground ReplicaSet")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                !kubectl.run("get", "rs", "-l", "app=foreground", "--no-headers").out().isBlank());
    kubectl.run("delete", "deploy", "foreground", "--cascade=foreground").expectSuccess();
    assertThat(kubectl.run("get", "deploy,rs,pods", "-l", "app=foreground", "--no-headers").out())
        .as("kubectl waited for the Deployment, which goes last")
        .isBlank();
  }

  @Test
  void createNamespaceAndCreateDeploymentWork() throws Exception {
    assertThat(kubectl.run("create", "namespace", "made-by-kubectl").expectSuccess().out())
        .contains("namespace/made-by-kubectl created");
    assertThat(
            kubectl
                .run("create", "deployment", "web", "--image=nginx", "-n", "made-by-kubectl")
                .expectSuccess()
                .out())
        .contains("deployment.apps/web created");
    JsonNode d =
        JSON.readTree(
            kubectl
                .run("get", "deploy", "web", "-n", "made-by-kubectl", "-o", "json")
                .expectSuccess()
                .out());
    assertThat(d.path("spec").path("selector").path("matchLabels").path("app").asText())
        .isEqualTo("web");
  }

  @Test
  void rolloutUndoOfADeploymentMadeByCreateDeploymentRestoresThePreviousTemplate()
      throws Exception {
    kubectl.run("create", "deployment", "undone", "--image=nginx:1.14.2").expectSuccess();
    await("the Deployment at revision 1")
        .atMost(Duration.ofSeconds(60))
        .until(() -> revision("undone").equals("1"));
    kubectl.run("set", "image", "deployment/undone", "nginx=nginx:1.16.1").expectSuccess();
    await("the Deployment at revision 2")
        .atMost(Duration.ofSeconds(60))
        .until(() -> revision("undone").equals("2"));

    kubectl.run("rollout", "undo", "deployment/undone").expectSuccess();

    await("revision 1's template back as revision 3")
        .atMost(Duration.ofSeconds(60))
        .until(() -> revision("undone").equals("3"));
    assertThat(
            kubectl
                .run(
                    "get",
                    "deploy",
                    "undone",
                    "-o",
                    "jsonpath={.spec.template.spec.containers[0].image}")
                .out())
        .isEqualTo("nginx:1.14.2");
    assertThat(kubectl.run("rollout", "history", "deployment/undone").expectSuccess().out())
        .contains("2 ", "3 ")
        .doesNotContain("1 ");
  }

  @Test
  void kubeNodeLeaseComesBackAfterItIsDeleted() throws Exception {
    String uid =
        kubectl
            .run("get", "namespace", "kube-node-lease", "-o", "jsonpath={.metadata.uid}")
            .expectSuccess()
            .out();

    kubectl.run("delete", "namespace", "kube-node-lease", "--wait=false").expectSuccess();

    // Emptied and finalized by the namespace controller, then created again by the gateway's
    // check, which runs every 10 s (kube-apiserver's, once a minute).
    await("a new kube-node-lease")
        .atMost(Duration.ofSeconds(150))
        .until(
            () -> {
              Kubectl.Result ns =
                  kubectl.run(
                      "get",
                      "namespace",
                      "kube-node-lease",
                      "-o",
                      "jsonpath={.metadata.uid} {.status.phase}");
              return ns.exitCode() == 0 && !ns.out().startsWith(uid) && ns.out().endsWith("Active");
            });
  }

  @Test
  void creatingAnExistingObjectIsAlreadyExists() throws Exception {
    kubectl.run("create", "namespace", "twice").expectSuccess();

    Kubectl.Result again = kubectl.run("create", "namespace", "twice");

    assertThat(again.exitCode()).isNotZero();
    assertThat(again.err())
        .contains("Error from server (AlreadyExists)", "namespaces \"twice\" already exists");
  }

  @Test
  void aPrivilegedPodIsRefusedInANamespaceThatEnforcesTheRestrictedLevel() throws Exception {
    kubectl.run("create", "namespace", "locked").expectSuccess();
    kubectl
        .run("label", "namespace", "locked", "pod-security.kubernetes.io/enforce=restricted")
        .expectSuccess();
    // Admission reads namespaces from the cache as it is (kube-apiserver: its lister); a consistent
    // read brings the cache up to the log's end first.
    kubectl.run("get", "namespace", "locked").expectSuccess();

    Kubectl.Result run =
        kubectl.run("run", "root", "--image=busybox", "--privileged", "-n", "locked");

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err())
        .contains(
            "Error from server (Forbidden)",
            "pods \"root\" is forbidden: violates PodSecurity \"restricted:latest\"",
            "privileged (container \"root\" must not set securityContext.privileged=true)");
    assertThat(kubectl.run("get", "pods", "-n", "locked", "-o", "name").expectSuccess().out())
        .isEmpty();
  }

  private static final String REPLICA_POLICIES =
      """
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingAdmissionPolicy
      metadata:
        name: max-replicas
      spec:
        matchConstraints:
          resourceRules:
            - apiGroups: [apps]
              apiVersions: [v1]
              operations: [CREATE, UPDATE]
              resources: [deployments]
        validations:
          - expression: object.spec.replicas <= 5
            message: replicas must be no greater than 5
      ---
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingAdmissionPolicy
      metadata:
        name: no-blocked-pods
      spec:
        matchConstraints:
          resourceRules:
            - apiGroups: [""]
              apiVersions: [v1]
              operations: [CREATE]
              resources: [pods]
        validations:
          - expression: object.metadata.labels.app != 'blocked'
            messageExpression: "'pods of ' + object.metadata.labels.app + ' are not allowed'"
            reason: Forbidden
      ---
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingAdmissionPolicyBinding
      metadata:
        name: max-replicas
      spec:
        policyName: max-replicas
        validationActions: [Deny]
        matchResources:
          namespaceSelector:
            matchLabels: {replica-policy: deny}
      ---
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingAdmissionPolicyBinding
      metadata:
        name: max-replicas-warn
      spec:
        policyName: max-replicas
        validationActions: [Warn]
        matchResources:
          namespaceSelector:
            matchLabels: {replica-policy: warn}
      ---
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingAdmissionPolicyBinding
      metadata:
        name: no-blocked-pods
      spec:
        policyName: no-blocked-pods
        validationActions: [Deny]
        matchResources:
          namespaceSelector:
            matchLabels: {replica-policy: deny}
      """;

  @Test
  void aValidatingAdmissionPolicyDeniesOrWarnsAsItsBindingsSayControllersWritesIncluded()
      throws Exception {
    kubectl.run("create", "namespace", "vap-deny").expectSuccess();
    kubectl.run("label", "namespace", "vap-deny", "replica-policy=deny").expectSuccess();
    kubectl.run("create", "namespace", "vap-warn").expectSuccess();
    kubectl.run("label", "namespace", "vap-warn", "replica-policy=warn").expectSuccess();
    kubectl.runWithInput(REPLICA_POLICIES, "apply", "-f", "-").expectSuccess();
    assertThat(
            String.join(
                "\n", words(kubectl.run("get", "validatingadmissionpolicy").expectSuccess().out())))
        .contains(
            "NAME VALIDATIONS PARAMKIND AGE\n",
            "max-replicas 1 <unset> ",
            "no-blocked-pods 1 <unset> ");
    assertThat(
            String.join(
                "\n",
                words(
                    kubectl.run("get", "validatingadmissionpolicybinding").expectSuccess().out())))
        .contains("NAME POLICYNAME PARAMREF AGE\n", "max-replicas-warn max-replicas <unset> ");

    // The gateway sees the bindings as its cache does, as kube-apiserver its informers.
    await("the Deny binding applied")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        kubectl
                            .run(
                                "create",
                                "deployment",
                                "web",
                                "--image=nginx",
                                "--replicas=7",
                                "-n",
                                "vap-deny",
                                "--dry-run=server")
                            .exitCode())
                    .isNotZero());
    assertThat(
            kubectl
                .run(
                    "create",
                    "deployment",
                    "web",
                    "--image=nginx",
                    "--replicas=7",
                    "-n",
                    "vap-deny")
                .err())
        .contains(
            "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with"
                + " binding 'max-replicas' denied request: replicas must be no greater than 5");
    kubectl
        .run("create", "deployment", "small", "--image=nginx", "--replicas=2", "-n", "vap-deny")
        .expectSuccess();
    Kubectl.Result warned =
        kubectl.run(
            "create",
            "deployment",
            "web",
            "--image=nginx",
            "--replicas=7",
            "-n",
            "vap-warn",
            "--dry-run=server");
    assertThat(warned.exitCode()).isZero();
    assertThat(warned.err())
        .contains(
            "Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding"
                + " 'max-replicas-warn': replicas must be no greater than 5");

    // The ReplicaSet controller's pods pass the same policies: its creates are refused.
    kubectl
        .run("create", "deployment", "blocked", "--image=nginx", "-n", "vap-deny")
        .expectSuccess();
    // Right after the cluster starts, the controllers may take some seconds to make the set.
    await("the ReplicaSet's FailedCreate event")
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(
                        kubectl
                            .run(
                                "get",
                                "events",
                                "-n",
                                "vap-deny",
                                "--field-selector",
                                "reason=FailedCreate",
                                "-o",
                                "jsonpath={.items[*].message}")
                            .out())
                    .contains(
                        "is forbidden: ValidatingAdmissionPolicy 'no-blocked-pods' with binding"
                            + " 'no-blocked-pods' denied request: pods of blocked are not"
                            + " allowed"));

    Kubectl.Result broken =
        kubectl.runWithInput(
            REPLICA_POLICIES
                .substring(0, REPLICA_POLICIES.indexOf("---"))
                .replace("name: max-replicas", "name: broken")
                .replace("object.spec.replicas <= 5", "object.spec.replicas <="),
            "apply",
            "-f",
            "-");
    assertThat(broken.exitCode()).isNotZero();
    assertThat(broken.err())
        .contains(
            "The ValidatingAdmissionPolicy \"broken\" is invalid: spec.validations[0].expression:"
                + " Invalid value: \"object.spec.replicas <=\": compilation failed: ERROR:");

    kubectl.runWithInput(REPLICA_POLICIES, "delete", "-f", "-").expectSuccess();
    kubectl.run("delete", "namespace", "vap-deny", "vap-warn", "--wait=false").expectSuccess();
  }

  @Test
  void replacingWithAStaleResourceVersionIsAConflict() throws Exception {
    kubectl.run("create", "configmap", "contested", "--from-literal=a=1").expectSuccess();
    String stale = kubectl.run("get", "configmap", "contested", "-o", "json").expectSuccess().out();
    kubectl.run("label", "configmap", "contested", "moved=on").expectSuccess();

    Kubectl.Result replace = kubectl.runWithInput(stale, "replace", "-f", "-");

    assertThat(replace.exitCode()).isNotZero();
    assertThat(replace.err())
        .contains("Error from server (Conflict)", "the object has been modified");
  }

  @Test
  void bodiesOfTheWrongShapeAreRefusedInKubeApiserversWords() throws Exception {
    kubectl.run("create", "configmap", "shapely", "--from-literal=a=1").expectSuccess();
    Kubectl.Result patch =
        kubectl.run(
            "patch", "configmap", "shapely", "-p", "{\"metadata\":{\"labels\":\"invalid\"}}");
    assertThat(patch.exitCode()).isNotZero();
    assertThat(patch.err()).contains("cannot restore map from string");

    Path yaml =
        Files.writeString(home.resolve("raw-namespace.yaml"), "apiVersion: v1\nkind: Namespace\n");
    Kubectl.Result raw =
        kubectl.run("create", "--raw", "/api/v1/namespaces", "-f", yaml.toString());
    assertThat(raw.exitCode()).isNotZero();
    assertThat(raw.err())
        .contains(
            "the object provided is unrecognized (must be of type Namespace): couldn't get"
                + " version/kind; json parse error");
  }

  @Test
  void aFileWithAnUnknownKindFailsThatDocumentOnly() throws Exception {
    Path file =
        Files.writeString(
            home.resolve("mixed.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: beside-unknown\ndata: {a: \"1\"}\n"
                + "---\napiVersion: example.com/v1\nkind: Unknown\nmetadata:\n  name: x\n");

    Kubectl.Result apply = kubectl.run("apply", "-f", file.toString());

    assertThat(apply.exitCode()).isNotZero();
    assertThat(apply.out()).contains("configmap/beside-unknown created");
    assertThat(apply.err())
        .contains("no matches for kind \"Unknown\" in version \"example.com/v1\"");
  }

  @Test
  void exposeAndCreateServiceMakeServicesWithAddressesAndNodePorts() throws Exception {
    kubectl.run("create", "deployment", "exposed", "--image=nginx").expectSuccess();
    assertThat(
            kubectl
                .run("expose", "deployment", "exposed", "--port=80", "--type=NodePort")
                .expectSuccess()
                .out())
        .contains("service/exposed exposed");
    assertThat(
            kubectl
                .run("create", "service", "clusterip", "db", "--tcp=5432:5432")
                .expectSuccess()
                .out())
        .contains("service/db created");

    List<String> exposed =
        words(kubectl.run("get", "svc", "exposed", "-o", "wide").expectSuccess().out());
    assertThat(exposed.get(0)).isEqualTo("NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR");
    assertThat(exposed.get(1))
        .matches(
            "exposed NodePort 127\\.\\d+\\.\\d+\\.\\d+ <none> 80:3\\d{4}/TCP \\S+ app=exposed");
    // No node runs the pod here: the Service keeps kube-controller-manager's empty placeholder.
    await("the EndpointSlice of exposed")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                words(
                            kubectl
                                .run(
                                    "get",
                                    "endpointslices",
                                    "-l",
                                    "kubernetes.io/service-name=exposed")
                                .expectSuccess()
                                .out())
                        .size()
                    == 2);
    List<String> slices =
        words(
            kubectl
                .run("get", "endpointslices", "-l", "kubernetes.io/service-name=exposed")
                .expectSuccess()
                .out());
    assertThat(slices.get(0)).isEqualTo("NAME ADDRESSTYPE PORTS ENDPOINTS AGE");
    assertThat(slices.get(1)).matches("exposed-[a-z0-9]{5} IPv4 <unset> <unset> \\S+");
    String dbIP =
        kubectl.run("get", "svc", "db", "-o", "jsonpath={.spec.clusterIP}").expectSuccess().out();
    assertThat(dbIP).startsWith("127.").isNotEqualTo(exposed.get(1).split(" ")[2]);
    assertThat(kubectl.run("get", "svc", "db", "-o", "jsonpath={.spec.ports[0].targetPort}").out())
        .isEqualTo("5432");
    Kubectl.Result clash =
        kubectl.run("create", "service", "clusterip", "db2", "--tcp=5432", "--clusterip=" + dbIP);
    assertThat(clash.exitCode()).isNotZero();
    assertThat(clash.err()).contains("provided IP is already allocated");
  }

  @Test
  void jobsAndCronJobsAreServedInBatchV1AndPrintedWithKubectlsColumns() throws Exception {
    String resources = kubectl.run("api-resources", "--no-headers").expectSuccess().out();
    assertThat(resources.lines().map(l -> String.join(" ", l.trim().split("\\s+"))))
        .contains("jobs batch/v1 true Job", "cronjobs cj batch/v1 true CronJob");

    kubectl
        .run("create", "cronjob", "tick", "--image=busybox", "--schedule=@hourly", "--", "date")
        .expectSuccess();

    List<String> cronJobs = words(kubectl.run("get", "cronjobs").expectSuccess().out());
    assertThat(cronJobs.get(0))
        .isEqualTo("NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE");
    assertThat(cronJobs.get(1)).matches("tick @hourly <none> False 0 <none> \\S+");
    Kubectl.Result bad =
        kubectl.run("create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *");
    assertThat(bad.exitCode()).isNotZero();
    assertThat(bad.err()).contains("spec.schedule: Invalid value: \"61 * * * *\"");
  }

  @Test
  void ipAddressesAndServiceCidrsAreServedInNetworkingV1beta1() throws Exception {
    String resources = kubectl.run("api-resources", "--no-headers").expectSuccess().out();
    assertThat(resources.lines().map(l -> String.join(" ", l.trim().split("\\s+"))))
        .contains(
            "ipaddresses networking.k8s.io/v1beta1 false IPAddress",
            "servicecidrs networking.k8s.io/v1beta1 false ServiceCIDR",
            "ingresses ing networking.k8s.io/v1 true Ingress");
    String objects =
        "apiVersion: networking.k8s.io/v1beta1\nkind: IPAddress\nmetadata:\n  name: 127.96.0.5\n"
            + "spec:\n  parentRef: {resource: services, namespace: default, name: web}\n---\n"
            + "apiVersion: networking.k8s.io/v1beta1\nkind: ServiceCIDR\nmetadata:\n"
            + "  name: loopback\nspec:\n  cidrs: [127.96.0.0/12]\n";
    kubectl.runWithInput(objects, "apply", "-f", "-").expectSuccess();

    List<String> addresses = words(kubectl.run("get", "ipaddresses").expectSuccess().out());
    assertThat(addresses.get(0)).isEqualTo("NAME PARENTREF");
    assertThat(addresses).contains("127.96.0.5 services/default/web");
    List<String> cidrs = words(kubectl.run("get", "servicecidrs").expectSuccess().out());
    assertThat(cidrs.get(0)).isEqualTo("NAME CIDRS AGE");
    assertThat(cidrs).anyMatch(l -> l.matches("loopback 127\\.96\\.0\\.0/12 \\S+"));

    Kubectl.Result again = kubectl.runWithInput(objects.split("---")[0], "create", "-f", "-");
    assertThat(again.exitCode()).isNotZero();
    assertThat(again.err()).contains("ipaddresses.networking.k8s.io \"127.96.0.5\" already exists");
    Kubectl.Result invalid =
        kubectl.runWithInput(
            objects.split("---")[0].replace("127.96.0.5", "127.096.0.5"), "create", "-f", "-");
    assertThat(invalid.exitCode()).isNotZero();
    assertThat(invalid.err())
        .contains(
            "metadata.name: Invalid value: \"127.096.0.5\": ParseAddr(\"127.096.0.5\"): IPv4"
                + " field has octet with leading zero");
  }

  @Test
  void anInvalidNameIsRefusedWithTheFieldNamed() throws Exception {
    Kubectl.Result run = kubectl.run("create", "configmap", "Not_Valid");

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err()).contains("is invalid", "metadata.name: Invalid value: \"Not_Valid\"");
  }

  @Test
  void applyKeepsEveryFieldKubernetesDefinesAndStrictValidationStillRefusesAMisspelledOne()
      throws Exception {
    String sent =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: hardened
        spec:
          replicas: 1
          selector:
            matchLabels:
              app: hardened
          template:
            metadata:
              labels:
                app: hardened
            spec:
              runtimeClassName: runc
              securityContext:
                runAsUser: 1000
                runAsGroup: 3000
                runAsNonRoot: true
                fsGroup: 2000
                fsGroupChangePolicy: OnRootMismatch
                supplementalGroups:
                - 4000
                seccompProfile:
                  type: RuntimeDefault
                sysctls:
                - name: net.ipv4.ip_unprivileged_port_start
                  value: "0"
              topologySpreadConstraints:
              - maxSkew: 1
                topologyKey: kubernetes.io/hostname
                whenUnsatisfiable: ScheduleAnyway
                labelSelector:
                  matchLabels:
                    app: hardened
                matchLabelKeys:
                - pod-template-hash
              readinessGates:
              - conditionType: example.com/load-balancer-ready
              containers:
              - name: nginx
                image: nginx:1.27
                securityContext:
                  allowPrivilegeEscalation: false
                  readOnlyRootFilesystem: true
                  runAsNonRoot: true
                  capabilities:
                    drop:
                    - ALL
                    add:
                    - NET_BIND_SERVICE
                  seccompProfile:
                    type: RuntimeDefault
        """;

    Kubectl.Result apply = kubectl.runWithInput(sent, "apply", "-f", "-");

    assertThat(apply.exitCode()).as(apply.err()).isZero();
    assertThat(apply.err()).doesNotContain("unknown field");
    String yaml = kubectl.run("get", "deployment", "hardened", "-o", "yaml").expectSuccess().out();
    JsonNode stored = KubeJson.parseYaml(yaml).get(0);
    JsonNode sentJson = KubeJson.parseYaml(sent).get(0);
    assertThat(missingOrChanged(sentJson.path("spec"), stored.path("spec"), "spec"))
        .as("fields of the applied Deployment that get -o yaml does not return as sent")
        .isEmpty();

    String misspelled =
        sent.replace("name: hardened\n", "name: hardened-typo\n")
            .replace("runAsGroup: 3000", "runAsGrup: 3000");
    Kubectl.Result create =
        kubectl.runWithInput(misspelled, "create", "--validate=strict", "-f", "-");

    assertThat(create.exitCode()).isNotZero();
    assertThat(create.err())
        .contains(
            "strict decoding error",
            "unknown field \"spec.template.spec.securityContext.runAsGrup\"");
    assertThat(kubectl.run("get", "deployment", "hardened-typo").exitCode()).isNotZero();
  }

  /**
   * The paths under {@code sent} whose value {@code stored} lacks or holds differently; fields only
   * {@code stored} has (defaults) do not count.
   */
  private static List<String> missingOrChanged(JsonNode sent, JsonNode stored, String path) {
    List<String> problems = new ArrayList<>();
    if (sent.isObject()) {
      sent.fields()
          .forEachRemaining(
              e ->
                  problems.addAll(
                      missingOrChanged(
                          e.getValue(), stored.path(e.getKey()), path + "." + e.getKey())));
    } else if (sent.isArray()) {
      if (!stored.isArray() || stored.size() != sent.size()) {
        problems.add(path + ": sent " + sent + ", got " + stored);
      } else {
        for (int i = 0; i < sent.size(); i++) {
          problems.addAll(missingOrChanged(sent.get(i), stored.get(i), path + "[" + i + "]"));
        }
      }
    } else if (!sent.asText().equals(stored.asText()) || stored.isMissingNode()) {
      problems.add(path + ": sent " + sent + ", got " + stored);
    }
    return problems;
  }

  private String revision(String deployment) throws Exception {
    return kubectl
        .run(
            "get",
            "deploy",
            deployment,
            "-o",
            "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}")
        .out()
        .trim();
  }

  @Test
  void serverSideApplyAfterClientSideApplyTakesOverTheImageWithoutConflict() throws Exception {
    String manifest =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: migrated\nspec:\n"
            + "  selector:\n    matchLabels: {app: migrated}\n  template:\n"
            + "    metadata:\n      labels: {app: migrated}\n    spec:\n"
            + "      containers: [{name: web, image: IMAGE}]\n";
    Path first = Files.writeString(home.resolve("m.yaml"), manifest.replace("IMAGE", "nginx:1.25"));
    Path second =
        Files.writeString(home.resolve("m2.yaml"), manifest.replace("IMAGE", "nginx:1.27"));

    kubectl.run("apply", "-f", first.toString()).expectSuccess();
    assertThat(kubectl.run("apply", "--server-side", "-f", second.toString()).expectSuccess().out())
        .contains("deployment.apps/migrated serverside-applied");

    assertThat(
            kubectl
                .run(
                    "get",
                    "deploy",
                    "migrated",
                    "-o",
                    "jsonpath={.spec.template.spec.containers[0].image}")
                .expectSuccess()
                .out())
        .isEqualTo("nginx:1.27");
    // Client-side apply keeps working: its annotation now holds the server-side configuration.
    kubectl.run("apply", "-f", first.toString()).expectSuccess();
    assertThat(
            kubectl
                .run(
                    "get",
                    "deploy",
                    "migrated",
                    "-o",
                    "jsonpath={.spec.template.spec.containers[0].image}")
                .expectSuccess()
                .out())
        .isEqualTo("nginx:1.25");
    // managedFields reset by a patch with one empty entry, as Kubernetes allows.
    kubectl
        .run(
            "patch",
            "deploy",
            "migrated",
            "--type=json",
            "-p",
            "[{\"op\":\"replace\",\"path\":\"/metadata/managedFields\",\"value\":[{}]}]")
        .expectSuccess();
    assertThat(
            kubectl
                .run(
                    "get",
                    "deploy",
                    "migrated",
                    "--show-managed-fields",
                    "-o",
                    "jsonpath={.metadata.managedFields}")
                .expectSuccess()
                .out())
        .isEmpty();
  }

  @Test
  void serverSideApplyConflictsAsKubernetesAndForceTakesOwnership() throws Exception {
    Path owned = Files.writeString(home.resolve("ssa-a.yaml"), ssaManifest(2, "    owner: a\n"));
    Path other = Files.writeString(home.resolve("ssa-b.yaml"), ssaManifest(3, ""));

    assertThat(
            kubectl
                .run("apply", "--server-side", "--field-manager=a", "-f", owned.toString())
                .expectSuccess()
                .out())
        .contains("deployment.apps/ssa serverside-applied");
    Kubectl.Result conflict =
        kubectl.run("apply", "--server-side", "--field-manager=b", "-f", other.toString());

    assertThat(conflict.exitCode()).isEqualTo(1);
    assertThat(conflict.err())
        .startsWith(
            "error: Apply failed with 1 conflict: conflict with \"a\": .spec.replicas\n"
                + "Please review the fields above--they currently have other managers.")
        .contains("--force-conflicts", "#conflicts");

    kubectl
        .run(
            "apply",
            "--server-side",
            "--field-manager=b",
            "--force-conflicts",
            "-f",
            other.toString())
        .expectSuccess();
    String yaml =
        kubectl
            .run("get", "deploy", "ssa", "-o", "yaml", "--show-managed-fields")
            .expectSuccess()
            .out();
    assertThat(yaml).contains("manager: b", "operation: Apply", "f:replicas: {}");
    JsonNode forced = managedJson();
    assertThat(forced.path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(ssaOwners(forced, "b").path("f:spec").has("f:replicas")).isTrue();
    assertThat(ssaOwners(forced, "a").path("f:spec").has("f:replicas")).isFalse();

    // a applies again without replicas (b owns it: it stays) and without its own label (it goes).
    Files.writeString(owned, ssaManifest(-1, ""));
    kubectl
        .run("apply", "--server-side", "--field-manager=a", "-f", owned.toString())
        .expectSuccess();
    JsonNode reapplied = managedJson();
    assertThat(reapplied.path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(reapplied.path("metadata").path("labels").has("owner")).isFalse();
    assertThat(reapplied.path("metadata").path("labels").path("app").asText()).isEqualTo("ssa");

    // Client-side apply still works, and is recorded under kubectl's own manager name.
    Path client = Files.writeString(home.resolve("csa.yaml"), manifest("csa", "one", ""));
    kubectl.run("apply", "-f", client.toString()).expectSuccess();
    Files.writeString(client, manifest("csa", "two", ""));
    assertThat(kubectl.run("apply", "-f", client.toString()).expectSuccess().out())
        .contains("deployment.apps/csa configured");
    JsonNode csa =
        JSON.readTree(
            kubectl
                .run("get", "deploy", "csa", "-o", "json", "--show-managed-fields")
                .expectSuccess()
                .out());
    assertThat(csa.path("metadata").path("managedFields").toString())
        .contains("\"manager\":\"kubectl-client-side-apply\"", "\"operation\":\"Update\"");
  }

  private JsonNode managedJson() throws Exception {
    return JSON.readTree(
        kubectl
            .run("get", "deploy", "ssa", "-o", "json", "--show-managed-fields")
            .expectSuccess()
            .out());
  }

  private static JsonNode ssaOwners(JsonNode object, String manager) {
    for (JsonNode entry : object.path("metadata").path("managedFields")) {
      if (entry.path("manager").asText().equals(manager)) {
        return entry.path("fieldsV1");
      }
    }
    throw new AssertionError("no managedFields entry of " + manager + " in " + object);
  }

  /** The nginx example as deployment "ssa"; replicas below 0 leaves them out. */
  private static String ssaManifest(int replicas, String extraLabels) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: ssa
          labels:
            app: ssa
        %sspec:
        %s  selector:
            matchLabels:
              app: ssa
          template:
            metadata:
              labels:
                app: ssa
            spec:
              containers:
              - name: nginx
                image: nginx:1.14.2
                ports:
                - containerPort: 80
        """
        .formatted(extraLabels, replicas < 0 ? "" : "  replicas: " + replicas + "\n");
  }

  private static String manifest(String name, String envValue, String ports) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: %1$s
        spec:
          replicas: 1
          selector:
            matchLabels:
              app: %1$s
          template:
            metadata:
              labels:
                app: %1$s
            spec:
              containers:
              - name: nginx
                image: nginx:1.14.2
                env:
                - name: A
                  value: %2$s
        %3$s"""
        .formatted(name, envValue, ports);
  }

  /**
   * A PKCS#10 request for CN=alice, O=devs (its key was thrown away), base64 as the API holds it.
   */
  private static final String ALICE_CSR =
      "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYk1JR0JBZ0VBTUI4eERqQU1CZ05WQkFNTUJXRnNhV05sTVEwd0N3WURWUVFLREFSa1pYWnpNRmt3RXdZSApLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFcEJ2Vnc5Q2FPbXF0QlpqZ2Y1Q1RHcm1wMkYwZjdody92NjZzClFGNEkvVEo3SktOYWxzSTloNG15TlpOSm5wWkFjSnNKUnoxYXRxUDc0Vm9zSnNmOVk2QUFNQW9HQ0NxR1NNNDkKQkFNQ0Ewa0FNRVlDSVFEa1Nta1FCdGI5aCtGUXFNUit3VlpJS0h2dnBmbFM1U0NlVUxXcXBlSDBBUUloQUovSgpjNVdnbFo2Mmw3M3liNm9UcVE1Y1VpaFFuOFhWU1VVRWdPbjVvWkVPCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";

  /** A request for CN=mallory, O=system:masters (its key was thrown away). */
  private static final String MALLORY_MASTERS_CSR =
      "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIbk1JR05BZ0VBTUNzeEVEQU9CZ05WQkFNTUIyMWhiR3h2Y25reEZ6QVZCZ05WQkFvTURuTjVjM1JsYlRwdApZWE4wWlhKek1Ga3dFd1lIS29aSXpqMENBUVlJS29aSXpqMERBUWNEUWdBRUhab0RNUDA1aU1DVU5MSXlMOCtJCkkzMXRMd09VOGp1VW4rbHY4dldMM05SY2t6M2MwUjNEOUlxa3NwNUtvVCtyaEFpOENEcTd0WDhvbC9pejhONVUKOWFBQU1Bb0dDQ3FHU000OUJBTUNBMGtBTUVZQ0lRREpqRjUzSm02RW5jRDE2elVNNk9xUXF3Tk8vYnFwenVHMAptb3NZM2huMUdRSWhBSmFzYVhQdUg5ZUVZUk4vaUdQQ2U2Y3dBWmlZdEFOalF2ZnUvczVhT2JIbQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K";

  @Test
  void theKindsNeedingNoControllerAreDiscoveredCreatedAndPrintedAsKubernetesPrintsThem()
      throws Exception {
    String resources = kubectl.run("api-resources", "--no-headers").expectSuccess().out();
    assertThat(resources.lines().map(l -> String.join(" ", l.trim().split("\\s+"))))
        .contains(
            "podtemplates v1 true PodTemplate",
            "replicationcontrollers rc v1 true ReplicationController",
            "controllerrevisions apps/v1 true ControllerRevision",
            "certificatesigningrequests csr certificates.k8s.io/v1 false CertificateSigningRequest",
            "ingressclasses networking.k8s.io/v1 false IngressClass",
            "ingresses ing networking.k8s.io/v1 true Ingress",
            "networkpolicies netpol networking.k8s.io/v1 true NetworkPolicy",
            "csidrivers storage.k8s.io/v1 false CSIDriver",
            "csinodes storage.k8s.io/v1 false CSINode",
            "csistoragecapacities storage.k8s.io/v1 true CSIStorageCapacity",
            "storageclasses sc storage.k8s.io/v1 false StorageClass",
            "volumeattachments storage.k8s.io/v1 false VolumeAttachment",
            "priorityclasses pc scheduling.k8s.io/v1 false PriorityClass",
            "runtimeclasses node.k8s.io/v1 false RuntimeClass",
            "flowschemas flowcontrol.apiserver.k8s.io/v1 false FlowSchema",
            "prioritylevelconfigurations flowcontrol.apiserver.k8s.io/v1 false"
                + " PriorityLevelConfiguration");
    assertThat(resources.lines().map(l -> String.join(" ", l.trim().split("\\s+"))))
        .contains("events ev v1 true Event", "events ev events.k8s.io/v1 true Event");

    // An events.k8s.io/v1 Event is a core Event under other names: written through one API,
    // read through the other.
    String event =
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: legacy.1\n"
            + "eventTime: 2026-11-26T10:00:00.000000Z\ntype: Normal\nreason: Checked\n"
            + "action: Check\nnote: looked at it\nreportingController: example.com/checker\n"
            + "reportingInstance: checker-0\n"
            + "regarding: {apiVersion: v1, kind: ReplicationController, name: legacy}\n";
    kubectl.runWithInput(event, "apply", "-f", "-").expectSuccess();
    assertThat(
            kubectl
                .run(
                    "get",
                    "events.v1.",
                    "--field-selector",
                    "involvedObject.name=legacy,reason=Checked",
                    "-o",
                    "jsonpath={.items[*].message}")
                .expectSuccess()
                .out())
        .isEqualTo("looked at it");
    assertThat(
            kubectl
                .run("get", "events.events.k8s.io", "legacy.1", "-o", "jsonpath={.regarding.name}")
                .expectSuccess()
                .out())
        .isEqualTo("legacy");

    String rc =
        "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: legacy\nspec:\n"
            + "  template:\n    metadata:\n      labels: {app: legacy}\n    spec:\n"
            + "      containers: [{name: web, image: nginx}]\n";
    kubectl.runWithInput(rc, "apply", "-f", "-").expectSuccess();
    assertThat(kubectl.run("scale", "rc", "legacy", "--replicas=3").expectSuccess().out())
        .contains("replicationcontroller/legacy scaled");
    List<String> controllers =
        words(kubectl.run("get", "rc", "legacy", "-o", "wide").expectSuccess().out());
    assertThat(controllers.get(0))
        .isEqualTo("NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR");
    // The ReplicationController controller makes its pods at once; with no node none is Ready.
    assertThat(controllers.get(1)).matches("legacy 3 [0-3] 0 \\S+ web nginx app=legacy");

    String flow =
        "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\n"
            + "metadata:\n  name: batch\nspec:\n  type: Limited\n  limited:\n"
            + "    limitResponse:\n      type: Queue\n      queuing: {}\n---\n"
            + "apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata:\n"
            + "  name: batch\nspec:\n  priorityLevelConfiguration: {name: batch}\n"
            + "  distinguisherMethod: {type: ByUser}\n";
    kubectl.runWithInput(flow, "apply", "-f", "-").expectSuccess();
    List<String> levels =
        words(kubectl.run("get", "prioritylevelconfigurations", "batch").expectSuccess().out());
    assertThat(levels.get(0))
        .isEqualTo("NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE");
    assertThat(levels.get(1)).matches("batch Limited 30 64 8 50 \\S+");
    List<String> schemas = words(kubectl.run("get", "flowschemas", "batch").expectSuccess().out());
    assertThat(schemas.get(0))
        .isEqualTo("NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL");
    assertThat(schemas.get(1)).matches("batch batch 1000 ByUser \\S+ \\?");

    // The system priority classes exist from the start and cannot be deleted.
    await("the system priority classes")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(kubectl.run("get", "pc").expectSuccess().out())
                    .contains("system-node-critical", "system-cluster-critical"));
    List<String> priorityClasses = words(kubectl.run("get", "pc").expectSuccess().out());
    assertThat(priorityClasses.get(0)).isEqualTo("NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY");
    assertThat(priorityClasses)
        .anyMatch(
            l -> l.matches("system-node-critical 2000001000 false \\S+ PreemptLowerPriority"));
    assertThat(kubectl.run("delete", "pc", "system-node-critical").err())
        .contains("this is a system priority class and cannot be deleted");
    assertThat(
            kubectl.run("create", "priorityclass", "batch-low", "--value=10").expectSuccess().out())
        .contains("priorityclass.scheduling.k8s.io/batch-low created");

    assertThat(
            kubectl
                .run("create", "ingress", "shop", "--rule=shop.example.com/=web:80")
                .expectSuccess()
                .out())
        .contains("ingress.networking.k8s.io/shop created");
    List<String> ingresses = words(kubectl.run("get", "ing", "shop").expectSuccess().out());
    assertThat(ingresses.get(0)).isEqualTo("NAME CLASS HOSTS ADDRESS PORTS AGE");
    assertThat(ingresses.get(1)).matches("shop <none> shop.example.com 80 \\S+");

    String policy =
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: deny-all\n"
            + "spec:\n  podSelector: {}\n";
    assertThat(kubectl.runWithInput(policy, "apply", "-f", "-").expectSuccess().err())
        .contains("Warning: NetworkPolicy is stored but not enforced");
    assertThat(words(kubectl.run("get", "netpol", "deny-all").expectSuccess().out()).get(1))
        .matches("deny-all <none> \\S+");
    // A second apply is a strategic merge patch computed from the published OpenAPI.
    assertThat(
            kubectl
                .runWithInput(
                    policy.replace("podSelector: {}", "podSelector: {matchLabels: {app: api}}"),
                    "apply",
                    "-f",
                    "-")
                .expectSuccess()
                .out())
        .contains("networkpolicy.networking.k8s.io/deny-all configured");
    assertThat(words(kubectl.run("get", "netpol", "deny-all").expectSuccess().out()).get(1))
        .matches("deny-all app=api \\S+");
    assertThat(kubectl.run("explain", "priorityclass.value").expectSuccess().out())
        .contains("FIELD: value <integer>");

    String csr =
        "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n"
            + "  name: alice\nspec:\n  request: "
            + ALICE_CSR
            + "\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n";
    kubectl.runWithInput(csr, "apply", "-f", "-").expectSuccess();
    assertThat(kubectl.run("certificate", "approve", "alice").expectSuccess().out())
        .contains("certificatesigningrequest.certificates.k8s.io/alice approved");
    // The cluster CA signs an approved request of the kube-apiserver-client signer.
    await("alice's certificate")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              List<String> requests =
                  words(kubectl.run("get", "csr", "alice").expectSuccess().out());
              assertThat(requests.get(0))
                  .isEqualTo("NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION");
              assertThat(requests.get(1))
                  .matches(
                      "alice \\S+ kubernetes.io/kube-apiserver-client kubernetes-admin <none>"
                          + " Approved,Issued");
            });
    assertThat(
            kubectl
                .run("get", "csr", "alice", "-o", "jsonpath={.status.certificate}")
                .expectSuccess()
                .out())
        .isNotEmpty();
    kubectl
        .runWithInput(csr.replace("name: alice", "name: bob"), "apply", "-f", "-")
        .expectSuccess();
    assertThat(kubectl.run("certificate", "deny", "bob").expectSuccess().out())
        .contains("certificatesigningrequest.certificates.k8s.io/bob denied");
    String masters =
        csr.replace("name: alice", "name: mallory").replace(ALICE_CSR, MALLORY_MASTERS_CSR);
    assertThat(kubectl.runWithInput(masters, "apply", "-f", "-").err())
        .contains(
            "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not"
                + " allowed");
    assertThat(words(kubectl.run("get", "csr", "bob").expectSuccess().out()).get(1))
        .endsWith(" Denied");
  }

  /** The lines of kubectl's table output, each with its cells separated by one space. */
  @Test
  void aStaticVolumeAndAClaimBindAClaimThatFitsNoneWaitsAndADeletedRetainClaimReleasesIt()
      throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: PersistentVolume
            metadata:
              name: pv-e2e
            spec:
              capacity: {storage: 1Gi}
              accessModes: [ReadWriteOnce]
              storageClassName: manual
              csi: {driver: example.csi, volumeHandle: vol-e2e}
            ---
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: data-e2e
            spec:
              accessModes: [ReadWriteOnce]
              storageClassName: manual
              resources: {requests: {storage: 500Mi}}
            ---
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: huge-e2e
            spec:
              accessModes: [ReadWriteOnce]
              storageClassName: manual
              resources: {requests: {storage: 5Gi}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();

    await("the claim and the volume to be Bound")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                kubectl
                    .run("get", "pvc", "data-e2e", "-o", "jsonpath={.status.phase}")
                    .out()
                    .equals("Bound"));
    List<String> table = words(kubectl.run("get", "pv,pvc").expectSuccess().out());
    assertThat(table)
        .contains(
            "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS"
                + " VOLUMEATTRIBUTESCLASS REASON AGE",
            "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE");
    assertThat(table)
        .anySatisfy(
            l ->
                assertThat(l)
                    .matches(
                        "persistentvolume/pv-e2e 1Gi RWO Retain Bound default/data-e2e manual"
                            + " <unset> \\S+"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .matches(
                        "persistentvolumeclaim/data-e2e Bound pv-e2e 1Gi RWO manual <unset>"
                            + " \\S+"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .matches("persistentvolumeclaim/huge-e2e Pending manual <unset> \\S+"));
    assertThat(kubectl.run("get", "pvc", "data-e2e", "-o", "jsonpath={.metadata.finalizers}").out())
        .contains("kubernetes.io/pvc-protection");

    kubectl.run("delete", "pvc", "data-e2e", "huge-e2e").expectSuccess();
    await("the volume to be Released")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                kubectl
                    .run("get", "pv", "pv-e2e", "-o", "jsonpath={.status.phase}")
                    .out()
                    .equals("Released"));
    assertThat(kubectl.run("get", "pvc", "data-e2e").exitCode()).isNotZero();
    kubectl.run("delete", "pv", "pv-e2e").expectSuccess();
    assertThat(kubectl.run("get", "pv", "pv-e2e").exitCode()).isNotZero();
  }

  @Test
  void aVolumeWithTwoSourcesOrAClaimWithoutAccessModesIsRefused() throws Exception {
    Kubectl.Result volume =
        kubectl.runWithInput(
            """
            apiVersion: v1
            kind: PersistentVolume
            metadata:
              name: pv-two
            spec:
              capacity: {storage: 1Gi}
              accessModes: [ReadWriteOnce]
              csi: {driver: example.csi, volumeHandle: v}
              nfs: {server: nfs.example, path: /exports}
            """,
            "apply",
            "-f",
            "-");
    assertThat(volume.exitCode()).isNotZero();
    assertThat(volume.err())
        .contains("spec.csi: Forbidden: may not specify more than 1 volume type");
    Kubectl.Result claim =
        kubectl.runWithInput(
            """
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: no-modes
            spec:
              resources: {requests: {storage: 1Gi}}
            """,
            "apply",
            "-f",
            "-");
    assertThat(claim.exitCode()).isNotZero();
    assertThat(claim.err())
        .contains("spec.accessModes: Required value: at least 1 access mode is required");
  }

  private static List<String> words(String table) {
    return table.lines().map(l -> String.join(" ", l.trim().split("\\s+"))).toList();
  }

  /**
   * A CustomResourceDefinition applied with kubectl on the same cluster: Established within a
   * second, its kind served with its printer columns, schema (a pattern, a default, pruning of
   * unknown fields, 422 with kube-apiserver's message), status and scale subresources ({@code
   * kubectl scale}), and deleting the definition deleting its objects.
   */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  class CustomResources {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String CRD =
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: crontabs.stable.example.com
        spec:
          group: stable.example.com
          scope: Namespaced
          names:
            plural: crontabs
            singular: crontab
            kind: CronTab
            shortNames: [ct]
            categories: [all]
          versions:
          - name: v1
            served: true
            storage: true
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  spec:
                    type: object
                    description: The schedule and image of a cron table.
                    x-kubernetes-validations:
                    - rule: "!has(self.image) || !self.image.startsWith('forbidden')"
                      message: image must not be a forbidden one
                      fieldPath: .image
                    properties:
                      cronSpec:
                        type: string
                        description: When the table runs, in cron's syntax.
                        pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
                      image:
                        type: string
                      replicas:
                        type: integer
                        minimum: 0
                        maximum: 10
                        default: 1
                      selector:
                        type: string
                  status:
                    type: object
                    properties:
                      replicas:
                        type: integer
            subresources:
              status: {}
              scale:
                specReplicasPath: .spec.replicas
                statusReplicasPath: .status.replicas
                labelSelectorPath: .spec.selector
            additionalPrinterColumns:
            - name: Spec
              type: string
              jsonPath: .spec.cronSpec
            - name: Replicas
              type: integer
              jsonPath: .spec.replicas
            - name: Image
              type: string
              jsonPath: .spec.image
              priority: 1
            - name: Age
              type: date
              jsonPath: .metadata.creationTimestamp
        """;

    static final String CRON_TAB =
        """
        apiVersion: stable.example.com/v1
        kind: CronTab
        metadata:
          name: my-cron
        spec:
          cronSpec: '* * * * */5'
          image: my-cron-image
        """;

    @Test
    @Order(1)
    void aDefinitionIsEstablishedWithinASecondAndItsKindServedWithItsColumns() throws Exception {
      kubectl.runWithInput(CRD, "apply", "-f", "-").expectSuccess();
      kubectl
          .run(
              "wait",
              "--for=condition=Established",
              "crd/crontabs.stable.example.com",
              "--timeout=10s")
          .expectSuccess();
      JsonNode crd =
          JSON.readTree(
              kubectl
                  .run("get", "crd", "crontabs.stable.example.com", "-o", "json")
                  .expectSuccess()
                  .out());
      Instant created = Instant.parse(crd.path("metadata").path("creationTimestamp").asText());
      for (String type : List.of("NamesAccepted", "Established")) {
        JsonNode condition = null;
        for (JsonNode c : crd.path("status").path("conditions")) {
          condition = c.path("type").asText().equals(type) ? c : condition;
        }
        assertThat(condition).as(type).isNotNull();
        assertThat(condition.path("status").asText()).isEqualTo("True");
        // Both times are in whole seconds, as Kubernetes writes them. On a quiet machine the
        // conditions carry the creation's own second; the bound leaves room for a loaded one.
        assertThat(
                Duration.between(
                    created, Instant.parse(condition.path("lastTransitionTime").asText())))
            .as("%s set soon after the definition's creation", type)
            .isLessThanOrEqualTo(Duration.ofSeconds(5));
      }
      assertThat(crd.path("metadata").path("finalizers").toString())
          .contains("customresourcecleanup.apiextensions.k8s.io");
      assertThat(kubectl.run("get", "crd").expectSuccess().out())
          .contains("NAME", "CREATED AT", "crontabs.stable.example.com");
      assertThat(
              kubectl.run("api-resources", "--api-group=stable.example.com").expectSuccess().out())
          .contains("crontabs", "ct", "stable.example.com/v1", "true", "CronTab");

      kubectl.runWithInput(CRON_TAB, "apply", "-f", "-").expectSuccess();
      String table = kubectl.run("get", "crontabs").expectSuccess().out();
      assertThat(table.lines().findFirst().orElseThrow().split("\\s+"))
          .containsExactly("NAME", "SPEC", "REPLICAS", "AGE");
      assertThat(table).contains("my-cron", "* * * * */5", " 1 ");
      assertThat(kubectl.run("get", "ct", "-o", "wide").expectSuccess().out())
          .contains("IMAGE", "my-cron-image");
      assertThat(kubectl.run("get", "all").expectSuccess().out())
          .contains("crontab.stable.example.com/my-cron");
    }

    @Test
    @Order(2)
    void aWriteThatBreaksTheSchemaIsRefusedWith422AndUnknownFieldsArePruned() throws Exception {
      Kubectl.Result refused =
          kubectl.runWithInput(CRON_TAB.replace("'* * * * */5'", "'bad'"), "apply", "-f", "-");
      assertThat(refused.exitCode()).isNotZero();
      assertThat(refused.err())
          .contains(
              "The CronTab \"my-cron\" is invalid: spec.cronSpec: Invalid value: \"bad\":"
                  + " spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)"
                  + "(/\\d+)?){4}$'");
      Kubectl.Result tooMany =
          kubectl.run(
              "patch", "ct", "my-cron", "--type=merge", "-p", "{\"spec\":{\"replicas\":11}}");
      assertThat(tooMany.err())
          .contains(
              "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or"
                  + " equal to 10");
      Kubectl.Result ruled =
          kubectl.run(
              "patch",
              "ct",
              "my-cron",
              "--type=merge",
              "-p",
              "{\"spec\":{\"image\":\"forbidden-1\"}}");
      assertThat(ruled.err())
          .contains("spec.image: Invalid value: \"object\": image must not be a forbidden one");
      Kubectl.Result strategic =
          kubectl.run(
              "patch", "ct", "my-cron", "--type=strategic", "-p", "{\"spec\":{\"replicas\":2}}");
      assertThat(strategic.err())
          .contains(
              "accepted media types include: application/json-patch+json,"
                  + " application/merge-patch+json, application/apply-patch+yaml");

      String unknown = CRON_TAB.replace("my-cron", "other").replace("image:", "bogus: 1\n  image:");
      Kubectl.Result strict = kubectl.runWithInput(unknown, "create", "-f", "-");
      assertThat(strict.err()).contains("unknown field \"spec.bogus\"");
      Kubectl.Result warned = kubectl.runWithInput(unknown, "create", "--validate=warn", "-f", "-");
      warned.expectSuccess();
      assertThat(warned.err()).contains("unknown field \"spec.bogus\"");
      JsonNode other =
          JSON.readTree(kubectl.run("get", "ct", "other", "-o", "json").expectSuccess().out());
      assertThat(other.path("spec").has("bogus")).isFalse();
      assertThat(other.path("spec").path("replicas").asInt()).as("defaulted").isEqualTo(1);
      assertThat(other.path("metadata").path("generation").asInt()).isEqualTo(1);
    }

    @Test
    @Order(3)
    void kubectlScaleWritesTheReplicasPathAndStatusIsItsOwnSubresource() throws Exception {
      kubectl.run("scale", "crontab", "my-cron", "--replicas=5").expectSuccess();
      JsonNode scaled =
          JSON.readTree(kubectl.run("get", "ct", "my-cron", "-o", "json").expectSuccess().out());
      assertThat(scaled.path("spec").path("replicas").asInt()).isEqualTo(5);
      assertThat(scaled.path("metadata").path("generation").asInt()).isEqualTo(2);

      kubectl
          .run(
              "patch",
              "ct",
              "my-cron",
              "--subresource=status",
              "--type=merge",
              "-p",
              "{\"status\":{\"replicas\":5}}")
          .expectSuccess();
      kubectl
          .run("patch", "ct", "my-cron", "--type=merge", "-p", "{\"status\":{\"replicas\":9}}")
          .expectSuccess();
      JsonNode after =
          JSON.readTree(kubectl.run("get", "ct", "my-cron", "-o", "json").expectSuccess().out());
      assertThat(after.path("status").path("replicas").asInt())
          .as("the main resource does not write status")
          .isEqualTo(5);
      assertThat(after.path("metadata").path("generation").asInt()).isEqualTo(2);
      JsonNode scale =
          JSON.readTree(
              kubectl
                  .run(
                      "get",
                      "--raw",
                      "/apis/stable.example.com/v1/namespaces/default/crontabs/my-cron/scale")
                  .expectSuccess()
                  .out());
      assertThat(scale.path("status").path("replicas").asInt()).isEqualTo(5);
    }

    @Test
    @Order(4)
    void deletingTheDefinitionDeletesItsObjects() throws Exception {
      kubectl.run("delete", "crd", "crontabs.stable.example.com", "--timeout=30s").expectSuccess();
      assertThat(kubectl.run("get", "crd", "crontabs.stable.example.com").err())
          .contains("NotFound");
      kubectl.runWithInput(CRD, "apply", "-f", "-").expectSuccess();
      kubectl
          .run(
              "wait",
              "--for=condition=Established",
              "crd/crontabs.stable.example.com",
              "--timeout=10s")
          .expectSuccess();
      await("the kind served again, empty")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(kubectl.run("get", "crontabs", "-A").err())
                      .contains("No resources found"));
    }

    @Test
    @Order(5)
    void kubectlExplainShowsTheSchemasDescriptionsAndTheDocumentFollowsTheDefinition()
        throws Exception {
      String explained = kubectl.run("explain", "crontabs.spec").expectSuccess().out();
      assertThat(explained)
          .contains(
              "GROUP:      stable.example.com",
              "KIND:       CronTab",
              "VERSION:    v1",
              "The schedule and image of a cron table.",
              "cronSpec\t<string>",
              "When the table runs, in cron's syntax.");
      kubectl
          .runWithInput(
              CRD.replace("When the table runs, in cron's syntax.", "The table's schedule."),
              "apply",
              "-f",
              "-")
          .expectSuccess();
      await("the changed description published")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(kubectl.run("explain", "crontabs.spec.cronSpec").expectSuccess().out())
                      .contains("The table's schedule."));
    }

    static final String WIDGETS =
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: widgets.conversion.example.com
        spec:
          group: conversion.example.com
          scope: Namespaced
          names: {plural: widgets, singular: widget, kind: Widget}
          conversion:
            strategy: Webhook
            webhook:
              conversionReviewVersions: [v1]
              clientConfig: {url: "URL", caBundle: "CA"}
          versions:
          - name: v1
            served: true
            storage: true
            deprecated: true
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      cronSpec: {type: string}
          - name: v2
            served: true
            storage: false
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      schedule: {type: string}
        """;

    /**
     * Two versions of a kind, v1 stored and deprecated, v2 converted by a webhook this test serves
     * over HTTPS (v1's {@code spec.cronSpec} is v2's {@code spec.schedule}): an object written as
     * v2 is stored as v1 and read back as either, and v1 answers with its deprecation warning.
     */
    @Test
    @Order(6)
    void twoVersionsWithAConversionWebhookServeTheSameObject() throws Exception {
      Path dir = Files.createTempDirectory("conversion-webhook");
      try (ConversionServer webhook = new ConversionServer(dir)) {
        kubectl
            .runWithInput(
                WIDGETS.replace("URL", webhook.url()).replace("CA", webhook.caBundle()),
                "apply",
                "-f",
                "-")
            .expectSuccess();
        kubectl
            .run(
                "wait",
                "--for=condition=Established",
                "crd/widgets.conversion.example.com",
                "--timeout=10s")
            .expectSuccess();
        await("the kind served")
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(
                () ->
                    kubectl
                        .runWithInput(
                            """
                            apiVersion: conversion.example.com/v2
                            kind: Widget
                            metadata: {name: both}
                            spec: {schedule: "*/5 * * * *"}
                            """,
                            "apply",
                            "-f",
                            "-")
                        .expectSuccess());
        Kubectl.Result asV1 =
            kubectl
                .run("get", "widgets.v1.conversion.example.com", "both", "-o", "json")
                .expectSuccess();
        JsonNode v1 = JSON.readTree(asV1.out());
        assertThat(v1.path("apiVersion").asText()).isEqualTo("conversion.example.com/v1");
        assertThat(v1.path("spec").path("cronSpec").asText()).isEqualTo("*/5 * * * *");
        assertThat(asV1.err())
            .contains(
                "Warning: conversion.example.com/v1 Widget is deprecated; use"
                    + " conversion.example.com/v2 Widget");
        JsonNode v2 =
            JSON.readTree(
                kubectl
                    .run("get", "widgets.v2.conversion.example.com", "both", "-o", "json")
                    .expectSuccess()
                    .out());
        assertThat(v2.path("apiVersion").asText()).isEqualTo("conversion.example.com/v2");
        assertThat(v2.path("spec").path("schedule").asText()).isEqualTo("*/5 * * * *");
        assertThat(v2.path("metadata").path("uid").asText())
            .isEqualTo(v1.path("metadata").path("uid").asText());
        assertThat(webhook.desired())
            .contains("conversion.example.com/v1", "conversion.example.com/v2");
        JsonNode crd =
            JSON.readTree(
                kubectl
                    .run("get", "crd", "widgets.conversion.example.com", "-o", "json")
                    .expectSuccess()
                    .out());
        assertThat(crd.path("status").path("storedVersions").toString()).isEqualTo("[\"v1\"]");
        kubectl
            .run("delete", "crd", "widgets.conversion.example.com", "--timeout=30s")
            .expectSuccess();
      } finally {
        try (var files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
      }
    }

    static final String SHAPES =
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: gadgets.shapes.example.com
        spec:
          group: shapes.example.com
          scope: Namespaced
          names: {plural: gadgets, kind: Gadget}
          versions:
          - name: v1
            served: true
            storage: true
            selectableFields:
            - jsonPath: .spec.color
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      color: {type: string}
                      size: {type: integer}
                      ports:
                        type: array
                        x-kubernetes-list-type: map
                        x-kubernetes-list-map-keys: [name]
                        items:
                          type: object
                          required: [name]
                          properties:
                            name: {type: string}
                            port: {type: integer}
        """;

    /**
     * A kind with a {@code map} list, a selectable field and, later, a new default: two field
     * managers apply different ports and keep each other's, changing the other's port is a conflict
     * on that port's field; {@code --field-selector spec.color=blue} lists the blue one only; a
     * default added to the definition shows on the objects stored before it.
     */
    @Test
    @Order(7)
    void listMapsMergeByKeySelectableFieldsSelectAndANewDefaultShowsOnOldObjects()
        throws Exception {
      kubectl.runWithInput(SHAPES, "apply", "-f", "-").expectSuccess();
      kubectl
          .run(
              "wait",
              "--for=condition=Established",
              "crd/gadgets.shapes.example.com",
              "--timeout=10s")
          .expectSuccess();
      String gadget =
          """
          apiVersion: shapes.example.com/v1
          kind: Gadget
          metadata: {name: %s}
          spec: {color: %s, ports: [{name: %s, port: %d}]}
          """;
      kubectl
          .runWithInput(
              gadget.formatted("blue-one", "blue", "http", 80),
              "apply",
              "--server-side",
              "--field-manager=alice",
              "-f",
              "-")
          .expectSuccess();
      kubectl
          .runWithInput(
              "apiVersion: shapes.example.com/v1\nkind: Gadget\nmetadata: {name: blue-one}\n"
                  + "spec: {ports: [{name: metrics, port: 9090}]}\n",
              "apply",
              "--server-side",
              "--field-manager=bob",
              "-f",
              "-")
          .expectSuccess();
      JsonNode both =
          JSON.readTree(
              kubectl.run("get", "gadget", "blue-one", "-o", "json").expectSuccess().out());
      assertThat(both.path("spec").path("ports").toString())
          .isEqualTo("[{\"name\":\"http\",\"port\":80},{\"name\":\"metrics\",\"port\":9090}]");
      Kubectl.Result conflict =
          kubectl.runWithInput(
              "apiVersion: shapes.example.com/v1\nkind: Gadget\nmetadata: {name: blue-one}\n"
                  + "spec: {ports: [{name: http, port: 8080}]}\n",
              "apply",
              "--server-side",
              "--field-manager=bob",
              "-f",
              "-");
      assertThat(conflict.exitCode()).isNotZero();
      assertThat(conflict.err())
          .contains("conflict with \"alice\"", ".spec.ports[name=\"http\"].port");

      kubectl
          .runWithInput(gadget.formatted("red-one", "red", "http", 81), "apply", "-f", "-")
          .expectSuccess();
      String blue =
          kubectl
              .run("get", "gadgets", "--field-selector", "spec.color=blue")
              .expectSuccess()
              .out();
      assertThat(blue).contains("blue-one").doesNotContain("red-one");
      assertThat(kubectl.run("get", "gadgets", "--field-selector", "spec.shape=round").err())
          .contains(
              "\"spec.shape\" is not a known field selector: only \"metadata.name\","
                  + " \"metadata.namespace\"");

      kubectl
          .runWithInput(
              SHAPES.replace("size: {type: integer}", "size: {type: integer, default: 3}"),
              "apply",
              "-f",
              "-")
          .expectSuccess();
      await("the stored object read with the new default")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(
                          kubectl
                              .run("get", "gadget", "red-one", "-o", "jsonpath={.spec.size}")
                              .expectSuccess()
                              .out())
                      .isEqualTo("3"));
      kubectl.run("delete", "crd", "gadgets.shapes.example.com", "--timeout=30s").expectSuccess();
    }

    /**
     * A HorizontalPodAutoscaler whose target is a CronTab, through the scale subresource the
     * definition declares: the autoscaler reads the Scale (replicas at {@code spec.replicas}, the
     * selector at {@code spec.selector}), measures the two pods that selector selects, on a
     * simulated node, each using twice its CPU request against a 50% target, and raises the
     * CronTab's {@code spec.replicas} to its maximum through {@code /scale}.
     */
    @Test
    @Order(8)
    void anAutoscalerScalesACustomResourceThroughItsScaleSubresource() throws Exception {
      Launcher node = cluster.startSimulatedNode("autoscaling-node", home.resolve("autoscaling"));
      try {
        kubectl
            .runWithInput(
                """
                apiVersion: v1
                kind: Namespace
                metadata: {name: autoscaled-crons}
                ---
                apiVersion: stable.example.com/v1
                kind: CronTab
                metadata: {name: busy-cron, namespace: autoscaled-crons}
                spec: {cronSpec: '* * * * */5', replicas: 2, selector: app=cron-worker}
                """
                    + workers(2)
                    + """
                    ---
                    apiVersion: autoscaling/v2
                    kind: HorizontalPodAutoscaler
                    metadata: {name: cron-scaler, namespace: autoscaled-crons}
                    spec:
                      scaleTargetRef: {apiVersion: stable.example.com/v1, kind: CronTab, name: busy-cron}
                      minReplicas: 1
                      maxReplicas: 4
                      metrics:
                      - type: Resource
                        resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
                    """,
                "apply",
                "-f",
                "-")
            .expectSuccess();
        // The operator's part: it reports the pods it runs in the status subresource.
        kubectl
            .run(
                "patch",
                "ct",
                "busy-cron",
                "-n",
                "autoscaled-crons",
                "--subresource=status",
                "--type=merge",
                "-p",
                "{\"status\":{\"replicas\":2}}")
            .expectSuccess();

        // 200m used of 100m requested is 200% against 50%: up to maxReplicas.
        await("the autoscaler to raise the CronTab's spec.replicas to 4")
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofSeconds(1))
            .until(
                () ->
                    kubectl
                        .run(
                            "get",
                            "ct",
                            "busy-cron",
                            "-n",
                            "autoscaled-crons",
                            "-o",
                            "jsonpath={.spec.replicas}")
                        .out(),
                "4"::equals);
        // The operator has not caught up (status.replicas is still 2): the autoscaler counts the
        // replicas the Scale asks for, and, at maxReplicas, scales no more.
        await("the autoscaler's status to show the CronTab at 4 replicas")
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(
                () -> {
                  JsonNode status =
                      JSON.readTree(
                              kubectl
                                  .run(
                                      "get",
                                      "hpa",
                                      "cron-scaler",
                                      "-n",
                                      "autoscaled-crons",
                                      "-o",
                                      "json")
                                  .expectSuccess()
                                  .out())
                          .path("status");
                  assertThat(status.path("currentReplicas").asInt()).isEqualTo(4);
                  assertThat(status.path("desiredReplicas").asInt()).isEqualTo(4);
                  assertThat(
                          status
                              .at("/currentMetrics/0/resource/current/averageUtilization")
                              .asInt())
                      .isEqualTo(200);
                  assertThat(condition(status, "AbleToScale").path("status").asText())
                      .isEqualTo("True");
                  assertThat(condition(status, "ScalingActive").path("reason").asText())
                      .isEqualTo("ValidMetricFound");
                });
        assertThat(
                kubectl
                    .run("get", "hpa", "cron-scaler", "-n", "autoscaled-crons", "--no-headers")
                    .expectSuccess()
                    .out())
            .matches("(?s)cron-scaler\\s+CronTab/busy-cron\\s+cpu: 200%/50%\\s+1\\s+4\\s+4\\s.*");
        assertThat(
                kubectl
                    .run("describe", "hpa", "cron-scaler", "-n", "autoscaled-crons")
                    .expectSuccess()
                    .out())
            .containsPattern(
                "Normal\\s+SuccessfulRescale\\s+.*New size: 4; reason: cpu resource utilization"
                    + " \\(percentage of request\\) above target");
        JsonNode scale =
            JSON.readTree(
                kubectl
                    .run(
                        "get",
                        "--raw",
                        "/apis/stable.example.com/v1/namespaces/autoscaled-crons/crontabs/busy-cron"
                            + "/scale")
                    .expectSuccess()
                    .out());
        assertThat(scale.at("/spec/replicas").asInt()).isEqualTo(4);
        assertThat(scale.at("/status/replicas").asInt()).isEqualTo(2);
        assertThat(scale.at("/status/selector").asText()).isEqualTo("app=cron-worker");
      } finally {
        node.close();
        kubectl.run("delete", "node", "autoscaling-node");
        kubectl.run("delete", "namespace", "autoscaled-crons", "--wait=false");
      }
    }

    /** {@code n} pods the CronTab's selector selects, each using 200m of CPU of 100m requested. */
    private static String workers(int n) {
      StringBuilder pods = new StringBuilder();
      for (int i = 0; i < n; i++) {
        pods.append(
            """
            ---
            apiVersion: v1
            kind: Pod
            metadata:
              name: cron-worker-%d
              namespace: autoscaled-crons
              labels: {app: cron-worker}
              annotations: {streamplane.io/simulated-usage: cpu=200m}
            spec:
              terminationGracePeriodSeconds: 1
              containers:
              - name: work
                image: busybox
                resources: {requests: {cpu: 100m}}
            """
                .formatted(i));
      }
      return pods.toString();
    }

    private static JsonNode condition(JsonNode status, String type) {
      for (JsonNode c : status.path("conditions")) {
        if (c.path("type").asText().equals(type)) {
          return c;
        }
      }
      return MissingNode.getInstance();
    }
  }

  /**
   * A conversion webhook for {@code Widget}: the JDK's HttpsServer on 127.0.0.1 with a certificate
   * keytool makes, answering each ConversionReview by renaming {@code spec.cronSpec} (v1) to {@code
   * spec.schedule} (v2) or back; {@link #caBundle} is its certificate as a definition's caBundle.
   */
  static final class ConversionServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpsServer server;
    private final String caBundle;
    private final Set<String> desired = ConcurrentHashMap.newKeySet();

    ConversionServer(Path dir) throws Exception {
      Path keystore = dir.resolve("webhook.p12");
      keytool(
          "-genkeypair",
          "-alias",
          "webhook",
          "-keyalg",
          "EC",
          "-groupname",
          "secp256r1",
          "-dname",
          "CN=webhook",
          "-ext",
          "SAN=ip:127.0.0.1",
          "-validity",
          "2",
          "-storetype",
          "PKCS12",
          "-keystore",
          keystore.toString(),
          "-storepass",
          "changeit");
      Path pem = dir.resolve("webhook.pem");
      keytool(
          "-exportcert",
          "-rfc",
          "-alias",
          "webhook",
          "-keystore",
          keystore.toString(),
          "-storepass",
          "changeit",
          "-file",
          pem.toString());
      caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(pem));
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(keystore)) {
        keys.load(in, "changeit".toCharArray());
      }
      KeyManagerFactory keyManagers =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, "changeit".toCharArray());
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keyManagers.getKeyManagers(), null, null);
      server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.setHttpsConfigurator(new HttpsConfigurator(tls));
      server.createContext(
          "/convert",
          exchange -> {
            JsonNode request = JSON.readTree(exchange.getRequestBody()).path("request");
            String version = request.path("desiredAPIVersion").asText();
            desired.add(version);
            ObjectNode response = JSON.createObjectNode();
            response.put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "ConversionReview");
            ObjectNode answer = response.putObject("response");
            answer.put("uid", request.path("uid").asText());
            ArrayNode converted = answer.putArray("convertedObjects");
            for (JsonNode object : request.path("objects")) {
              ObjectNode copy = object.deepCopy();
              ObjectNode spec = copy.with("spec");
              if (version.endsWith("/v2") && spec.has("cronSpec")) {
                spec.set("schedule", spec.remove("cronSpec"));
              } else if (version.endsWith("/v1") && spec.has("schedule")) {
                spec.set("cronSpec", spec.remove("schedule"));
              }
              converted.add(copy.put("apiVersion", version));
            }
            answer.putObject("result").put("status", "Success");
            byte[] body = JSON.writeValueAsBytes(response);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
    }

    private static void keytool(String... args) throws Exception {
      List<String> command = new ArrayList<>(List.of("keytool"));
      command.addAll(List.of(args));
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (process.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + ": " + output);
      }
    }

    String url() {
      return "https://127.0.0.1:" + server.getAddress().getPort() + "/convert";
    }

    String caBundle() {
      return caBundle;
    }

    /** The versions the webhook was asked for. */
    Set<String> desired() {
      return desired;
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
