package io.streamplane.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Storage with the real kubectl 1.32 against {@code ./streamplane up --runtime process --nodes 1}:
 * the host-path CSI driver process that {@code up} starts registers with node-0 (its CSINode), a
 * claim of the default class gets a volume that pods on the node write and read back, grows when
 * its request does, and is deleted with the claim; inline {@code csi} volumes live as long as their
 * pod; a failing NodePublishVolume leaves the pod ContainerCreating with FailedMount; a StatefulSet
 * gets a Bound claim per ordinal, which a pod made again under the same name mounts again; a driver
 * run beside the node that attaches and publishes its capacity gets VolumeAttachments for its pods.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SharedCluster(SharedCluster.Shape.ONE_PROCESS_NODE)
class StorageE2E {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();

  private Path home;
  private LocalCluster cluster;
  private Kubectl kubectl;

  @BeforeAll
  void startCluster(LocalCluster shared) throws Exception {
    cluster = shared;
    home = cluster.home;
    kubectl = cluster.kubectl;
    await("node-0 Ready")
        .atMost(WAIT)
        .until(() -> kubectl.run("get", "nodes", "--no-headers").out().contains(" Ready "));
  }

  private JsonNode get(String... args) throws Exception {
    String[] all = new String[args.length + 3];
    all[0] = "get";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "-o";
    all[args.length + 2] = "json";
    return JSON.readTree(kubectl.run(all).expectSuccess().out());
  }

  /** Waits for the pod to be Ready (kubectl runs at most a minute at a time). */
  private void ready(String pod) {
    await(pod + " Ready")
        .atMost(Duration.ofSeconds(180))
        .until(
            () ->
                kubectl
                        .run("wait", "--for=condition=Ready", "pod/" + pod, "--timeout=30s")
                        .exitCode()
                    == 0);
  }

  /** The directory of the driver's volumes of node-0. */
  private Path volumesDir() {
    return home.resolve("state/csi/node-0/volumes");
  }

  private long volumeCount() throws Exception {
    if (!Files.isDirectory(volumesDir())) {
      return 0;
    }
    try (Stream<Path> dirs = Files.list(volumesDir())) {
      return dirs.count();
    }
  }

  @Test
  void theDriverRegistersWithTheNodeAndItsClassIsTheDefault() throws Exception {
    await("the CSINode of node-0 lists the driver")
        .atMost(WAIT)
        .until(
            () ->
                kubectl
                    .run("get", "csinode", "node-0", "-o", "jsonpath={.spec.drivers[*].nodeID}")
                    .out()
                    .equals("node-0"));
    JsonNode csiNode = get("csinode", "node-0");
    assertThat(csiNode.at("/spec/drivers/0/name").asText())
        .isEqualTo("hostpath.csi.streamplane.io");
    assertThat(csiNode.at("/spec/drivers/0/topologyKeys/0").asText())
        .isEqualTo("topology.hostpath.csi.streamplane.io/node");
    assertThat(
            get("node", "node-0")
                .at("/metadata/labels/topology.hostpath.csi.streamplane.io~1node")
                .asText())
        .isEqualTo("node-0");
    assertThat(kubectl.run("get", "storageclass").expectSuccess().out())
        .containsPattern(
            "hostpath \\(default\\)\\s+hostpath.csi.streamplane.io\\s+Delete\\s+"
                + "WaitForFirstConsumer\\s+true");
    assertThat(
            get("csidriver", "hostpath.csi.streamplane.io").at("/spec/attachRequired").asBoolean())
        .isFalse();
  }

  private static String writer(String pod, String volume, String command) {
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s}
        spec:
          restartPolicy: Never
          containers:
          - name: c
            image: busybox
            command: ["sh", "-c", "%s"]
            volumeMounts: [{name: data, mountPath: /data}]
          volumes:
          - %s
        """
        .formatted(pod, command, volume);
  }

  @Test
  void anInlineCsiVolumeLivesAsLongAsItsPod() throws Exception {
    long before = volumeCount();
    kubectl
        .runWithInput(
            writer(
                "inline",
                "name: data\n    csi: {driver: hostpath.csi.streamplane.io, volumeAttributes:"
                    + " {size: 2Mi}}",
                "echo inline > /data/file && sleep 3600"),
            "apply",
            "-f",
            "-")
        .expectSuccess();
    ready("inline");
    assertThat(volumeCount()).isEqualTo(before + 1);
    assertThat(kubectl.run("exec", "inline", "--", "cat", "/data/file").expectSuccess().out())
        .isEqualTo("inline\n");
    kubectl.run("delete", "pod", "inline", "--grace-period=1", "--wait=true").expectSuccess();
    await("the inline volume is gone").atMost(WAIT).until(() -> volumeCount() == before);
  }

  @Test
  void aFailingPublishLeavesThePodContainerCreatingWithFailedMount() throws Exception {
    Path marker = home.resolve("state/csi/node-0/fail-node-publish");
    Files.writeString(marker, "the disk is on fire");
    try {
      kubectl
          .runWithInput(
              writer(
                  "stuck",
                  "name: data\n    csi: {driver: hostpath.csi.streamplane.io}",
                  "sleep 3600"),
              "apply",
              "-f",
              "-")
          .expectSuccess();
      await("FailedMount")
          .atMost(WAIT)
          .until(
              () ->
                  kubectl
                      .run(
                          "get",
                          "events",
                          "--field-selector",
                          "involvedObject.name=stuck",
                          "-o",
                          "jsonpath={.items[*].message}")
                      .out()
                      .contains(
                          "MountVolume.SetUp failed for volume \"data\" : rpc error: code ="
                              + " Internal desc = the disk is on fire"));
      assertThat(
              kubectl
                  .run(
                      "get",
                      "pod",
                      "stuck",
                      "-o",
                      "jsonpath={.status.containerStatuses[0].state.waiting.reason}")
                  .out())
          .isEqualTo("ContainerCreating");
    } finally {
      Files.deleteIfExists(marker);
    }
    ready("stuck");
    kubectl.run("delete", "pod", "stuck", "--grace-period=1", "--wait=true").expectSuccess();
  }

  @Test
  void aStatefulSetGetsABoundClaimPerOrdinalKeptWhenItsPodIsMadeAgain() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: apps/v1
            kind: StatefulSet
            metadata: {name: db}
            spec:
              serviceName: db
              replicas: 2
              selector: {matchLabels: {app: db}}
              template:
                metadata: {labels: {app: db}}
                spec:
                  terminationGracePeriodSeconds: 1
                  containers:
                  - name: db
                    image: busybox
                    command: ["/bin/sh", "-c", "[ -f /data/id ] || hostname > /data/id; sleep 3600"]
                    volumeMounts: [{name: data, mountPath: /data}]
              volumeClaimTemplates:
              - metadata: {name: data}
                spec:
                  accessModes: [ReadWriteOnce]
                  resources: {requests: {storage: 100Mi}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    ready("db-0");
    ready("db-1");
    String volume0 = get("pvc", "data-db-0").at("/spec/volumeName").asText();
    JsonNode claim1 = get("pvc", "data-db-1");
    assertThat(claim1.at("/status/phase").asText()).isEqualTo("Bound");
    String volume1 = claim1.at("/spec/volumeName").asText();
    assertThat(volume0).isNotBlank().isNotEqualTo(volume1);
    assertThat(kubectl.run("exec", "db-1", "--", "cat", "/data/id").expectSuccess().out())
        .isEqualTo("db-1\n");

    String uid = get("pod", "db-1").at("/metadata/uid").asText();
    kubectl.run("delete", "pod", "db-1", "--grace-period=1", "--wait=true").expectSuccess();
    await("db-1 made again")
        .atMost(WAIT)
        .until(
            () -> {
              var again = kubectl.run("get", "pod", "db-1", "-o", "jsonpath={.metadata.uid}");
              return again.exitCode() == 0 && !again.out().isBlank() && !again.out().equals(uid);
            });
    ready("db-1");
    assertThat(get("pvc", "data-db-1").at("/spec/volumeName").asText())
        .as("the new db-1 mounts the claim and volume of the old")
        .isEqualTo(volume1);
    assertThat(kubectl.run("exec", "db-1", "--", "cat", "/data/id").expectSuccess().out())
        .isEqualTo("db-1\n");

    kubectl.run("delete", "sts", "db", "--wait=true").expectSuccess();
    assertThat(kubectl.run("get", "pvc", "-o", "name").expectSuccess().out())
        .as("claims outlive their set by default (whenDeleted: Retain)")
        .contains("persistentvolumeclaim/data-db-0", "persistentvolumeclaim/data-db-1");
    kubectl.run("delete", "pvc", "data-db-0", "data-db-1", "--wait=true").expectSuccess();
    await("their volumes deleted with them")
        .atMost(WAIT)
        .until(
            () ->
                kubectl.run("get", "pv", volume0).exitCode() != 0
                    && kubectl.run("get", "pv", volume1).exitCode() != 0);
  }

  @Test
  void aClaimIsProvisionedMountedReadBackExpandedAndDeleted() throws Exception {
    kubectl
        .runWithInput(
            """
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata: {name: data}
            spec:
              accessModes: [ReadWriteOnce]
              resources: {requests: {storage: 1Gi}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    String claim = "name: data\n    persistentVolumeClaim: {claimName: data}";
    kubectl
        .runWithInput(
            writer("writer", claim, "echo persisted > /data/file && sleep 3600"),
            "apply",
            "-f",
            "-")
        .expectSuccess();
    ready("writer");
    JsonNode pvc = get("pvc", "data");
    assertThat(pvc.at("/status/phase").asText()).isEqualTo("Bound");
    assertThat(pvc.at("/spec/storageClassName").asText()).isEqualTo("hostpath");
    String pv = pvc.at("/spec/volumeName").asText();
    JsonNode volume = get("pv", pv);
    assertThat(volume.at("/spec/csi/driver").asText()).isEqualTo("hostpath.csi.streamplane.io");
    assertThat(volume.at("/metadata/annotations/pv.kubernetes.io~1provisioned-by").asText())
        .isEqualTo("hostpath.csi.streamplane.io");
    Path dir = volumesDir().resolve(volume.at("/spec/csi/volumeHandle").asText());
    assertThat(dir.resolve("file")).hasContent("persisted\n");

    kubectl.run("delete", "pod", "writer", "--grace-period=1", "--wait=true").expectSuccess();
    kubectl
        .runWithInput(writer("reader", claim, "cat /data/file && sleep 3600"), "apply", "-f", "-")
        .expectSuccess();
    ready("reader");
    await("the reader reads the file back")
        .atMost(WAIT)
        .until(() -> kubectl.run("logs", "reader").out().equals("persisted\n"));

    kubectl
        .run(
            "patch",
            "pvc",
            "data",
            "-p",
            "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"2Gi\"}}}}")
        .expectSuccess();
    await("kubectl get pvc shows 2Gi")
        .atMost(WAIT)
        .until(
            () ->
                kubectl
                    .run("get", "pvc", "data", "--no-headers")
                    .out()
                    .matches("(?s)data\\s+Bound\\s+" + pv + "\\s+2Gi\\s+RWO\\s+hostpath.*"));
    assertThat(get("pv", pv).at("/spec/capacity/storage").asText()).isEqualTo("2Gi");
    await("the kubelet's FileSystemResizeSuccessful on the pod")
        .atMost(WAIT)
        .until(
            () ->
                events("reader")
                    .contains(
                        "FileSystemResizeSuccessful: MountVolume.NodeExpandVolume succeeded for"
                            + " volume \""
                            + pv
                            + "\" node-0"));

    kubectl.run("delete", "pod", "reader", "--grace-period=1", "--wait=true").expectSuccess();
    kubectl.run("delete", "pvc", "data", "--grace-period=1", "--wait=true").expectSuccess();
    await("the volume and its directory are gone")
        .atMost(WAIT)
        .until(() -> kubectl.run("get", "pv", pv).exitCode() != 0 && !Files.exists(dir));
  }

  @Test
  void aNodeAtItsDriversVolumeLimitTakesNoPodWithAnotherVolumeUntilOneGoes() throws Exception {
    String driver = "limited.csi.streamplane.io";
    Path nodeRoot = home.resolve("state/pods/kubelet/node-0");
    Path socket = nodeRoot.resolve("plugins").resolve(driver).resolve("csi.sock");
    Path root = home.resolve("limited-driver");
    Files.createDirectories(socket.getParent());
    Files.createDirectories(root);
    try (Launcher limited =
        Launcher.startLabelled(
            "limited-driver",
            "csi-driver",
            "--driver-name",
            driver,
            "--node-id",
            "node-0",
            "--root-dir",
            root.toString(),
            "--csi-socket",
            socket.toString(),
            "--registration-dir",
            nodeRoot.resolve("plugins_registry").toString(),
            "--max-volumes-per-node",
            "1",
            "--kubeconfig",
            home.resolve("state/csi/kubeconfig").toString())) {
      await("the CSINode counts one volume of the driver")
          .atMost(WAIT)
          .until(
              () ->
                  kubectl
                      .run(
                          "get",
                          "csinode",
                          "node-0",
                          "-o",
                          "jsonpath={.spec.drivers[?(@.name==\""
                              + driver
                              + "\")].allocatable.count}")
                      .out()
                      .equals("1"));
      StringBuilder manifests =
          new StringBuilder(
              """
              apiVersion: storage.k8s.io/v1
              kind: CSIDriver
              metadata: {name: limited.csi.streamplane.io}
              spec: {attachRequired: false}
              ---
              apiVersion: storage.k8s.io/v1
              kind: StorageClass
              metadata: {name: limited}
              provisioner: limited.csi.streamplane.io
              volumeBindingMode: WaitForFirstConsumer
              """);
      for (String name : List.of("limited-1", "limited-2")) {
        manifests
            .append("---\n")
            .append(
                """
                apiVersion: v1
                kind: PersistentVolumeClaim
                metadata: {name: %s}
                spec:
                  storageClassName: limited
                  accessModes: [ReadWriteOnce]
                  resources: {requests: {storage: 10Mi}}
                """
                    .formatted(name));
      }
      kubectl.runWithInput(manifests.toString(), "apply", "-f", "-").expectSuccess();
      String first = "name: data\n    persistentVolumeClaim: {claimName: limited-1}";
      kubectl
          .runWithInput(writer("limited-1", first, "sleep 3600"), "apply", "-f", "-")
          .expectSuccess();
      ready("limited-1");
      String second = "name: data\n    persistentVolumeClaim: {claimName: limited-2}";
      kubectl
          .runWithInput(writer("limited-2", second, "sleep 3600"), "apply", "-f", "-")
          .expectSuccess();
      String reason =
          "0/1 nodes are available: 1 node(s) exceed max volume count. preemption: 0/1 nodes are"
              + " available: 1 No preemption victims found for incoming pod.";
      await("the second pod stays Pending: the node is at its volume count")
          .atMost(WAIT)
          .until(
              () ->
                  kubectl
                      .run(
                          "get",
                          "pod",
                          "limited-2",
                          "-o",
                          "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}")
                      .out()
                      .equals(reason));
      assertThat(events("limited-2")).contains("FailedScheduling: " + reason);
      assertThat(get("pvc", "limited-2").at("/status/phase").asText()).isEqualTo("Pending");

      kubectl.run("delete", "pod", "limited-1", "--grace-period=1", "--wait=true").expectSuccess();
      ready("limited-2");
      kubectl
          .run("delete", "pod/limited-2", "pvc/limited-1", "pvc/limited-2", "--grace-period=1")
          .expectSuccess();
      await("the driver's volumes are deleted with their claims")
          .atMost(WAIT)
          .until(
              () ->
                  kubectl
                      .run("get", "pv", "-o", "jsonpath={.items[*].spec.storageClassName}")
                      .out()
                      .lines()
                      .noneMatch(line -> line.contains("limited")));
    } finally {
      Files.deleteIfExists(nodeRoot.resolve("plugins_registry").resolve(driver + "-reg.sock"));
      Files.deleteIfExists(socket);
    }
  }

  private String events(String pod) throws Exception {
    return kubectl
        .run(
            "get",
            "events",
            "--field-selector",
            "involvedObject.name=" + pod,
            "-o",
            "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}")
        .out();
  }

  @Test
  void aDriverThatAttachesIsAttachedBeforeTheNodeStagesAndDetachedOnceThePodIsGone()
      throws Exception {
    String driver = "attach.csi.streamplane.io";
    Path nodeRoot = home.resolve("state/pods/kubelet/node-0");
    assertThat(nodeRoot.resolve("plugins_registry")).isDirectory();
    Path root = home.resolve("attach-driver");
    Path socket = nodeRoot.resolve("plugins").resolve(driver).resolve("csi.sock");
    Files.createDirectories(socket.getParent());
    Files.createDirectories(root);
    Files.writeString(root.resolve("fail-controller-publish"), "the bus is down");
    kubectl
        .runWithInput(
            """
            apiVersion: storage.k8s.io/v1
            kind: CSIDriver
            metadata: {name: attach.csi.streamplane.io}
            spec: {attachRequired: true, storageCapacity: true}
            ---
            apiVersion: storage.k8s.io/v1
            kind: StorageClass
            metadata: {name: attached}
            provisioner: attach.csi.streamplane.io
            volumeBindingMode: WaitForFirstConsumer
            ---
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata: {name: attached}
            spec:
              storageClassName: attached
              accessModes: [ReadWriteOnce]
              resources: {requests: {storage: 10Mi}}
            """,
            "apply",
            "-f",
            "-")
        .expectSuccess();
    try (Launcher attacher =
        Launcher.startLabelled(
            "attach-driver",
            "csi-driver",
            "--driver-name",
            driver,
            "--node-id",
            "node-0",
            "--root-dir",
            root.toString(),
            "--csi-socket",
            socket.toString(),
            "--registration-dir",
            nodeRoot.resolve("plugins_registry").toString(),
            "--capacity",
            "1Gi",
            "--enable-attach",
            "--kubeconfig",
            home.resolve("state/csi/kubeconfig").toString())) {
      attacher.awaitLine("attacher running", WAIT);
      await("the driver publishes its node's capacity for the class")
          .atMost(WAIT)
          .until(
              () ->
                  kubectl
                      .run("get", "csistoragecapacities", "-n", "kube-system", "--no-headers")
                      .out()
                      .matches("(?s).*csisc-[0-9a-f]{10}\\s+attached\\s+1Gi\\s.*"));
      kubectl
          .runWithInput(
              """
              apiVersion: v1
              kind: PersistentVolumeClaim
              metadata: {name: too-big}
              spec:
                storageClassName: attached
                accessModes: [ReadWriteOnce]
                resources: {requests: {storage: 2Gi}}
              ---
              """
                  + writer(
                      "too-big",
                      "name: data\n    persistentVolumeClaim: {claimName: too-big}",
                      "sleep 3600"),
              "apply",
              "-f",
              "-")
          .expectSuccess();
      await("a claim larger than the capacity keeps its pod Pending")
          .atMost(WAIT)
          .until(
              () ->
                  kubectl
                      .run(
                          "get",
                          "pod",
                          "too-big",
                          "-o",
                          "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}")
                      .out()
                      .contains("1 node(s) did not have enough free storage"));
      kubectl
          .run("delete", "pod/too-big", "pvc/too-big", "--grace-period=1", "--wait=true")
          .expectSuccess();
      kubectl
          .runWithInput(
              writer(
                  "attached",
                  "name: data\n    persistentVolumeClaim: {claimName: attached}",
                  "echo attached > /data/file && sleep 3600"),
              "apply",
              "-f",
              "-")
          .expectSuccess();
      await("FailedAttachVolume from the attacher's error")
          .atMost(WAIT)
          .until(
              () ->
                  events("attached")
                      .matches(
                          "(?s).*FailedAttachVolume: AttachVolume.Attach failed for volume"
                              + " \"pvc-[^\"]+\" : rpc error: code = Internal desc = the bus is"
                              + " down.*"));
      String pv = get("pvc", "attached").at("/spec/volumeName").asText();
      await("the node waits for the attachment")
          .atMost(WAIT)
          .until(
              () ->
                  events("attached")
                      .contains(
                          "FailedMount: MountVolume.WaitForAttach failed for volume \""
                              + pv
                              + "\" : rpc error: code = Internal desc = the bus is down"));
      assertThat(
              kubectl
                  .run(
                      "get",
                      "pod",
                      "attached",
                      "-o",
                      "jsonpath={.status.containerStatuses[0].state.waiting.reason}")
                  .out())
          .isEqualTo("ContainerCreating");
      Files.delete(root.resolve("fail-controller-publish"));
      ready("attached");
      assertThat(kubectl.run("get", "volumeattachment").expectSuccess().out())
          .containsPattern("(?m)^NAME\\s+ATTACHER\\s+PV\\s+NODE\\s+ATTACHED\\s+AGE$")
          .containsPattern(
              "(?m)^csi-[0-9a-f]{64}\\s+" + driver + "\\s+" + pv + "\\s+node-0\\s+true\\s+");
      JsonNode attachment = null;
      for (JsonNode item : get("volumeattachment").at("/items")) {
        if (item.at("/spec/source/persistentVolumeName").asText().equals(pv)) {
          attachment = item;
        }
      }
      assertThat(attachment).as("the VolumeAttachment of " + pv).isNotNull();
      assertThat(attachment.at("/status/attachmentMetadata/attachedTo").asText())
          .isEqualTo("node-0");
      assertThat(attachment.at("/metadata/finalizers/0").asText())
          .isEqualTo("external-attacher/attach-csi-streamplane-io");
      assertThat(events("attached"))
          .contains(
              "SuccessfulAttachVolume: AttachVolume.Attach succeeded for volume \"" + pv + "\"");
      // the claim, named as its pod, has the volume controllers' events
      assertThat(events("attached"))
          .contains(
              "WaitForFirstConsumer: waiting for first consumer to be created before binding",
              "ExternalProvisioning: Waiting for a volume to be created either by the external"
                  + " provisioner 'attach.csi.streamplane.io' or manually by the system"
                  + " administrator.",
              "ProvisioningSucceeded: Successfully provisioned volume " + pv);
      String handle = get("pv", pv).at("/spec/csi/volumeHandle").asText();
      assertThat(root.resolve("volumes").resolve(handle).resolve("file")).hasContent("attached\n");
      assertThat(root.resolve("meta").resolve(handle + ".json")).content().contains("\"node-0\"");

      kubectl.run("delete", "pod", "attached", "--grace-period=1", "--wait=true").expectSuccess();
      await("the attachment is deleted and the volume detached")
          .atMost(WAIT)
          .until(
              () ->
                  kubectl.run("get", "volumeattachment", "-o", "name").out().isBlank()
                      && !Files.readString(root.resolve("meta").resolve(handle + ".json"))
                          .contains("\"node-0\""));
      kubectl.run("delete", "pvc", "attached", "--wait=true").expectSuccess();
      await("the volume deleted with its claim")
          .atMost(WAIT)
          .until(() -> kubectl.run("get", "pv", pv).exitCode() != 0);
    } finally {
      Files.deleteIfExists(nodeRoot.resolve("plugins_registry").resolve(driver + "-reg.sock"));
      Files.deleteIfExists(socket);
    }
  }
}
