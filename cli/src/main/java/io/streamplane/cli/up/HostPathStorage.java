package io.streamplane.cli.up;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.csi.hostpath.HostPathConfig;
import io.streamplane.csi.sidecar.KubeApi;
import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The storage of {@code up}: one host-path CSI driver process ({@code streamplane csi-driver}) per
 * node, registered in the node's {@code plugins_registry}, its controller sidecars speaking as
 * {@code system:csi-controller}; the CSIDriver object of the driver and the default StorageClass
 * {@code hostpath} (WaitForFirstConsumer, expandable, reclaim policy Delete).
 *
 * <p>Contract: {@link #close} stops the driver processes (their volumes stay on disk under the
 * state directory, as a node's disks outlive its kubelet).
 */
final class HostPathStorage implements AutoCloseable {

  static final String STORAGE_CLASS = "hostpath";
  static final String CSI_USER = "system:csi-controller";

  private final List<Process> drivers;

  private HostPathStorage(List<Process> drivers) {
    this.drivers = drivers;
  }

  /**
   * Starts the drivers of {@code nodes}, each rooted at {@code <dir>/<node>} and registered under
   * {@code <runtimeRoot>/kubelet/<node>}, and writes the cluster's CSIDriver and StorageClass.
   */
  static HostPathStorage start(
      Path dir,
      Path runtimeRoot,
      List<String> nodes,
      String apiServer,
      String cluster,
      ClusterPki pki,
      String capacity)
      throws IOException {
    Files.createDirectories(dir);
    Path kubeconfig = dir.resolve("kubeconfig");
    Kubeconfig.write(kubeconfig, apiServer, cluster, pki.client(CSI_USER, List.of()));
    KubeApi admin = new KubeApi(apiServer, pki.admin().sslContext());
    create(admin, "/apis/storage.k8s.io/v1/csidrivers", csiDriver());
    create(admin, "/apis/storage.k8s.io/v1/storageclasses", storageClass());
    String java = ProcessHandle.current().info().command().orElse("java");
    List<Process> processes = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      String node = nodes.get(i);
      Path nodeRoot = runtimeRoot.resolve("kubelet").resolve(node);
      List<String> command =
          new ArrayList<>(
              List.of(
                  java,
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-Xmx128m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  "io.streamplane.cli.Streamplane",
                  "csi-driver",
                  "--node-id",
                  node,
                  "--root-dir",
                  dir.resolve(node).toString(),
                  "--csi-socket",
                  nodeRoot
                      .resolve("plugins")
                      .resolve(HostPathConfig.DRIVER_NAME)
                      .resolve("csi.sock")
                      .toString(),
                  "--registration-dir",
                  nodeRoot.resolve("plugins_registry").toString(),
                  "--capacity",
                  capacity,
                  "--kubeconfig",
                  kubeconfig.toString()));
      if (i == 0) {
        command.add("--provision-immediate");
      }
      processes.add(
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve(node + ".log").toFile())
              .start());
    }
    return new HostPathStorage(processes);
  }

  private static void create(KubeApi admin, String path, ObjectNode object) throws IOException {
    KubeApi.Reply reply = admin.post(path, object);
    if (!reply.ok() && reply.status() != 409) {
      throw new IOException("cannot create " + path + ": " + reply);
    }
  }

  /** The CSIDriver: no attachment, persistent and inline ephemeral volumes. */
  static ObjectNode csiDriver() {
    ObjectNode driver = JsonNodeFactory.instance.objectNode();
    driver.put("apiVersion", "storage.k8s.io/v1");
    driver.put("kind", "CSIDriver");
    driver.putObject("metadata").put("name", HostPathConfig.DRIVER_NAME);
    ObjectNode spec = driver.putObject("spec");
    spec.put("attachRequired", false);
    spec.put("podInfoOnMount", true);
    spec.putArray("volumeLifecycleModes").add("Persistent").add("Ephemeral");
    return driver;
  }

  /** The default StorageClass {@code hostpath}. */
  static ObjectNode storageClass() {
    ObjectNode sc = JsonNodeFactory.instance.objectNode();
    sc.put("apiVersion", "storage.k8s.io/v1");
    sc.put("kind", "StorageClass");
    ObjectNode metadata = sc.putObject("metadata");
    metadata.put("name", STORAGE_CLASS);
    metadata.putObject("annotations").put("storageclass.kubernetes.io/is-default-class", "true");
    sc.put("provisioner", HostPathConfig.DRIVER_NAME);
    sc.put("reclaimPolicy", "Delete");
    sc.put("volumeBindingMode", "WaitForFirstConsumer");
    sc.put("allowVolumeExpansion", true);
    return sc;
  }

  @Override
  public void close() throws InterruptedException {
    for (Process driver : drivers) {
      driver.destroy();
    }
    for (Process driver : drivers) {
      if (!driver.waitFor(10, TimeUnit.SECONDS)) {
        driver.destroyForcibly();
      }
    }
  }
}
