package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The workloads that need nodes, on a cluster of process nodes, judged with kubectl: a DaemonSet
 * (one Ready pod per Ready node, a pod for a node that joins later, a template change rolled out
 * node by node until {@code kubectl rollout status} says so, and the revisions {@code kubectl
 * rollout history} and {@code undo} read); a StatefulSet behind a headless Service (its pods made
 * in order, answered by the cluster DNS under their hostnames, a deleted pod made again under its
 * name, scaled down from the highest ordinal, rolled and undone, its claims made from its templates
 * and collected with it; deleted orphaning its pods and made again, it adopts them without
 * restarting them); a ReplicationController.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.TWO_PROCESS_NODES)
class DaemonSetE2E {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration LONG = Duration.ofSeconds(120);

  private static final String DAEMON_SET =
      """
      apiVersion: apps/v1
      kind: DaemonSet
      metadata:
        name: agent
      spec:
        selector:
          matchLabels:
            app: agent
        template:
          metadata:
            labels:
              app: agent
          spec:
            terminationGracePeriodSeconds: 1
            containers:
            - name: agent
              image: busybox
              command: ["/bin/sh", "-c", "sleep 3600"]
      """;

  private static final String STATEFUL_SET =
      """
      apiVersion: v1
      kind: Service
      metadata:
        name: web
      spec:
        clusterIP: None
        selector:
          app: web
        ports:
        - port: 80
          name: web
      ---
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: web
      spec:
        serviceName: web
        replicas: 3
        selector:
          matchLabels:
            app: web
        template:
          metadata:
            labels:
              app: web
          spec:
            terminationGracePeriodSeconds: 1
            containers:
            - name: web
              image: busybox
              command: ["/bin/sh", "-c", "sleep 3600"]
      """;

  private static final String CLAIMED_SET =
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: db
      spec:
        serviceName: db
        replicas: 1
        persistentVolumeClaimRetentionPolicy:
          whenDeleted: Delete
        selector:
          matchLabels:
            app: db
        template:
          metadata:
            labels:
              app: db
          spec:
            terminationGracePeriodSeconds: 1
            containers:
            - name: db
              image: busybox
              command: ["/bin/sh", "-c", "sleep 3600"]
              volumeMounts:
              - name: data
                mountPath: /data
        volumeClaimTemplates:
        - metadata:
            name: data
          spec:
            accessModes: ["ReadWriteOnce"]
            storageClassName: none
            resources:
              requests:
                storage: 1Gi
      """;

  private static final String ORPHANED_SET =
      """
      apiVersion: apps/v1
      kind: StatefulSet
      metadata:
        name: kv
      spec:
        serviceName: kv
        replicas: 2
        podManagementPolicy: Parallel
        selector:
          matchLabels:
            app: kv
        template:
          metadata:
            labels:
              app: kv
          spec:
            terminationGracePeriodSeconds: 1
            containers:
            - name: kv
              image: busybox
              command: ["/bin/sh", "-c", "sleep 3600"]
      """;

  private static final String REPLICATION_CONTROLLER =
      """
      apiVersion: v1
      kind: ReplicationController
      metadata:
        name: echo
      spec:
        replicas: 2
        selector:
          app: echo
        template:
          metadata:
            labels:
              app: echo
          spec:
            terminationGracePeriodSeconds: 1
            containers:
            - name: echo
              image: busybox
              command: ["/bin/sh", "-c", "sleep 3600"]
      """;

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;
  private Launcher joined;

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    home = Files.createTempDirectory("daemonset-e2e");
    cluster = shared;
    kubectl = cluster.kubectl;
    await("two Ready nodes").atMost(LONG).until(() -> readyNodes().size() == 2);
  }

  @AfterAll
  void cleanUp() throws Exception {
    try {
      if (joined != null) {
        joined.close();
        kubectl.run("delete", "node", "joined").expectSuccess();
      }
      kubectl.run("delete", "ds", "agent", "--ignore-not-found", "--wait=false").expectSuccess();
    } finally {
      try (var files = Files.walk(home)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void aDaemonSetRunsOneReadyPodPerNodeFollowsANewNodeAndRollsATemplateChange() throws Exception {
    kubectl.runWithInput(DAEMON_SET, "apply", "-f", "-").expectSuccess();
    assertThat(rolloutStatus()).contains("daemon set \"agent\" successfully rolled out");
    assertThat(podNodes()).containsExactlyInAnyOrderElementsOf(readyNodes());
    assertThat(
            String.join(
                " ",
                kubectl
                    .run("get", "ds", "agent", "--no-headers")
                    .expectSuccess()
                    .out()
                    .trim()
                    .split("\\s+")))
        .startsWith("agent 2 2 2 2 2 <none>");
    assertThat(kubectl.run("get", "all", "--no-headers").expectSuccess().out())
        .contains("daemonset.apps/agent");

    joined = cluster.startProcessNode("joined", home.resolve("joined"));
    await("the joined node Ready").atMost(LONG).until(() -> readyNodes().size() == 3);
    await("a Ready agent pod on each of the three nodes")
        .atMost(LONG)
        .untilAsserted(
            () -> assertThat(podNodes()).containsExactlyInAnyOrderElementsOf(readyNodes()));
    assertThat(podNodes()).contains("joined");

    kubectl.run("annotate", "ds/agent", "kubernetes.io/change-cause=v2").expectSuccess();
    kubectl.run("set", "env", "ds/agent", "VERSION=2").expectSuccess();
    assertThat(rolloutStatus()).contains("daemon set \"agent\" successfully rolled out");
    JsonNode pods = json("get", "pods", "-l", "app=agent", "-o", "json").path("items");
    assertThat(pods).hasSize(3);
    for (JsonNode pod : pods) {
      assertThat(pod.at("/spec/containers/0/env/0/value").asText()).isEqualTo("2");
    }
    String history = kubectl.run("rollout", "history", "ds/agent").expectSuccess().out();
    assertThat(history.lines().map(String::strip)).contains("1         <none>", "2         v2");

    kubectl.run("rollout", "undo", "ds/agent").expectSuccess();
    assertThat(rolloutStatus()).contains("daemon set \"agent\" successfully rolled out");
    assertThat(json("get", "pods", "-l", "app=agent", "-o", "json").path("items"))
        .hasSize(3)
        .allSatisfy(pod -> assertThat(pod.at("/spec/containers/0/env").isMissingNode()).isTrue());
  }

  @Test
  void aStatefulSetComesUpInOrderKeepsItsNamesAndScalesDownFromTheHighestOrdinal()
      throws Exception {
    kubectl.runWithInput(STATEFUL_SET, "apply", "-f", "-").expectSuccess();
    // kubectl reports a set with a partition (defaulted to 0) as a partitioned roll out.
    assertThat(stsRolloutStatus())
        .contains("partitioned roll out complete: 3 new pods have been updated");
    assertThat(kubectl.run("get", "sts", "web", "--no-headers").expectSuccess().out())
        .startsWith("web   3/3");
    JsonNode pods = json("get", "pods", "-l", "app=web", "-o", "json").path("items");
    Map<String, JsonNode> byName = new TreeMap<>();
    pods.forEach(pod -> byName.put(pod.at("/metadata/name").asText(), pod));
    assertThat(byName).containsOnlyKeys("web-0", "web-1", "web-2");
    for (int i = 1; i < 3; i++) {
      Instant created =
          Instant.parse(byName.get("web-" + i).at("/metadata/creationTimestamp").asText());
      assertThat(created)
          .as("web-%d is created once web-%d is Ready", i, i - 1)
          .isAfterOrEqualTo(readySince(byName.get("web-" + (i - 1))));
    }
    JsonNode web0 = byName.get("web-0");
    assertThat(web0.at("/spec/hostname").asText()).isEqualTo("web-0");
    assertThat(web0.at("/spec/subdomain").asText()).isEqualTo("web");
    assertThat(web0.at("/metadata/labels/statefulset.kubernetes.io~1pod-name").asText())
        .isEqualTo("web-0");
    assertThat(web0.at("/metadata/labels/apps.kubernetes.io~1pod-index").asText()).isEqualTo("0");

    String dns =
        kubectl
            .run("get", "svc", "-n", "kube-system", "kube-dns", "-o", "jsonpath={.spec.clusterIP}")
            .expectSuccess()
            .out()
            .trim();
    await("web-0.web answered by the cluster DNS")
        .atMost(LONG)
        .until(
            () ->
                dig(dns, "web-0.web.default.svc.cluster.local")
                    .equals(List.of(web0.at("/status/podIP").asText())));

    String uid = byName.get("web-1").at("/metadata/uid").asText();
    kubectl.run("delete", "pod", "web-1", "--wait=false").expectSuccess();
    await("web-1 made again, Running and Ready")
        .atMost(LONG)
        .until(
            () -> {
              JsonNode pod = json("get", "pods", "-l", "app=web", "-o", "json").path("items");
              for (JsonNode p : pod) {
                if (p.at("/metadata/name").asText().equals("web-1")
                    && !p.at("/metadata/uid").asText().equals(uid)) {
                  return readySince(p) != null;
                }
              }
              return false;
            });

    kubectl.run("scale", "sts", "web", "--replicas=1").expectSuccess();
    List<Set<String>> seen = new ArrayList<>();
    await("only web-0 left")
        .atMost(LONG)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Set<String> names = new TreeSet<>();
              json("get", "pods", "-l", "app=web", "-o", "json")
                  .path("items")
                  .forEach(p -> names.add(p.at("/metadata/name").asText()));
              seen.add(names);
              return names.equals(Set.of("web-0"));
            });
    assertThat(seen)
        .as("web-2 goes before web-1")
        .noneMatch(names -> names.contains("web-2") && !names.contains("web-1"));

    kubectl.run("set", "env", "sts/web", "VERSION=2").expectSuccess();
    assertThat(stsRolloutStatus())
        .contains("partitioned roll out complete: 1 new pods have been updated");
    assertThat(
            json("get", "pod", "web-0", "-o", "json").at("/spec/containers/0/env/0/value").asText())
        .isEqualTo("2");
    String history = kubectl.run("rollout", "history", "sts/web").expectSuccess().out();
    assertThat(history.lines().map(String::strip)).contains("1         <none>", "2         <none>");
    kubectl.run("rollout", "undo", "sts/web").expectSuccess();
    assertThat(stsRolloutStatus())
        .contains("partitioned roll out complete: 1 new pods have been updated");
    assertThat(
            json("get", "pod", "web-0", "-o", "json").at("/spec/containers/0/env").isMissingNode())
        .isTrue();

    kubectl.run("delete", "sts", "web").expectSuccess();
    await("the set's pod collected").atMost(LONG).until(() -> podCount("app=web") == 0);
    assertThat(kubectl.run("get", "controllerrevisions", "-o", "name").expectSuccess().out())
        .doesNotContain("/web-");
  }

  @Test
  void aStatefulSetsClaimsAreMadeFromItsTemplatesAndGoWithItWhenWhenDeletedIsDelete()
      throws Exception {
    kubectl.runWithInput(CLAIMED_SET, "apply", "-f", "-").expectSuccess();
    await("the claim of db-0, and db-0 waiting for it")
        .atMost(LONG)
        .until(
            () ->
                kubectl.run("get", "pvc", "data-db-0", "--no-headers").out().contains("Pending")
                    && podCount("app=db") == 1);
    JsonNode claim = json("get", "pvc", "data-db-0", "-o", "json");
    assertThat(claim.at("/metadata/labels/app").asText()).isEqualTo("db");
    assertThat(claim.at("/metadata/ownerReferences/0/kind").asText()).isEqualTo("StatefulSet");
    JsonNode pod = json("get", "pod", "db-0", "-o", "json");
    assertThat(pod.at("/status/phase").asText()).isEqualTo("Pending");
    assertThat(pod.at("/spec/volumes/0/persistentVolumeClaim/claimName").asText())
        .isEqualTo("data-db-0");

    kubectl.run("delete", "sts", "db").expectSuccess();
    await("the claim collected with its set")
        .atMost(LONG)
        .until(() -> kubectl.run("get", "pvc", "-o", "name").expectSuccess().out().isBlank());
  }

  @Test
  void aStatefulSetDeletedOrphaningItsPodsAndMadeAgainAdoptsThemWithoutRestartingThem()
      throws Exception {
    kubectl.runWithInput(ORPHANED_SET, "apply", "-f", "-").expectSuccess();
    await("two Ready pods of kv").atMost(LONG).until(() -> readyPods("app=kv") == 2);
    Map<String, String> running = runningSince("app=kv");
    assertThat(running).containsOnlyKeys("kv-0", "kv-1");

    kubectl.run("delete", "sts", "kv", "--cascade=orphan").expectSuccess();
    await("kv gone, its pods and revision left without an owner")
        .atMost(LONG)
        .until(
            () ->
                kubectl.run("get", "sts", "kv", "--ignore-not-found").out().isBlank()
                    && owners("pods", "app=kv").equals(List.of("", ""))
                    && owners("controllerrevisions", "app=kv").equals(List.of("")));

    kubectl.runWithInput(ORPHANED_SET, "apply", "-f", "-").expectSuccess();
    String uid = json("get", "sts", "kv", "-o", "json").at("/metadata/uid").asText();
    await("kv's pods and revision adopted, and its status counting them")
        .atMost(LONG)
        .until(
            () ->
                owners("pods", "app=kv").equals(List.of(uid, uid))
                    && owners("controllerrevisions", "app=kv").equals(List.of(uid))
                    && json("get", "sts", "kv", "-o", "json").at("/status/readyReplicas").asInt()
                        == 2);
    assertThat(runningSince("app=kv")).as("the same pods, never restarted").isEqualTo(running);

    kubectl.run("delete", "sts", "kv").expectSuccess();
    await("kv's pods collected").atMost(LONG).until(() -> podCount("app=kv") == 0);
  }

  /** Each pod's uid, container start and restart count, by name. */
  private Map<String, String> runningSince(String selector) throws Exception {
    Map<String, String> running = new TreeMap<>();
    for (JsonNode pod : json("get", "pods", "-l", selector, "-o", "json").path("items")) {
      JsonNode container = pod.at("/status/containerStatuses/0");
      running.put(
          pod.at("/metadata/name").asText(),
          pod.at("/metadata/uid").asText()
              + " "
              + container.at("/state/running/startedAt").asText()
              + " "
              + container.path("restartCount").asInt());
    }
    return running;
  }

  /** The uid of each object's controller ({@code ""} for none), in name order. */
  private List<String> owners(String resource, String selector) throws Exception {
    List<String> owners = new ArrayList<>();
    for (JsonNode item : json("get", resource, "-l", selector, "-o", "json").path("items")) {
      String owner = "";
      for (JsonNode ref : item.at("/metadata/ownerReferences")) {
        if (ref.path("controller").asBoolean()) {
          owner = ref.path("uid").asText();
        }
      }
      owners.add(owner);
    }
    return owners;
  }

  @Test
  void aReplicationControllerRunsItsReplicasScalesAndTakesItsPodsAlongWhenDeleted()
      throws Exception {
    kubectl.runWithInput(REPLICATION_CONTROLLER, "apply", "-f", "-").expectSuccess();
    await("two Ready pods of the RC").atMost(LONG).until(() -> readyPods("app=echo") == 2);
    await("the RC's status")
        .atMost(LONG)
        .until(
            () ->
                String.join(
                        " ",
                        kubectl
                            .run("get", "rc", "echo", "--no-headers")
                            .expectSuccess()
                            .out()
                            .trim()
                            .split("\\s+"))
                    .startsWith("echo 2 2 2"));

    kubectl.run("scale", "rc", "echo", "--replicas=1").expectSuccess();
    await("one pod left").atMost(LONG).until(() -> podCount("app=echo") == 1);

    kubectl.run("delete", "rc", "echo").expectSuccess();
    await("the RC's pod collected").atMost(LONG).until(() -> podCount("app=echo") == 0);
  }

  private String stsRolloutStatus() throws Exception {
    return kubectl.run("rollout", "status", "sts/web", "--timeout=180s").expectSuccess().out();
  }

  /** When the pod's Ready condition became True, or null when it is not Ready. */
  private static Instant readySince(JsonNode pod) {
    for (JsonNode condition : pod.at("/status/conditions")) {
      if (condition.path("type").asText().equals("Ready")
          && condition.path("status").asText().equals("True")) {
        return Instant.parse(condition.path("lastTransitionTime").asText());
      }
    }
    return null;
  }

  private int readyPods(String selector) throws Exception {
    int ready = 0;
    for (JsonNode pod : json("get", "pods", "-l", selector, "-o", "json").path("items")) {
      if (readySince(pod) != null && pod.at("/metadata/deletionTimestamp").isMissingNode()) {
        ready++;
      }
    }
    return ready;
  }

  private int podCount(String selector) throws Exception {
    return json("get", "pods", "-l", selector, "-o", "json").path("items").size();
  }

  private static List<String> dig(String server, String name) throws Exception {
    Process process =
        new ProcessBuilder("dig", "+short", "+time=2", "+tries=2", "@" + server, name)
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes());
    process.waitFor();
    return out.lines().filter(l -> !l.isBlank()).toList();
  }

  private String rolloutStatus() throws Exception {
    return kubectl.run("rollout", "status", "ds/agent", "--timeout=180s").expectSuccess().out();
  }

  private List<String> readyNodes() throws Exception {
    List<String> ready = new ArrayList<>();
    for (String line : kubectl.run("get", "nodes", "--no-headers").out().lines().toList()) {
      String[] cells = line.trim().split("\\s+");
      if (cells.length > 1 && cells[1].equals("Ready")) {
        ready.add(cells[0]);
      }
    }
    return ready;
  }

  /** The nodes of the agent pods that are Running and Ready and not being deleted. */
  private List<String> podNodes() throws Exception {
    List<String> nodes = new ArrayList<>();
    for (JsonNode pod : json("get", "pods", "-l", "app=agent", "-o", "json").path("items")) {
      boolean ready = false;
      for (JsonNode condition : pod.at("/status/conditions")) {
        ready |=
            condition.path("type").asText().equals("Ready")
                && condition.path("status").asText().equals("True");
      }
      if (ready && pod.at("/metadata/deletionTimestamp").isMissingNode()) {
        nodes.add(pod.at("/spec/nodeName").asText());
      }
    }
    return nodes;
  }

  private JsonNode json(String... args) throws Exception {
    return JSON.readTree(kubectl.run(args).expectSuccess().out());
  }
}
