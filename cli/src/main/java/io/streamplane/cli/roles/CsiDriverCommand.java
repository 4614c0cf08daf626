package io.streamplane.cli.roles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.streamplane.csi.hostpath.HostPathConfig;
import io.streamplane.csi.hostpath.HostPathPlugin;
import io.streamplane.csi.hostpath.Mounts;
import io.streamplane.csi.sidecar.ControllerSidecars;
import io.streamplane.csi.sidecar.KubeApi;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.gateway.pki.Pem;
import io.streamplane.schema.objects.Quantities;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamplane csi-driver}: the host-path CSI driver of one node as its own process, its CSI
 * services on a Unix socket and its registration in the node's {@code plugins_registry}.
 */
@Command(
    name = "csi-driver",
    mixinStandardHelpOptions = true,
    description =
        "Run the host-path CSI driver ("
            + HostPathConfig.DRIVER_NAME
            + ") of one node: volumes"
            + " are directories under --root-dir.")
public final class CsiDriverCommand implements Callable<Integer> {

  @Option(
      names = "--driver-name",
      defaultValue = HostPathConfig.DRIVER_NAME,
      description = "The driver's name (default: ${DEFAULT-VALUE}).")
  String driverName;

  @Option(names = "--node-id", required = true, description = "The node this driver serves.")
  String nodeId;

  @Option(
      names = "--root-dir",
      required = true,
      description = "Where the volumes' directories and records live.")
  Path rootDir;

  @Option(
      names = "--csi-socket",
      required = true,
      description = "The Unix socket of the CSI services (Identity, Controller, Node).")
  Path csiSocket;

  @Option(
      names = "--registration-dir",
      description =
          "The node's plugins_registry directory, where the registration socket is placed so the"
              + " node finds the driver; none: not registered.")
  Path registrationDir;

  @Option(
      names = "--capacity",
      defaultValue = "10Gi",
      description = "The storage this node gives out, a quantity (default: ${DEFAULT-VALUE}).")
  String capacity;

  @Option(
      names = "--publish-mode",
      defaultValue = "auto",
      description =
          "How volumes appear at the node's paths: bind (bind mounts), symlink (symbolic links) or"
              + " auto (bind where this process may mount; default: ${DEFAULT-VALUE}).")
  String publishMode;

  @Option(
      names = "--fail-publish-marker",
      description =
          "While this file exists, NodePublishVolume fails with its content as the message"
              + " (default: <root-dir>/fail-node-publish).")
  Path failMarker;

  @Option(
      names = "--enable-attach",
      description =
          "Ask to be attached: the controller service publishes volumes to nodes"
              + " (ControllerPublishVolume) before they are staged, and the sidecars attach"
              + " VolumeAttachments of this driver.")
  boolean enableAttach;

  @Option(
      names = "--fail-attach-marker",
      description =
          "While this file exists, ControllerPublishVolume fails with its content as the message"
              + " (default: <root-dir>/fail-controller-publish).")
  Path failAttachMarker;

  @Option(
      names = "--max-volumes-per-node",
      defaultValue = "0",
      description = "The node's volume limit NodeGetInfo reports (default: 0, none).")
  long maxVolumesPerNode;

  @Option(
      names = "--kubeconfig",
      description =
          "A kubeconfig of the controller sidecars' identity: with it, this process also"
              + " provisions, deletes and expands the volumes of its node's claims.")
  Path kubeconfig;

  @Option(
      names = "--provision-immediate",
      description = "Also provision the claims that name no selected node (of Immediate classes).")
  boolean provisionImmediate;

  @Override
  public Integer call() throws Exception {
    long bytes;
    try {
      bytes = Quantities.value(capacity);
    } catch (IllegalArgumentException e) {
      System.err.println("streamplane csi-driver: --capacity: " + e.getMessage());
      return 2;
    }
    Path root = rootDir.toAbsolutePath();
    Mounts.Mode mode;
    switch (publishMode) {
      case "bind" -> mode = Mounts.Mode.BIND;
      case "symlink" -> mode = Mounts.Mode.SYMLINK;
      case "auto" -> mode = Mounts.detect(root.resolve("scratch"));
      default -> {
        System.err.println(
            "streamplane csi-driver: --publish-mode: bind, symlink or auto, not " + publishMode);
        return 2;
      }
    }
    HostPathConfig config =
        new HostPathConfig(
            driverName,
            nodeId,
            root,
            bytes,
            mode,
            failMarker == null ? HostPathConfig.defaultFailMarker(root) : failMarker,
            enableAttach,
            failAttachMarker == null
                ? HostPathConfig.defaultFailAttachMarker(root)
                : failAttachMarker,
            maxVolumesPerNode);
    CountDownLatch stop = new CountDownLatch(1);
    try (HostPathPlugin plugin =
        HostPathPlugin.start(
            config,
            csiSocket.toAbsolutePath(),
            registrationDir == null ? null : registrationDir.toAbsolutePath())) {
      ControllerSidecars sidecars =
          kubeconfig == null
              ? null
              : new ControllerSidecars(
                  driverName,
                  HostPathConfig.TOPOLOGY_KEY,
                  nodeId,
                  provisionImmediate,
                  enableAttach,
                  api(kubeconfig),
                  plugin.csiSocket(),
                  1000);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    stop.countDown();
                    if (sidecars != null) {
                      try {
                        sidecars.close();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }
                  },
                  "csi-driver-shutdown"));
      System.out.println(
          "csi-driver: "
              + driverName
              + " of node "
              + nodeId
              + " on "
              + plugin.csiSocket()
              + ", volumes in "
              + root
              + " ("
              + capacity
              + ", publishing by "
              + mode.name().toLowerCase(java.util.Locale.ROOT)
              + (sidecars == null
                  ? ""
                  : "; provisioner, resizer" + (enableAttach ? ", attacher" : "") + " running")
              + ")");
      stop.await();
    }
    return 0;
  }

  /** The API client of a kubeconfig's current context: its server, CA and client certificate. */
  static KubeApi api(Path kubeconfig) throws java.io.IOException {
    JsonNode config = new ObjectMapper(new YAMLFactory()).readTree(kubeconfig.toFile());
    String context = config.path("current-context").asText();
    JsonNode selected = null;
    for (JsonNode c : config.path("contexts")) {
      if (c.path("name").asText().equals(context)) {
        selected = c.path("context");
      }
    }
    if (selected == null) {
      throw new IllegalArgumentException(kubeconfig + ": no context " + context);
    }
    JsonNode cluster = named(config.path("clusters"), selected.path("cluster").asText(), "cluster");
    JsonNode user = named(config.path("users"), selected.path("user").asText(), "user");
    ClusterPki.ClientIdentity identity =
        new ClusterPki.ClientIdentity(
            Pem.certificates(decoded(user.path("client-certificate-data"))).get(0),
            Pem.privateKey(decoded(user.path("client-key-data"))),
            Pem.certificates(decoded(cluster.path("certificate-authority-data"))).get(0));
    return new KubeApi(cluster.path("server").asText(), identity.sslContext());
  }

  private static JsonNode named(JsonNode list, String name, String field) {
    for (JsonNode entry : list) {
      if (entry.path("name").asText().equals(name)) {
        return entry.path(field);
      }
    }
    throw new IllegalArgumentException("kubeconfig: no " + field + " " + name);
  }

  private static String decoded(JsonNode base64) {
    return new String(
        java.util.Base64.getDecoder().decode(base64.asText()),
        java.nio.charset.StandardCharsets.UTF_8);
  }
}
