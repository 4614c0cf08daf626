package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSecurityContext;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1SecurityContext;
import io.kubernetes.client.util.Config;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.Watch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The official clients, unmodified, against {@code ./streamplane up}: the Java client ({@code
 * io.kubernetes:client-java}) for CRUD, watches, informers, every patch type, server-side apply and
 * paging; and the Python client (Debian's {@code python3-kubernetes}, run by {@code
 * /usr/bin/python3}) for node listing, watches and patches, its watch checked against {@code
 * kubectl get -w}. One cluster with two simulated nodes, each test in its own namespace.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.TWO_SIMULATED_NODES)
class OfficialClientsE2E {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /**
   * The label of the ConfigMaps these tests make: every namespace also holds the published {@code
   * kube-root-ca.crt}, which the tests that count ConfigMaps leave out.
   */
  private static final String MADE_HERE = "made-by=official-clients-e2e";

  private Path home;
  private LocalCluster cluster;
  private ApiClient client;
  private CoreV1Api core;
  private AppsV1Api apps;
  private PythonClient python;
  private final List<String> namespaces = new ArrayList<>();

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    home = Files.createTempDirectory("clients-e2e");
    cluster = shared;
    client = Config.fromConfig(cluster.home.resolve("kubeconfig").toString());
    client.setReadTimeout(0); // watches stay open
    core = new CoreV1Api(client);
    apps = new AppsV1Api(client);
    python = new PythonClient(home, cluster.home.resolve("kubeconfig"));
    await("both nodes registered")
        .atMost(WAIT)
        .until(() -> core.listNode().execute().getItems().size() == 2);
  }

  @AfterAll
  void cleanUp() throws Exception {
    if (!namespaces.isEmpty()) {
      List<String> delete = new ArrayList<>(List.of("delete", "namespace", "--wait=false"));
      delete.addAll(namespaces);
      cluster.kubectl.run(delete.toArray(String[]::new)).expectSuccess();
    }
    try (var files = Files.walk(home)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  // ---------------------------------------------------------------- the Java client

  @Test
  void javaClientListsNodesWithEveryFieldItRequires() throws Exception {
    List<V1Node> nodes = core.listNode().execute().getItems();

    assertThat(nodes).hasSize(2);
    assertThat(nodes.get(0).getStatus().getNodeInfo().getKubeProxyVersion()).isNotNull();
    assertThat(nodes.get(0).getStatus().getNodeInfo().getKubeletVersion()).startsWith("v1.32");
  }

  @Test
  void javaClientCreatesReadsReplacesAndDeletes() throws Exception {
    String ns = namespace("java-crud");
    V1ConfigMap created =
        core.createNamespacedConfigMap(ns, configMap("settings", Map.of("a", "1"))).execute();
    assertThat(created.getMetadata().getUid()).isNotBlank();

    V1ConfigMap read = core.readNamespacedConfigMap("settings", ns).execute();
    assertThat(read.getData()).containsEntry("a", "1");
    read.setData(Map.of("a", "2"));
    V1ConfigMap replaced = core.replaceNamespacedConfigMap("settings", ns, read).execute();
    assertThat(replaced.getMetadata().getResourceVersion())
        .isNotEqualTo(created.getMetadata().getResourceVersion());

    // The version read first is stale now: Kubernetes' optimistic concurrency answers 409.
    created.setData(Map.of("a", "3"));
    assertThatThrownBy(() -> core.replaceNamespacedConfigMap("settings", ns, created).execute())
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(409));

    V1Deployment deployment = apps.createNamespacedDeployment(ns, deployment("web")).execute();
    assertThat(apps.readNamespacedDeployment("web", ns).execute().getSpec().getReplicas())
        .isEqualTo(deployment.getSpec().getReplicas());

    core.deleteNamespacedConfigMap("settings", ns).execute();
    assertThatThrownBy(() -> core.readNamespacedConfigMap("settings", ns).execute())
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(404));
  }

  @Test
  void javaClientKeepsEveryFieldItSends() throws Exception {
    String ns = namespace("java-fields");
    V1Pod pod =
        new V1Pod()
            .metadata(new V1ObjectMeta().name("secured"))
            .spec(
                new V1PodSpec()
                    .securityContext(new V1PodSecurityContext().runAsNonRoot(true).runAsUser(1000L))
                    .addContainersItem(
                        new V1Container()
                            .name("app")
                            .image("nginx:1.27")
                            .securityContext(
                                new V1SecurityContext()
                                    .allowPrivilegeEscalation(false)
                                    .readOnlyRootFilesystem(true))));

    core.createNamespacedPod(ns, pod).execute();

    V1Pod read = core.readNamespacedPod("secured", ns).execute();
    assertThat(read.getSpec().getSecurityContext().getRunAsUser()).isEqualTo(1000L);
    assertThat(
            read.getSpec().getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem())
        .isTrue();
  }

  @Test
  void javaClientWatchSeesAddedModifiedAndDeleted() throws Exception {
    String ns = namespace("java-watch");
    List<String> events = new CopyOnWriteArrayList<>();
    Thread watcher =
        new Thread(
            () -> {
              try (Watch<V1ConfigMap> watch =
                  Watch.createWatch(
                      client,
                      core.listNamespacedConfigMap(ns)
                          .labelSelector(MADE_HERE)
                          .watch(true)
                          .timeoutSeconds(60)
                          .buildCall(null),
                      new TypeToken<Watch.Response<V1ConfigMap>>() {}.getType())) {
                for (Watch.Response<V1ConfigMap> event : watch) {
                  events.add(event.type + " " + event.object.getMetadata().getName());
                }
              } catch (Exception e) {
                events.add("FAILED " + e);
              }
            },
            "java-client-watch");
    watcher.setDaemon(true);
    watcher.start();
    TimeUnit.SECONDS.sleep(2); // the watch request is in flight; earlier objects come as ADDED too

    core.createNamespacedConfigMap(ns, configMap("watched", Map.of("a", "1"))).execute();
    V1ConfigMap changed = core.readNamespacedConfigMap("watched", ns).execute();
    changed.setData(Map.of("a", "2"));
    core.replaceNamespacedConfigMap("watched", ns, changed).execute();
    core.deleteNamespacedConfigMap("watched", ns).execute();

    await("the watch to see the three changes").atMost(WAIT).until(() -> events.size() >= 3);
    assertThat(events).containsExactly("ADDED watched", "MODIFIED watched", "DELETED watched");
  }

  @Test
  void javaClientInformerKeepsItsCacheInStep() throws Exception {
    String ns = namespace("java-informer");
    core.createNamespacedConfigMap(ns, configMap("before", Map.of("a", "1"))).execute();
    SharedInformerFactory factory = new SharedInformerFactory(client);
    SharedIndexInformer<V1ConfigMap> informer =
        factory.sharedIndexInformerFor(
            params ->
                core.listNamespacedConfigMap(ns)
                    .resourceVersion(params.resourceVersion)
                    .watch(params.watch)
                    .timeoutSeconds(params.timeoutSeconds)
                    .buildCall(null),
            V1ConfigMap.class,
            V1ConfigMapList.class);
    List<String> seen = new CopyOnWriteArrayList<>();
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(V1ConfigMap obj) {
            seen.add("add " + obj.getMetadata().getName());
          }

          @Override
          public void onUpdate(V1ConfigMap oldObj, V1ConfigMap newObj) {
            seen.add("update " + newObj.getMetadata().getName() + " " + newObj.getData());
          }

          @Override
          public void onDelete(V1ConfigMap obj, boolean deletedFinalStateUnknown) {
            seen.add("delete " + obj.getMetadata().getName());
          }
        });
    factory.startAllRegisteredInformers();
    try {
      await("the informer to sync").atMost(WAIT).until(informer::hasSynced);
      assertThat(informer.getIndexer().getByKey(ns + "/before")).isNotNull();

      core.createNamespacedConfigMap(ns, configMap("after", Map.of("b", "1"))).execute();
      PatchUtils.patch(
          V1ConfigMap.class,
          () ->
              core.patchNamespacedConfigMap("after", ns, new V1Patch("{\"data\":{\"b\":\"2\"}}"))
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          client);
      core.deleteNamespacedConfigMap("before", ns).execute();

      await("the informer to see the changes")
          .atMost(WAIT)
          .until(() -> seen.contains("delete before") && seen.contains("update after {b=2}"));
      assertThat(seen).containsSubsequence("add before", "add after", "update after {b=2}");
      assertThat(informer.getIndexer().getByKey(ns + "/before")).isNull();
      assertThat(informer.getIndexer().getByKey(ns + "/after").getData()).containsEntry("b", "2");
    } finally {
      factory.stopAllRegisteredInformers();
    }
  }

  @Test
  void javaClientSendsEveryPatchType() throws Exception {
    String ns = namespace("java-patch");
    core.createNamespacedConfigMap(ns, configMap("patched", Map.of("a", "1"))).execute();

    patch(
        ns,
        "[{\"op\":\"add\",\"path\":\"/data/json\",\"value\":\"1\"}]",
        V1Patch.PATCH_FORMAT_JSON_PATCH);
    patch(ns, "{\"data\":{\"merge\":\"2\"}}", V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH);
    V1ConfigMap patched =
        patch(ns, "{\"data\":{\"strategic\":\"3\"}}", V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH);

    assertThat(patched.getData())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("a", "1", "json", "1", "merge", "2", "strategic", "3"));
  }

  @Test
  void javaClientAppliesServerSideWithConflictsAndForce() throws Exception {
    String ns = namespace("java-apply");
    String applied =
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"applied\"},"
            + "\"data\":{\"owner\":\"%s\"}}";

    V1ConfigMap created = apply(ns, applied.formatted("a"), "java-a", false);
    assertThat(created.getData()).containsEntry("owner", "a");
    // The Java client's models drop managedFields when they read a response; kubectl shows them.
    assertThat(managers(ns)).containsExactly("java-a Apply {\"f:data\":{\"f:owner\":{}}}");

    assertThatThrownBy(() -> apply(ns, applied.formatted("b"), "java-b", false))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(409);
              assertThat(e.getResponseBody())
                  .contains(
                      "Apply failed with 1 conflict: conflict with \\\"java-a\\\": .data.owner");
            });

    V1ConfigMap forced = apply(ns, applied.formatted("b"), "java-b", true);
    assertThat(forced.getData()).containsEntry("owner", "b");
    assertThat(managers(ns))
        .contains("java-b Apply {\"f:data\":{\"f:owner\":{}}}")
        .noneMatch(entry -> entry.startsWith("java-a") && entry.contains("f:owner"));
  }

  /** The applied ConfigMap's managedFields as kubectl shows them: manager, operation, fields. */
  private List<String> managers(String ns) throws Exception {
    JsonNode object =
        new ObjectMapper()
            .readTree(
                cluster
                    .kubectl
                    .run(
                        "get",
                        "configmap",
                        "applied",
                        "-n",
                        ns,
                        "-o",
                        "json",
                        "--show-managed-fields")
                    .expectSuccess()
                    .out());
    List<String> managers = new ArrayList<>();
    for (JsonNode entry : object.path("metadata").path("managedFields")) {
      managers.add(
          entry.path("manager").asText()
              + " "
              + entry.path("operation").asText()
              + " "
              + (entry.has("fieldsV1") ? entry.path("fieldsV1").toString() : "{}"));
    }
    return managers;
  }

  @Test
  void javaClientPagesWithLimitAndContinue() throws Exception {
    String ns = namespace("java-pages");
    for (int i = 0; i < 7; i++) {
      core.createNamespacedConfigMap(ns, configMap("page-" + i, Map.of("i", "" + i))).execute();
    }

    List<String> names = new ArrayList<>();
    List<Integer> pageSizes = new ArrayList<>();
    String token = null;
    do {
      V1ConfigMapList page =
          core.listNamespacedConfigMap(ns)
              .labelSelector(MADE_HERE)
              .limit(3)
              ._continue(token)
              .execute();
      page.getItems().forEach(cm -> names.add(cm.getMetadata().getName()));
      pageSizes.add(page.getItems().size());
      token = page.getMetadata().getContinue();
    } while (token != null && !token.isEmpty());

    assertThat(pageSizes).containsExactly(3, 3, 1);
    assertThat(names)
        .containsExactlyElementsOf(IntStream.range(0, 7).mapToObj(i -> "page-" + i).toList());
  }

  // ---------------------------------------------------------------- the Python client

  @Test
  void pythonClientListsNodes() throws Exception {
    String out = python.run("nodes").expectSuccess().out();

    assertThat(out.lines()).hasSize(2).allMatch(line -> line.matches("\\S+ v1\\.32\\S* \\S+"));
  }

  @Test
  void pythonWatchSeesTheSameEventsAsKubectlGetWatch() throws Exception {
    String ns = namespace("py-watch");
    Path pythonOut = home.resolve("python-watch.out");
    Path kubectlOut = home.resolve("kubectl-watch.out");
    Process pythonWatch = python.start(pythonOut, "watch", ns, "120");
    Process kubectlWatch =
        cluster.kubectl.start(
            kubectlOut, "get", "pods", "-n", ns, "-w", "--output-watch-events", "--no-headers");
    try {
      await("the python watch to start")
          .atMost(WAIT)
          .until(() -> Files.readString(pythonOut).contains("WATCHING"));
      TimeUnit.SECONDS.sleep(2);
      kubectl("run", "one", "-n", ns, "--image=nginx:1.27");
      kubectl("label", "pod", "one", "-n", ns, "seen=yes");
      kubectl("run", "two", "-n", ns, "--image=nginx:1.27");
      kubectl("delete", "pod", "one", "two", "-n", ns, "--wait=true");

      await("both watches to see both pods deleted")
          .atMost(WAIT)
          .failFast("a watch ended", () -> !pythonWatch.isAlive() || !kubectlWatch.isAlive())
          .until(
              () ->
                  events(pythonOut).containsAll(List.of("DELETED one", "DELETED two"))
                      && events(kubectlOut).containsAll(List.of("DELETED one", "DELETED two")));
      assertThat(events(pythonOut)).isNotEmpty().isEqualTo(events(kubectlOut));
    } catch (AssertionError | org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          "python printed:\n"
              + Files.readString(pythonOut)
              + new String(pythonWatch.getErrorStream().readNBytes(4096))
              + "\nkubectl printed:\n"
              + Files.readString(kubectlOut),
          e);
    } finally {
      pythonWatch.destroy();
      kubectlWatch.destroy();
    }
  }

  @Test
  void pythonClientSendsEveryPatchType() throws Exception {
    String ns = namespace("py-patch");
    core.createNamespacedConfigMap(ns, configMap("patched", Map.of("a", "1"))).execute();

    List<String> lines = python.run("patch", ns, "patched").expectSuccess().out().lines().toList();

    assertThat(lines)
        .containsExactly(
            "json-patch {\"a\": \"1\", \"json\": \"1\"}",
            "strategic-merge-patch {\"a\": \"1\", \"json\": \"1\", \"strategic\": \"2\"}",
            "merge-patch {\"a\": \"1\", \"strategic\": \"2\"}");
  }

  // ---------------------------------------------------------------- helpers

  private String namespace(String name) throws ApiException {
    core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name))).execute();
    namespaces.add(name);
    return name;
  }

  private static V1ConfigMap configMap(String name, Map<String, String> data) {
    return new V1ConfigMap()
        .metadata(new V1ObjectMeta().name(name).labels(Map.of("made-by", "official-clients-e2e")))
        .data(data);
  }

  private static V1Deployment deployment(String name) {
    Map<String, String> labels = Map.of("app", name);
    return new V1Deployment()
        .metadata(new V1ObjectMeta().name(name))
        .spec(
            new V1DeploymentSpec()
                .replicas(2)
                .selector(new V1LabelSelector().matchLabels(labels))
                .template(
                    new V1PodTemplateSpec()
                        .metadata(new V1ObjectMeta().labels(labels))
                        .spec(
                            new V1PodSpec()
                                .addContainersItem(
                                    new V1Container().name("web").image("nginx:1.27")))));
  }

  private V1ConfigMap patch(String ns, String body, String format) throws ApiException {
    return PatchUtils.patch(
        V1ConfigMap.class,
        () -> core.patchNamespacedConfigMap("patched", ns, new V1Patch(body)).buildCall(null),
        format,
        client);
  }

  private V1ConfigMap apply(String ns, String body, String manager, boolean force)
      throws ApiException {
    return PatchUtils.patch(
        V1ConfigMap.class,
        () ->
            core.patchNamespacedConfigMap("applied", ns, new V1Patch(body))
                .fieldManager(manager)
                .force(force)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_APPLY_YAML,
        client);
  }

  private void kubectl(String... args) throws IOException, InterruptedException {
    cluster.kubectl.run(args).expectSuccess();
  }

  /** The events a watch printed, "TYPE NAME" (the first two columns of each line), in order. */
  private static List<String> events(Path out) throws IOException {
    return Files.readString(out)
        .lines()
        .map(line -> line.strip().split("\\s+"))
        .filter(words -> words.length >= 2 && words[0].matches("ADDED|MODIFIED|DELETED"))
        .map(words -> words[0] + " " + words[1])
        .toList();
  }
}
