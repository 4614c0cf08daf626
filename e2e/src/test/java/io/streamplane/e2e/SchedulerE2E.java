package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The scheduler and binder of {@code ./streamplane up}, driven by kubectl against registered (fake)
 * Node objects: placements, FailedScheduling, nodeSelector, node affinity and taints, priority and
 * preemption.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulerE2E {

  private static final Duration PLACED = Duration.ofSeconds(60);
  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster() throws Exception {
    home = Files.createTempDirectory("scheduler-e2e");
    cluster = new LocalCluster(home).start();
    kubectl = cluster.kubectl;
    kubectl.runWithInput(node("plain-1", "4", "", ""), "apply", "-f", "-").expectSuccess();
    kubectl
        .runWithInput(node("ssd-1", "4", "    disk: ssd\n    zone: blue\n", ""), "apply", "-f", "-")
        .expectSuccess();
    kubectl
        .runWithInput(
            node(
                "dedicated-1",
                "4",
                "    role: dedicated\n",
                "  taints:\n  - key: dedicated\n    value: web\n    effect: NoSchedule\n"),
            "apply",
            "-f",
            "-")
        .expectSuccess();
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
  void theNginxDeploymentsPodsGetANodeShownByGetPodsWide() throws Exception {
    kubectl
        .run(
            "apply",
            "-f",
            Launcher.repositoryRoot().resolve("examples/nginx-deployment.yaml").toString())
        .expectSuccess();

    await("both nginx pods to be bound")
        .atMost(PLACED)
        .until(
            () ->
                nodesOf("app=nginx").split(" ").length == 2
                    && !nodesOf("app=nginx").contains("<none>"));
    String nodes = nodesOf("app=nginx");
    assertThat(nodes).doesNotContain("dedicated-1");
    // Another test may have added a node by then: the pods may be on any node but the tainted one.
    assertThat(kubectl.run("get", "pods", "-l", "app=nginx", "-o", "wide").expectSuccess().out())
        .contains(nodes.split(" "));
  }

  @Test
  void aPodTooBigForEveryNodeWaitsWithFailedSchedulingUntilABigEnoughNodeArrives()
      throws Exception {
    kubectl
        .runWithInput(
            pod("huge", "    resources:\n      requests:\n        cpu: \"16\"\n", ""),
            "apply",
            "-f",
            "-")
        .expectSuccess();

    await("the FailedScheduling event on the pod")
        .atMost(PLACED)
        .until(() -> kubectl.run("describe", "pod", "huge").out().contains("FailedScheduling"));
    String described = kubectl.run("describe", "pod", "huge").expectSuccess().out();
    assertThat(described)
        .contains("0/3 nodes are available:")
        .contains("2 Insufficient cpu")
        .contains("1 node(s) had untolerated taint {dedicated: web}");
    assertThat(kubectl.run("get", "pod", "huge", "-o", "jsonpath={.spec.nodeName}").out())
        .isEmpty();

    kubectl.runWithInput(node("big-1", "32", "", ""), "apply", "-f", "-").expectSuccess();

    await("the pod to land on the big node, with nothing else done")
        .atMost(PLACED)
        .until(
            () ->
                kubectl
                    .run("get", "pod", "huge", "-o", "jsonpath={.spec.nodeName}")
                    .out()
                    .equals("big-1"));
    await("the Scheduled event")
        .atMost(PLACED)
        .until(
            () ->
                kubectl
                    .run("describe", "pod", "huge")
                    .out()
                    .contains("Successfully assigned default/huge to big-1"));
  }

  @Test
  void nodeSelectorAndRequiredAffinityChooseTheMatchingNode() throws Exception {
    kubectl
        .runWithInput(pod("selected", "", "  nodeSelector:\n    disk: ssd\n"), "apply", "-f", "-")
        .expectSuccess();
    kubectl
        .runWithInput(
            pod(
                "affine",
                "",
                "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                    + "        nodeSelectorTerms:\n        - matchExpressions:\n          - key: zone\n"
                    + "            operator: In\n            values: [blue]\n"),
            "apply",
            "-f",
            "-")
        .expectSuccess();

    await("both to land on ssd-1")
        .atMost(PLACED)
        .until(() -> nodeOf("selected").equals("ssd-1") && nodeOf("affine").equals("ssd-1"));
  }

  @Test
  void aNoScheduleTaintKeepsOutPodsThatDoNotTolerateIt() throws Exception {
    String toDedicated = "  nodeSelector:\n    role: dedicated\n";
    kubectl.runWithInput(pod("intolerant", "", toDedicated), "apply", "-f", "-").expectSuccess();
    kubectl
        .runWithInput(
            pod(
                "tolerant",
                "",
                toDedicated
                    + "  tolerations:\n  - key: dedicated\n    operator: Equal\n    value: web\n    effect: NoSchedule\n"),
            "apply",
            "-f",
            "-")
        .expectSuccess();

    await("the tolerant pod on the dedicated node")
        .atMost(PLACED)
        .until(() -> nodeOf("tolerant").equals("dedicated-1"));
    await("the intolerant pod refused")
        .atMost(PLACED)
        .until(
            () ->
                kubectl
                    .run("describe", "pod", "intolerant")
                    .out()
                    .contains("untolerated taint {dedicated: web}"));
    assertThat(nodeOf("intolerant")).isEmpty();
  }

  @Test
  void aHighPriorityPodPreemptsALowPriorityPodOnAFullNode() throws Exception {
    // dedicated-1 (4 CPUs) filled by two pods of priority 0 that tolerate its taint.
    String onDedicated =
        "  nodeSelector:\n    role: dedicated\n  terminationGracePeriodSeconds: 0\n"
            + "  tolerations:\n  - key: dedicated\n    operator: Equal\n    value: web\n"
            + "    effect: NoSchedule\n";
    String twoCpus = "    resources:\n      requests:\n        cpu: \"2\"\n";
    for (String name : new String[] {"filler-a", "filler-b"}) {
      kubectl.runWithInput(pod(name, twoCpus, onDedicated), "apply", "-f", "-").expectSuccess();
    }
    await("both fillers on dedicated-1")
        .atMost(PLACED)
        .until(
            () ->
                nodeOf("filler-a").equals("dedicated-1")
                    && nodeOf("filler-b").equals("dedicated-1"));

    Kubectl.Result unknown =
        kubectl.runWithInput(
            pod("classless", twoCpus, "  priorityClassName: ghost\n"), "apply", "-f", "-");
    assertThat(unknown.exitCode()).isNotZero();
    assertThat(unknown.err())
        .contains("pods \"classless\" is forbidden: no PriorityClass with name ghost was found");

    kubectl
        .runWithInput(
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\n"
                + "value: 1000\n",
            "apply",
            "-f",
            "-")
        .expectSuccess();
    kubectl
        .runWithInput(
            pod("urgent", twoCpus, onDedicated + "  priorityClassName: high\n"), "apply", "-f", "-")
        .expectSuccess();

    await("the urgent pod bound to dedicated-1")
        .atMost(PLACED)
        .until(() -> nodeOf("urgent").equals("dedicated-1"));
    String fillers =
        kubectl
            .run("get", "pods", "filler-a", "filler-b", "--ignore-not-found", "-o", "name")
            .out()
            .trim();
    assertThat(fillers.lines()).as("one filler preempted, one kept").hasSize(1);
    String victim = fillers.contains("filler-a") ? "filler-b" : "filler-a";
    String uid = kubectl.run("get", "pod", "urgent", "-o", "jsonpath={.metadata.uid}").out();
    await("the Preempted event on the victim")
        .atMost(PLACED)
        .until(
            () ->
                kubectl
                    .run(
                        "get",
                        "events",
                        "-o",
                        "jsonpath={range .items[?(@.reason==\"Preempted\")]}"
                            + "{.involvedObject.name}: {.message}{\"\\n\"}{end}")
                    .out()
                    .contains(victim + ": Preempted by pod " + uid + " on node dedicated-1"));
    assertThat(
            kubectl
                .run(
                    "get",
                    "pods",
                    "urgent",
                    fillers.replace("pod/", ""),
                    "-o",
                    "custom-columns=NAME:.metadata.name,PRIORITY:.spec.priority,CLASS:.spec.priorityClassName")
                .expectSuccess()
                .out())
        .containsPattern("urgent\\s+1000\\s+high")
        .containsPattern("filler-\\w\\s+0\\s+<none>");

    kubectl
        .run("delete", "pod", "urgent", fillers.replace("pod/", ""), "--wait=false")
        .expectSuccess();
    kubectl.run("delete", "priorityclass", "high").expectSuccess();
  }

  private String nodeOf(String pod) throws Exception {
    return kubectl.run("get", "pod", pod, "-o", "jsonpath={.spec.nodeName}").out();
  }

  @Test
  void aPodWaitsForAMissingClaimAndAWaitForFirstConsumerClaimGetsItsPodsNode() throws Exception {
    kubectl
        .runWithInput(
            pod(
                "needs-claim",
                "",
                "  volumes:\n  - name: d\n    persistentVolumeClaim: {claimName: absent}\n"),
            "apply",
            "-f",
            "-")
        .expectSuccess();
    await("the FailedScheduling message of the missing claim")
        .atMost(PLACED)
        .until(
            () ->
                kubectl
                    .run(
                        "get",
                        "pod",
                        "needs-claim",
                        "-o",
                        "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}")
                    .out()
                    .matches(
                        "0/(\\d+) nodes are available: persistentvolumeclaim \"absent\" not"
                            + " found\\. preemption: 0/\\1 nodes are available: \\1 Preemption"
                            + " is not helpful for scheduling\\."));

    kubectl
        .runWithInput(
            """
            apiVersion: storage.k8s.io/v1
            kind: StorageClass
            metadata:
              name: late
            provisioner: example.csi
            volumeBindingMode: WaitForFirstConsumer
            ---
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: late-data
            spec:
              accessModes: [ReadWriteOnce]
              storageClassName: late
              resources: {requests: {storage: 1Gi}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    kubectl
        .runWithInput(
            pod(
                "late-consumer",
                "",
                "  volumes:\n  - name: d\n    persistentVolumeClaim: {claimName: late-data}\n"),
            "apply",
            "-f",
            "-")
        .expectSuccess();
    await("the consumer to be placed")
        .atMost(PLACED)
        .until(() -> !nodeOf("late-consumer").isEmpty());
    String node = nodeOf("late-consumer");
    await("the claim to name the node and its provisioner")
        .atMost(PLACED)
        .until(
            () ->
                kubectl
                        .run("get", "pvc", "late-data", "-o", "jsonpath={.metadata.annotations}")
                        .out()
                        .contains("\"volume.kubernetes.io/selected-node\":\"" + node + "\"")
                    && kubectl
                        .run("get", "pvc", "late-data", "-o", "jsonpath={.metadata.annotations}")
                        .out()
                        .contains("\"volume.kubernetes.io/storage-provisioner\":\"example.csi\""));
    assertThat(kubectl.run("get", "pvc", "late-data", "-o", "jsonpath={.status.phase}").out())
        .isEqualTo("Pending");
    kubectl.run("delete", "pod", "needs-claim", "late-consumer", "--wait=false").expectSuccess();
  }

  private String nodesOf(String selector) throws Exception {
    return kubectl
        .run("get", "pods", "-l", selector, "-o", "jsonpath={.items[*].spec.nodeName}")
        .out()
        .trim();
  }

  private static String node(String name, String cpu, String labels, String taints) {
    return """
        apiVersion: v1
        kind: Node
        metadata:
          name: %s
          labels:
            kubernetes.io/hostname: %1$s
        %s
        spec:
        %s
        status:
          capacity: {cpu: "%s", memory: 16Gi, pods: "110"}
          allocatable: {cpu: "%4$s", memory: 16Gi, pods: "110"}
          conditions:
          - {type: Ready, status: "True", reason: KubeletReady}
        """
        .formatted(name, labels, taints.isEmpty() ? "  unschedulable: false\n" : taints, cpu);
  }

  private static String pod(String name, String resources, String spec) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
        spec:
        %s  containers:
          - name: c
            image: nginx:1.14.2
        %s"""
        .formatted(name, spec, resources);
  }
}
