package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * fabric8's Kubernetes client (7.x, over the JDK's HTTP client), unmodified, against {@code
 * ./streamplane up} with one process node, configured by nothing but the kubeconfig {@code up}
 * writes (the {@code kubeconfig} property, fabric8's {@code KUBECONFIG}): lists, a shared informer,
 * {@code waitUntilReady}, a blocking delete, port-forward, exec with stdin, files copied in and out
 * of a container, and an operator written with java-operator-sdk 5 reconciling its own custom
 * resources. Each test works in a namespace of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.ONE_PROCESS_NODE)
class Fabric8E2E {

  private static final Duration WAIT = Duration.ofSeconds(120);

  private Path home;
  private LocalCluster cluster;
  private KubernetesClient client;

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    home = Files.createTempDirectory("fabric8-e2e");
    cluster = shared;
    System.setProperty("kubeconfig", cluster.home.resolve("kubeconfig").toString());
    client = new KubernetesClientBuilder().build();
    await("the node registered")
        .atMost(WAIT)
        .until(() -> client.nodes().withName("node-0").get() != null);
  }

  @AfterAll
  void cleanUp() throws Exception {
    if (client != null) {
      client.close();
    }
    System.clearProperty("kubeconfig");
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private String namespace(String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
  }

  private static Pod nginx(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("app", name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("web")
        .withImage("nginx")
        .endContainer()
        .endSpec()
        .build();
  }

  private Pod runningNginx(String ns, String name) {
    client.pods().inNamespace(ns).resource(nginx(name)).create();
    return client
        .pods()
        .inNamespace(ns)
        .withName(name)
        .waitUntilReady(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void aSharedInformerSeesAPodCreatedModifiedAndDeleted() throws Exception {
    String ns = namespace("informed");
    BlockingQueue<String> seen = new LinkedBlockingQueue<>();
    SharedIndexInformer<Pod> informer =
        client
            .pods()
            .inNamespace(ns)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    seen.add("ADDED " + pod.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(Pod before, Pod after) {
                    if (!before.getMetadata().getLabels().equals(after.getMetadata().getLabels())) {
                      seen.add("LABELLED " + after.getMetadata().getLabels().get("tier"));
                    }
                  }

                  @Override
                  public void onDelete(Pod pod, boolean finalStateUnknown) {
                    seen.add("DELETED " + pod.getMetadata().getName());
                  }
                });
    try {
      assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
      client.pods().inNamespace(ns).resource(nginx("watched")).create();
      assertThat(seen.poll(60, TimeUnit.SECONDS)).isEqualTo("ADDED watched");

      // A merge patch, not edit(): edit() sends the version it read, and the scheduler and the node
      // change a new pod meanwhile (409 Conflict, as kube-apiserver answers it).
      client
          .pods()
          .inNamespace(ns)
          .withName("watched")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"labels\":{\"tier\":\"front\"}}}");
      await("the label")
          .atMost(Duration.ofSeconds(60))
          .until(() -> seen.contains("LABELLED front"));

      client.pods().inNamespace(ns).withName("watched").withGracePeriod(0).delete();
      await("the delete")
          .atMost(Duration.ofSeconds(60))
          .until(() -> seen.contains("DELETED watched"));
      assertThat(informer.getStore().list()).isEmpty();
    } finally {
      informer.close();
    }
  }

  @Test
  void waitUntilReadyWaitsForADeploymentAndABlockingDeleteForThePodToGo() throws Exception {
    String ns = namespace("ready");
    Deployment web =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName("web")
            .endMetadata()
            .withNewSpec()
            .withReplicas(1)
            .withNewSelector()
            .addToMatchLabels("app", "web")
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .addToLabels("app", "web")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("web")
            .withImage("nginx")
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();
    client.apps().deployments().inNamespace(ns).resource(web).create();

    Deployment ready =
        client
            .apps()
            .deployments()
            .inNamespace(ns)
            .withName("web")
            .waitUntilReady(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(ready.getStatus().getReadyReplicas()).isEqualTo(1);

    String pod = client.pods().inNamespace(ns).list().getItems().get(0).getMetadata().getName();
    client.apps().deployments().inNamespace(ns).withName("web").delete();
    client
        .pods()
        .inNamespace(ns)
        .withName(pod)
        .withTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
        .delete();
    assertThat(client.pods().inNamespace(ns).withName(pod).get()).isNull();
  }

  @Test
  void portForwardReadsNginxsPage() throws Exception {
    String ns = namespace("forwarded");
    runningNginx(ns, "web");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    try (LocalPortForward forward = client.pods().inNamespace(ns).withName("web").portForward(80)) {
      for (int i = 0; i < 2; i++) {
        HttpResponse<String> page =
            http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + forward.getLocalPort() + "/"))
                    .timeout(Duration.ofSeconds(20))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("Welcome to nginx!");
      }
      assertThat(forward.errorOccurred()).isFalse();
    }
  }

  @Test
  void execReadsWhatIsWrittenToItsStdinAndFilesGoInAndOut() throws Exception {
    String ns = namespace("exec");
    runningNginx(ns, "web");
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    try (ExecWatch exec =
        client
            .pods()
            .inNamespace(ns)
            .withName("web")
            .redirectingInput()
            .writingOutput(out)
            .exec("sh", "-c", "read x; echo got $x")) {
      exec.getInput().write("hello\n".getBytes(StandardCharsets.UTF_8));
      exec.getInput().flush();
      assertThat(exec.exitCode().get(60, TimeUnit.SECONDS)).isZero();
    }
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("got hello\n");

    Path local = home.resolve("greeting.txt");
    Files.writeString(local, "hello from fabric8\n");
    assertThat(
            client.pods().inNamespace(ns).withName("web").file("/tmp/greeting.txt").upload(local))
        .isTrue();
    try (InputStream read =
        client.pods().inNamespace(ns).withName("web").file("/tmp/greeting.txt").read()) {
      assertThat(new String(read.readAllBytes(), StandardCharsets.UTF_8))
          .isEqualTo("hello from fabric8\n");
    }
    assertThat(List.of(client.pods().inNamespace(ns).withName("web").get().getMetadata().getName()))
        .containsExactly("web");
  }

  // ------------------------------------------------------------ an operator

  /** A custom resource of the operator below: it wants a ConfigMap holding its message. */
  @Group("e2e.streamplane.io")
  @Version("v1")
  public static class Greeting extends CustomResource<GreetingSpec, GreetingStatus>
      implements Namespaced {}

  public static class GreetingSpec {
    private String message;

    public String getMessage() {
      return message;
    }

    public void setMessage(String message) {
      this.message = message;
    }
  }

  public static class GreetingStatus {
    private Long observedGeneration;
    private String configMap;

    public Long getObservedGeneration() {
      return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
      this.observedGeneration = observedGeneration;
    }

    public String getConfigMap() {
      return configMap;
    }

    public void setConfigMap(String configMap) {
      this.configMap = configMap;
    }
  }

  /**
   * A java-operator-sdk reconciler as its users write one: each Greeting gets a ConfigMap of its
   * name it owns (server-side applied), its status the generation it saw (a status patch, by
   * server-side apply as java-operator-sdk 5 sends it), and a finalizer whose cleanup is recorded.
   */
  @ControllerConfiguration(name = "greetings")
  public static class GreetingReconciler implements Reconciler<Greeting>, Cleaner<Greeting> {
    final BlockingQueue<String> cleaned = new LinkedBlockingQueue<>();

    @Override
    public UpdateControl<Greeting> reconcile(Greeting greeting, Context<Greeting> context) {
      ObjectMeta meta = greeting.getMetadata();
      ConfigMap wanted =
          new ConfigMapBuilder()
              .withNewMetadata()
              .withName(meta.getName())
              .withNamespace(meta.getNamespace())
              .addNewOwnerReference()
              .withApiVersion(greeting.getApiVersion())
              .withKind(greeting.getKind())
              .withName(meta.getName())
              .withUid(meta.getUid())
              .withController(true)
              .withBlockOwnerDeletion(true)
              .endOwnerReference()
              .endMetadata()
              .addToData("message", greeting.getSpec().getMessage())
              .build();
      context.getClient().configMaps().resource(wanted).serverSideApply();
      GreetingStatus status = new GreetingStatus();
      status.setObservedGeneration(meta.getGeneration());
      status.setConfigMap(meta.getName());
      greeting.setStatus(status);
      return UpdateControl.patchStatus(greeting);
    }

    @Override
    public DeleteControl cleanup(Greeting greeting, Context<Greeting> context) {
      cleaned.add(greeting.getMetadata().getName());
      return DeleteControl.defaultDelete();
    }
  }

  private static final String GREETINGS_CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: greetings.e2e.streamplane.io
      spec:
        group: e2e.streamplane.io
        scope: Namespaced
        names: {plural: greetings, singular: greeting, kind: Greeting}
        versions:
        - name: v1
          served: true
          storage: true
          subresources: {status: {}}
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    message: {type: string}
                status:
                  type: object
                  properties:
                    observedGeneration: {type: integer, format: int64}
                    configMap: {type: string}
      """;

  @Test
  void aJavaOperatorSdkOperatorReconcilesItsResourcesAndAnInformerSeesItsChanges()
      throws Exception {
    client.resource(GREETINGS_CRD).serverSideApply();
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName("greetings.e2e.streamplane.io")
        .waitUntilCondition(
            crd ->
                crd != null
                    && crd.getStatus() != null
                    && crd.getStatus().getConditions().stream()
                        .anyMatch(
                            c -> c.getType().equals("Established") && c.getStatus().equals("True")),
            30,
            TimeUnit.SECONDS);
    String ns = namespace("operated");
    BlockingQueue<String> seen = new LinkedBlockingQueue<>();
    SharedIndexInformer<Greeting> informer =
        client
            .resources(Greeting.class)
            .inNamespace(ns)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Greeting greeting) {
                    seen.add("ADDED " + greeting.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(Greeting before, Greeting after) {
                    if (after.getStatus() != null) {
                      seen.add("OBSERVED " + after.getStatus().getObservedGeneration());
                    }
                  }

                  @Override
                  public void onDelete(Greeting greeting, boolean finalStateUnknown) {
                    seen.add("DELETED " + greeting.getMetadata().getName());
                  }
                });
    GreetingReconciler reconciler = new GreetingReconciler();
    Operator operator =
        new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false));
    operator.register(reconciler);
    operator.start();
    try {
      Greeting hello = new Greeting();
      hello.setMetadata(new ObjectMetaBuilder().withName("hello").withNamespace(ns).build());
      hello.setSpec(new GreetingSpec());
      hello.getSpec().setMessage("hello");
      client.resources(Greeting.class).inNamespace(ns).resource(hello).create();

      await("the operator's ConfigMap and status")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                ConfigMap made = client.configMaps().inNamespace(ns).withName("hello").get();
                assertThat(made).isNotNull();
                assertThat(made.getData()).containsEntry("message", "hello");
                assertThat(made.getMetadata().getOwnerReferences())
                    .extracting(r -> r.getKind() + "/" + r.getName())
                    .containsExactly("Greeting/hello");
                assertThat(seen).contains("ADDED hello", "OBSERVED 1");
              });
      Greeting reconciled =
          client.resources(Greeting.class).inNamespace(ns).withName("hello").get();
      assertThat(reconciled.getMetadata().getFinalizers())
          .as("java-operator-sdk's finalizer")
          .containsExactly("greetings.e2e.streamplane.io/finalizer");
      assertThat(reconciled.getStatus().getConfigMap()).isEqualTo("hello");

      client
          .resources(Greeting.class)
          .inNamespace(ns)
          .withName("hello")
          .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"message\":\"bonjour\"}}");
      await("the change reconciled")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                assertThat(client.configMaps().inNamespace(ns).withName("hello").get().getData())
                    .containsEntry("message", "bonjour");
                assertThat(seen).contains("OBSERVED 2");
              });

      client.resources(Greeting.class).inNamespace(ns).withName("hello").delete();
      assertThat(reconciler.cleaned.poll(60, TimeUnit.SECONDS)).isEqualTo("hello");
      await("the greeting gone once its finalizer is removed, and its ConfigMap collected")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                assertThat(seen).contains("DELETED hello");
                assertThat(client.configMaps().inNamespace(ns).withName("hello").get()).isNull();
              });
      assertThat(informer.getStore().list()).isEmpty();
    } finally {
      operator.stop();
      informer.close();
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName("greetings.e2e.streamplane.io")
          .delete();
    }
  }
}
