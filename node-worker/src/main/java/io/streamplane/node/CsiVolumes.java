package io.streamplane.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Pod;
import io.streamplane.api.Volume;
import io.streamplane.csi.node.CsiDriverRegistration;
import io.streamplane.csi.node.CsiVolumeManager;
import io.streamplane.csi.node.PluginWatcher;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.Quantities;
import io.streamplane.schema.objects.VolumeAttachmentNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's CSI volumes (the kubelet's volume manager for the {@code kubernetes.io/csi} plugin, and
 * its CSI node-info manager): the plugin watcher over {@code <node root>/plugins_registry}, which
 * records each registered driver in the node's CSINode ({@code spec.drivers[]}: name, nodeID,
 * topologyKeys) and its topology segments as labels of the Node; and, in a pod's life, the set-up
 * of its {@code persistentVolumeClaim} volumes bound to a CSI PersistentVolume (and of its generic
 * {@code ephemeral} volumes, whose claim is {@code <pod>-<volume>}), of its inline {@code csi}
 * volumes (for a driver that attaches, once its VolumeAttachment on this node is attached;
 * NodeStageVolume, NodePublishVolume), their node expansion when the volume grew, and their
 * tear-down when the pod stops.
 *
 * <p>Contract: {@link #setUp} completes with the published directories by volume name, or
 * exceptionally with a {@link FailedMount} carrying the kubelet's message; the caller retries.
 * Blocking gRPC calls run on one thread of this node's own. A PersistentVolume of a {@code
 * hostPath} or {@code local} source is not CSI: its path is used as it is.
 */
final class CsiVolumes implements AutoCloseable {

  /** A volume that could not be set up: the pod stays ContainerCreating with FailedMount. */
  static final class FailedMount extends RuntimeException {
    FailedMount(String message) {
      super(message);
    }
  }

  /** A volume set up for a pod: the spec it was published with, and its claim (or null). */
  record Mounted(String volume, CsiVolumeManager.VolumeSpec spec, String claim) {}

  private static final Logger LOG = LoggerFactory.getLogger(CsiVolumes.class);

  private final String nodeName;
  private final GatewayClient api;
  private final PluginWatcher watcher;
  private final CsiVolumeManager manager;
  private final ExecutorService calls;

  CsiVolumes(String nodeName, GatewayClient api, Path nodeRoot) {
    this.nodeName = nodeName;
    this.api = api;
    this.calls =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread thread = new Thread(r, "csi-" + nodeName);
              thread.setDaemon(true);
              return thread;
            });
    try {
      this.watcher = new PluginWatcher(PluginWatcher.registryIn(nodeRoot), new NodeInfo(), 1000);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot watch " + nodeRoot, e);
    }
    this.manager = new CsiVolumeManager(nodeRoot, watcher::driver);
  }

  /** The volumes in use on the node, as {@code node.status.volumesInUse} reports them. */
  List<String> volumesInUse() {
    return manager.volumesInUse();
  }

  /** Whether the pod has volumes this manager sets up. */
  static boolean needed(Pod pod) {
    return pod.getSpec().getVolumes() != null
        && pod.getSpec().getVolumes().stream()
            .anyMatch(
                v ->
                    v.getPersistentVolumeClaim() != null
                        || v.getCsi() != null
                        || v.getEphemeral() != null);
  }

  /** Sets up the pod's claims and inline CSI volumes; what was set up, by volume name. */
  CompletableFuture<Map<String, Mounted>> setUp(Pod pod) {
    String uid = pod.getMetadata().getUid();
    String namespace = pod.getMetadata().getNamespace();
    Map<String, Mounted> mounted = new LinkedHashMap<>();
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (Volume volume : pod.getSpec().getVolumes()) {
      if (volume.getCsi() != null) {
        var csi = volume.getCsi();
        Map<String, String> context = new LinkedHashMap<>();
        if (csi.getVolumeAttributes() != null) {
          context.putAll(csi.getVolumeAttributes());
        }
        context.put(CsiVolumeManager.EPHEMERAL, "true");
        context.put("csi.storage.k8s.io/pod.name", pod.getMetadata().getName());
        context.put("csi.storage.k8s.io/pod.namespace", namespace);
        context.put("csi.storage.k8s.io/pod.uid", uid);
        CsiVolumeManager.VolumeSpec spec =
            new CsiVolumeManager.VolumeSpec(
                csi.getDriver(),
                CsiVolumeManager.inlineHandle(uid, volume.getName()),
                volume.getName(),
                Boolean.TRUE.equals(csi.getReadOnly()),
                csi.getFsType() == null ? "" : csi.getFsType(),
                context);
        chain =
            chain.thenRunAsync(() -> publish(uid, volume.getName(), spec, null, mounted), calls);
      } else if (volume.getPersistentVolumeClaim() != null || volume.getEphemeral() != null) {
        // a generic ephemeral volume is the claim <pod>-<volume> made for it
        String claim =
            volume.getEphemeral() != null
                ? pod.getMetadata().getName() + "-" + volume.getName()
                : volume.getPersistentVolumeClaim().getClaimName();
        boolean readOnly =
            volume.getPersistentVolumeClaim() != null
                && Boolean.TRUE.equals(volume.getPersistentVolumeClaim().getReadOnly());
        chain =
            chain
                .thenCompose(v -> claimedVolume(namespace, claim, volume.getName(), readOnly))
                .thenAcceptAsync(
                    spec -> publish(uid, volume.getName(), spec, claim, mounted), calls);
      }
    }
    return chain.thenApply(v -> mounted);
  }

  private void publish(
      String uid,
      String volume,
      CsiVolumeManager.VolumeSpec spec,
      String claim,
      Map<String, Mounted> mounted) {
    try {
      if (spec.driver().isEmpty()) {
        mounted.put(volume, new Mounted(volume, spec, claim)); // a host path: nothing to call
        return;
      }
      manager.setUp(uid, spec);
      mounted.put(volume, new Mounted(volume, spec, claim));
    } catch (CsiVolumeManager.MountFailure e) {
      throw new FailedMount(e.getMessage());
    }
  }

  /** Where a set-up volume is, for the containers' mounts. */
  Path path(String podUid, Mounted mounted) {
    if (mounted.spec().driver().isEmpty()) {
      return Path.of(mounted.spec().volumeHandle());
    }
    return manager.podMount(podUid, mounted.spec().name());
  }

  /** The claim's PersistentVolume as the spec of a volume to publish. */
  private CompletableFuture<CsiVolumeManager.VolumeSpec> claimedVolume(
      String namespace, String claim, String volume, boolean readOnly) {
    String claimKey = namespace + "/" + claim;
    return api.get("/api/v1/namespaces/" + namespace + "/persistentvolumeclaims/" + claim)
        .thenCompose(
            reply -> {
              if (reply.status() == 404) {
                throw new FailedMount(
                    "Unable to attach or mount volumes: unmounted volumes=["
                        + volume
                        + "]: error processing PVC "
                        + claimKey
                        + ": persistentvolumeclaim \""
                        + claim
                        + "\" not found");
              }
              if (!reply.ok()) {
                throw new FailedMount("error processing PVC " + claimKey + ": " + reply);
              }
              String pv = reply.body().path("spec").path("volumeName").asText("");
              if (pv.isEmpty()
                  || !"Bound".equals(reply.body().path("status").path("phase").asText())) {
                throw new FailedMount(
                    "Unable to attach or mount volumes: unmounted volumes=["
                        + volume
                        + "]: error processing PVC "
                        + claimKey
                        + ": PVC is not bound");
              }
              return api.get("/api/v1/persistentvolumes/" + pv)
                  .thenApply(pvReply -> volumeSpec(pvReply, pv, readOnly))
                  .thenCompose(this::attached);
            });
  }

  /**
   * The volume with its publish context once attached (the kubelet's csi_attacher WaitForAttach):
   * for a driver that attaches (its CSIDriver's {@code attachRequired}, or no CSIDriver), the
   * VolumeAttachment of the volume on this node must be attached, else the mount fails and is
   * retried; its {@code attachmentMetadata} is the publish context.
   */
  private CompletableFuture<CsiVolumeManager.VolumeSpec> attached(
      CsiVolumeManager.VolumeSpec spec) {
    if (spec.driver().isEmpty()) {
      return CompletableFuture.completedFuture(spec);
    }
    String failed = "MountVolume.WaitForAttach failed for volume \"" + spec.name() + "\" : ";
    return api.get("/apis/storage.k8s.io/v1/csidrivers/" + spec.driver())
        .thenCompose(
            driver -> {
              if (!driver.ok() && driver.status() != 404) {
                throw new FailedMount(failed + driver.body().path("message").asText("" + driver));
              }
              if (driver.ok()
                  && !driver.body().path("spec").path("attachRequired").asBoolean(true)) {
                return CompletableFuture.completedFuture(spec);
              }
              String name = VolumeAttachmentNames.of(spec.volumeHandle(), spec.driver(), nodeName);
              return api.get("/apis/storage.k8s.io/v1/volumeattachments/" + name)
                  .thenApply(reply -> attachedSpec(spec, name, reply, failed));
            });
  }

  static CsiVolumeManager.VolumeSpec attachedSpec(
      CsiVolumeManager.VolumeSpec spec, String name, GatewayClient.Reply reply, String failed) {
    JsonNode attachment = reply.body();
    JsonNode status = attachment.path("status");
    boolean deleting =
        reply.ok()
            && !attachment.path("metadata").path("deletionTimestamp").isMissingNode()
            && !attachment.path("metadata").path("deletionTimestamp").isNull();
    if (reply.ok() && !deleting && status.path("attached").asBoolean(false)) {
      Map<String, String> context = new LinkedHashMap<>();
      status
          .path("attachmentMetadata")
          .fields()
          .forEachRemaining(e -> context.put(e.getKey(), e.getValue().asText()));
      return spec.withPublishContext(context);
    }
    if (deleting) {
      throw new FailedMount(failed + "volume attachment is being deleted");
    }
    String error = status.path("attachError").path("message").asText("");
    throw new FailedMount(
        failed
            + (error.isEmpty()
                ? "volume " + spec.volumeHandle() + " is not attached for volume attachment " + name
                : error));
  }

  private static CsiVolumeManager.VolumeSpec volumeSpec(
      GatewayClient.Reply reply, String pv, boolean readOnly) {
    if (!reply.ok()) {
      throw new FailedMount(
          "MountVolume.NewMounter initialization failed for volume \""
              + pv
              + "\" : "
              + reply.body().path("message").asText(reply.toString()));
    }
    JsonNode spec = reply.body().path("spec");
    JsonNode csi = spec.path("csi");
    if (csi.isObject()) {
      Map<String, String> context = new LinkedHashMap<>();
      csi.path("volumeAttributes")
          .fields()
          .forEachRemaining(e -> context.put(e.getKey(), e.getValue().asText()));
      return new CsiVolumeManager.VolumeSpec(
          csi.path("driver").asText(),
          csi.path("volumeHandle").asText(),
          pv,
          readOnly || csi.path("readOnly").asBoolean(false),
          csi.path("fsType").asText(""),
          context);
    }
    String path =
        spec.path("hostPath").path("path").asText(spec.path("local").path("path").asText(""));
    if (!path.isEmpty()) {
      return new CsiVolumeManager.VolumeSpec("", path, pv, readOnly, "", Map.of());
    }
    throw new FailedMount(
        "MountVolume.NewMounter initialization failed for volume \""
            + pv
            + "\" : this node mounts only csi, hostPath and local volumes");
  }

  /** A volume the node expanded: its PersistentVolume's name and new capacity. */
  record Expanded(String volume, String capacity) {}

  /**
   * Node expansion of the pod's claims whose PersistentVolume grew beyond the claim's {@code
   * status.capacity}: NodeExpandVolume, then the claim's status capacity is the volume's and its
   * FileSystemResizePending condition is gone (the kubelet's NodeExpandVolume operation). Completes
   * with the volumes expanded, or exceptionally with a {@link FailedMount} carrying the kubelet's
   * message of the first that failed.
   */
  CompletableFuture<List<Expanded>> expand(String podUid, List<Mounted> mounted, String namespace) {
    List<Expanded> expanded = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (Mounted m : mounted) {
      if (m.claim() == null || m.spec().driver().isEmpty()) {
        continue;
      }
      String claimPath = "/api/v1/namespaces/" + namespace + "/persistentvolumeclaims/" + m.claim();
      chain =
          chain.thenCompose(
              v ->
                  api.get(claimPath)
                      .thenCombine(
                          api.get("/api/v1/persistentvolumes/" + m.spec().name()),
                          (claim, pv) -> {
                            if (!claim.ok() || !pv.ok()) {
                              return null;
                            }
                            String want =
                                pv.body().path("spec").path("capacity").path("storage").asText("");
                            String have =
                                claim
                                    .body()
                                    .path("status")
                                    .path("capacity")
                                    .path("storage")
                                    .asText("");
                            if (want.isEmpty()
                                || have.isEmpty()
                                || Quantities.value(want) <= Quantities.value(have)) {
                              return null;
                            }
                            return new Object[] {claim.body(), want};
                          })
                      .thenComposeAsync(
                          grown -> {
                            if (grown == null) {
                              return CompletableFuture.completedFuture(null);
                            }
                            JsonNode claim = (JsonNode) grown[0];
                            String want = (String) grown[1];
                            try {
                              manager.expand(podUid, m.spec(), Quantities.value(want));
                            } catch (CsiVolumeManager.MountFailure e) {
                              throw new FailedMount(e.getMessage());
                            }
                            expanded.add(new Expanded(m.spec().name(), want));
                            return api.mergePatch(claimPath + "/status", resizedStatus(claim, want))
                                .thenAccept(
                                    reply -> {
                                      if (!reply.ok()) {
                                        LOG.info(
                                            "node {}: claim {} status not written: {}",
                                            nodeName,
                                            m.claim(),
                                            reply);
                                      }
                                    });
                          },
                          calls));
    }
    return chain.thenApply(v -> List.copyOf(expanded));
  }

  /** The merge patch of a claim's status once its file system grew to {@code capacity}. */
  static String resizedStatus(JsonNode claim, String capacity) {
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    ObjectNode status = patch.putObject("status");
    status.putObject("capacity").put("storage", capacity);
    ArrayNode conditions = status.putArray("conditions");
    for (JsonNode condition : claim.path("status").path("conditions")) {
      String type = condition.path("type").asText();
      if (!type.equals("FileSystemResizePending") && !type.equals("Resizing")) {
        conditions.add(condition);
      }
    }
    status.putNull("allocatedResourceStatuses");
    return KubeJson.writeJson(patch);
  }

  /** Unpublishes (and unstages) the pod's volumes; failures are logged, not retried. */
  CompletableFuture<Void> tearDown(String podUid, List<Mounted> mounted) {
    return CompletableFuture.runAsync(
        () -> {
          for (Mounted m : mounted) {
            if (m.spec().driver().isEmpty()) {
              continue;
            }
            try {
              manager.tearDown(podUid, m.spec());
            } catch (CsiVolumeManager.MountFailure e) {
              LOG.warn("node {}: {}", nodeName, e.getMessage());
            }
          }
        },
        calls);
  }

  @Override
  public void close() {
    watcher.close();
    calls.shutdown(); // tear-downs already asked for still run: a stopping pod waits for them
  }

  /** What the kubelet's nodeinfomanager writes when a driver registers or leaves. */
  private final class NodeInfo implements PluginWatcher.Listener {
    private final String path = "/apis/storage.k8s.io/v1/csinodes/" + nodeName;

    @Override
    public void registered(CsiDriverRegistration driver) throws Exception {
      if (!driver.topology().isEmpty()) {
        ObjectNode labels = JsonNodeFactory.instance.objectNode();
        driver.topology().forEach(labels::put);
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        patch.putObject("metadata").set("labels", labels);
        GatewayClient.Reply labeled =
            api.mergePatch("/api/v1/nodes/" + nodeName, KubeJson.writeJson(patch)).join();
        if (!labeled.ok()) {
          throw new IllegalStateException("labeling node " + nodeName + ": " + labeled);
        }
      }
      ObjectNode entry = JsonNodeFactory.instance.objectNode();
      entry.put("name", driver.name());
      entry.put("nodeID", driver.nodeId());
      ArrayNode keys = entry.putArray("topologyKeys");
      driver.topologyKeys().forEach(keys::add);
      if (driver.maxVolumesPerNode() > 0) {
        entry.putObject("allocatable").put("count", driver.maxVolumesPerNode());
      }
      writeDrivers(driver.name(), entry);
    }

    @Override
    public void deregistered(String driverName) throws Exception {
      writeDrivers(driverName, null);
    }

    /** The CSINode with the entry of {@code name} replaced by {@code entry} (null: removed). */
    private void writeDrivers(String name, ObjectNode entry) {
      for (int attempt = 0; attempt < NodeAgent.MAX_CONFLICT_RETRIES; attempt++) {
        GatewayClient.Reply current = api.get(path).join();
        GatewayClient.Reply written;
        if (current.status() == 404) {
          if (entry == null) {
            return;
          }
          GatewayClient.Reply node = api.get("/api/v1/nodes/" + nodeName).join();
          ObjectNode csiNode = JsonNodeFactory.instance.objectNode();
          csiNode.put("apiVersion", "storage.k8s.io/v1");
          csiNode.put("kind", "CSINode");
          ObjectNode metadata = csiNode.putObject("metadata");
          metadata.put("name", nodeName);
          if (node.ok()) {
            ObjectNode owner = metadata.putArray("ownerReferences").addObject();
            owner.put("apiVersion", "v1");
            owner.put("kind", "Node");
            owner.put("name", nodeName);
            owner.put("uid", node.body().path("metadata").path("uid").asText());
          }
          csiNode.putObject("spec").putArray("drivers").add(entry);
          written =
              api.postJson("/apis/storage.k8s.io/v1/csinodes", KubeJson.writeJson(csiNode)).join();
        } else if (current.ok()) {
          ObjectNode csiNode = (ObjectNode) current.body();
          ArrayNode drivers = JsonNodeFactory.instance.arrayNode();
          for (JsonNode d : csiNode.path("spec").path("drivers")) {
            if (!d.path("name").asText().equals(name)) {
              drivers.add(d);
            }
          }
          if (entry != null) {
            drivers.add(entry);
          }
          ((ObjectNode) csiNode.with("spec")).set("drivers", drivers);
          written = api.putJson(path, KubeJson.writeJson(csiNode)).join();
        } else {
          throw new IllegalStateException("reading CSINode " + nodeName + ": " + current);
        }
        if (written.ok()) {
          return;
        }
        if (written.status() != 409) {
          throw new IllegalStateException("writing CSINode " + nodeName + ": " + written);
        }
      }
      throw new IllegalStateException("writing CSINode " + nodeName + ": conflicts");
    }
  }
}
