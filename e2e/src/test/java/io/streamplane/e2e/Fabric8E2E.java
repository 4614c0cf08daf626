package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
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
 * {@code waitUntilReady}, a blocking delete, port-forward, exec with stdin, and files copied in and
 * out of a container. Each test works in a namespace of its own.
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
}
