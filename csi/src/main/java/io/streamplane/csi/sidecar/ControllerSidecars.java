package io.streamplane.csi.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.streamplane.csi.UnixSockets;
import io.streamplane.csi.node.CsiVolumeManager;
import io.streamplane.csi.v1.ControllerExpandVolumeRequest;
import io.streamplane.csi.v1.ControllerExpandVolumeResponse;
import io.streamplane.csi.v1.ControllerGrpc;
import io.streamplane.csi.v1.CreateVolumeRequest;
import io.streamplane.csi.v1.DeleteVolumeRequest;
import io.streamplane.csi.v1.Volume;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller sidecars of a CSI driver, as Kubernetes API clients: the provisioner
 * (external-provisioner: a claim annotated for the driver gets a volume — CreateVolume with the
 * class's parameters, the claim's size and the selected node's topology — and a PersistentVolume
 * bound ahead to it; a Released volume of reclaim policy Delete is deleted — DeleteVolume, then the
 * PersistentVolume) and the resizer (external-resizer: a bound claim whose request grew gets
 * ControllerExpandVolume, the volume's new capacity, and FileSystemResizePending until the node
 * finishes), and, for a driver that attaches, the attacher (external-attacher: a VolumeAttachment
 * of the driver for this node gets the attacher's finalizer, ControllerPublishVolume, and {@code
 * status.attached} with the publish context as {@code attachmentMetadata}, or {@code attachError};
 * a deleted one gets ControllerUnpublishVolume, then loses the finalizer), and the capacity
 * publisher (external-provisioner's storage capacity: a CSIStorageCapacity per StorageClass of the
 * driver for this node's topology segment, of what GetCapacity answers). The driver is called over
 * its socket, as a sidecar container calls it.
 *
 * <p>Contract: every {@code period} the claims and volumes are listed and each is brought one step
 * on; a failed step is logged and tried again at the next pass. A pass over objects that need
 * nothing writes nothing.
 */
public final class ControllerSidecars implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ControllerSidecars.class);

  private final String driver;
  private final String topologyKey;
  private final String nodeId;
  private final boolean immediate;
  private final boolean attach;
  private final KubeApi api;
  private final ManagedChannel channel;
  private final ScheduledExecutorService loop;

  /**
   * The sidecars of the driver of node {@code nodeId}, whose volumes carry {@code topologyKey}:
   * they serve the claims whose selected node is {@code nodeId} (and those with none when {@code
   * immediate}) and the volumes whose node affinity is that node.
   */
  public ControllerSidecars(
      String driver,
      String topologyKey,
      String nodeId,
      boolean immediate,
      boolean attach,
      KubeApi api,
      Path csiSocket,
      long periodMillis) {
    this.driver = driver;
    this.topologyKey = topologyKey;
    this.nodeId = nodeId;
    this.immediate = immediate;
    this.attach = attach;
    this.api = api;
    this.channel = UnixSockets.connect(csiSocket);
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "csi-sidecars");
              thread.setDaemon(true);
              return thread;
            });
    loop.scheduleWithFixedDelay(this::pass, 0, periodMillis, TimeUnit.MILLISECONDS);
  }

  private ControllerGrpc.ControllerBlockingStub controller() {
    return ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private void pass() {
    try {
      KubeApi.Reply claims = api.get("/api/v1/persistentvolumeclaims");
      KubeApi.Reply volumes = api.get("/api/v1/persistentvolumes");
      if (!claims.ok() || !volumes.ok()) {
        LOG.warn("cannot list claims and volumes: {} / {}", claims.status(), volumes.status());
        return;
      }
      Map<String, JsonNode> pvs = new HashMap<>();
      for (JsonNode pv : volumes.body().path("items")) {
        pvs.put(pv.path("metadata").path("name").asText(), pv);
      }
      Map<String, JsonNode> classes = new HashMap<>();
      for (JsonNode claim : claims.body().path("items")) {
        try {
          provision(claim, pvs, classes);
          expand(claim, pvs);
        } catch (IOException | RuntimeException e) {
          LOG.warn(
              "claim {}/{}: {}",
              claim.path("metadata").path("namespace").asText(),
              claim.path("metadata").path("name").asText(),
              e.toString());
        }
      }
      for (JsonNode pv : pvs.values()) {
        try {
          delete(pv);
        } catch (IOException | RuntimeException e) {
          LOG.warn("volume {}: {}", pv.path("metadata").path("name").asText(), e.toString());
        }
      }
      if (attach) {
        attachments(pvs);
      }
      capacities();
    } catch (IOException | RuntimeException e) {
      LOG.warn("sidecar pass failed: {}", e.toString());
    }
  }

  /** An event about a claim, from this node's sidecars; one already written is left as it is. */
  private void recordEvent(
      JsonNode claim, String type, String reason, String message, String seed) {
    try {
      KubeApi.Reply written =
          api.post(
              "/api/v1/namespaces/" + claim.path("metadata").path("namespace").asText() + "/events",
              Provisioning.claimEvent(
                  claim, driver + "_" + nodeId, type, reason, message, seed, now()));
      if (!written.ok() && written.status() != 409) {
        LOG.warn("event {} not written: {}", reason, written);
      }
    } catch (IOException e) {
      LOG.warn("event {} not written: {}", reason, e.toString());
    }
  }

  /**
   * external-provisioner's capacity: a CSIStorageCapacity per class of the driver, for its node.
   */
  private void capacities() throws IOException {
    KubeApi.Reply classes = api.get("/apis/storage.k8s.io/v1/storageclasses");
    String path =
        "/apis/storage.k8s.io/v1/namespaces/" + Capacities.NAMESPACE + "/csistoragecapacities";
    KubeApi.Reply stored = api.get(path);
    if (!classes.ok() || !stored.ok()) {
      LOG.warn("cannot list classes and capacities: {} / {}", classes.status(), stored.status());
      return;
    }
    Map<String, JsonNode> ours = new HashMap<>();
    for (JsonNode capacity : stored.body().path("items")) {
      if (Capacities.ours(capacity, driver, nodeId)) {
        ours.put(capacity.path("metadata").path("name").asText(), capacity);
      }
    }
    for (JsonNode storageClass : classes.body().path("items")) {
      if (!driver.equals(storageClass.path("provisioner").asText())) {
        continue;
      }
      String className = storageClass.path("metadata").path("name").asText();
      com.fasterxml.jackson.databind.node.ObjectNode wanted;
      try {
        wanted =
            Capacities.capacity(
                driver,
                topologyKey,
                nodeId,
                className,
                controller().getCapacity(Capacities.request(storageClass, topologyKey, nodeId)));
      } catch (StatusRuntimeException e) {
        LOG.warn("GetCapacity for class {}: {}", className, e.getStatus());
        continue;
      }
      JsonNode existing = ours.remove(wanted.path("metadata").path("name").asText());
      KubeApi.Reply written = null;
      if (existing == null) {
        written = api.post(path, wanted);
      } else if (Capacities.differs(existing, wanted)) {
        written =
            api.put(
                path + "/" + existing.path("metadata").path("name").asText(),
                Capacities.updated(existing, wanted));
      }
      if (written != null && !written.ok() && written.status() != 409) {
        LOG.warn("capacity of class {}: {}", className, written);
      }
    }
    for (String obsolete : ours.keySet()) {
      KubeApi.Reply deleted = api.delete(path + "/" + obsolete);
      if (!deleted.ok() && deleted.status() != 404) {
        LOG.warn("deleting capacity {}: {}", obsolete, deleted);
      }
    }
  }

  private static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private void attachments(Map<String, JsonNode> pvs) throws IOException {
    KubeApi.Reply list = api.get("/apis/storage.k8s.io/v1/volumeattachments");
    if (!list.ok()) {
      LOG.warn("cannot list volume attachments: {}", list.status());
      return;
    }
    String csiNodeId = null;
    for (JsonNode attachment : list.body().path("items")) {
      if (!Attaching.ours(attachment, driver, nodeId)
          || !(Attaching.toAttach(attachment) || Attaching.toDetach(attachment, driver))) {
        continue;
      }
      String name = attachment.path("metadata").path("name").asText();
      try {
        if (csiNodeId == null) {
          KubeApi.Reply csiNode = api.get("/apis/storage.k8s.io/v1/csinodes/" + nodeId);
          csiNodeId = csiNode.ok() ? Attaching.nodeId(csiNode.body(), driver).orElse(null) : null;
          if (csiNodeId == null) {
            throw new IllegalStateException(
                "driver " + driver + " is not registered on node " + nodeId);
          }
        }
        String path = "/apis/storage.k8s.io/v1/volumeattachments/" + name;
        JsonNode pv =
            pvs.get(attachment.path("spec").path("source").path("persistentVolumeName").asText());
        if (Attaching.toAttach(attachment)) {
          attachOne(path, attachment, pv, csiNodeId);
        } else {
          detachOne(path, attachment, pv, csiNodeId);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("volume attachment {}: {}", name, e.toString());
      }
    }
  }

  private void attachOne(String path, JsonNode attachment, JsonNode pv, String csiNodeId)
      throws IOException {
    Optional<com.fasterxml.jackson.databind.node.ObjectNode> finalizer =
        Attaching.withFinalizer(attachment, driver);
    if (finalizer.isPresent()) {
      KubeApi.Reply written = api.mergePatch(path, finalizer.get());
      if (!written.ok()) {
        throw new IllegalStateException("adding the finalizer: " + written);
      }
      return; // attached at the next pass, from the object with its finalizer
    }
    if (pv == null || !pv.path("spec").path("csi").isObject()) {
      api.mergePatch(
          path + "/status",
          Attaching.attachFailed(
              "persistentvolume \""
                  + attachment.path("spec").path("source").path("persistentVolumeName").asText()
                  + "\" not found or not a CSI volume",
              now()));
      return;
    }
    com.fasterxml.jackson.databind.node.ObjectNode status;
    try {
      status =
          Attaching.attached(
              controller()
                  .controllerPublishVolume(Attaching.publish(pv, csiNodeId))
                  .getPublishContextMap());
    } catch (StatusRuntimeException e) {
      String message = CsiVolumeManager.rpcError(e);
      if (message.equals(attachment.path("status").path("attachError").path("message").asText())) {
        return; // failing as it was: tried again at the next pass, nothing new to write
      }
      status = Attaching.attachFailed(message, now());
    }
    KubeApi.Reply written = api.mergePatch(path + "/status", status);
    if (!written.ok()) {
      throw new IllegalStateException("writing the attachment's status: " + written);
    }
    LOG.info(
        "volume attachment {}: {}",
        attachment.path("metadata").path("name").asText(),
        status.path("status"));
  }

  private void detachOne(String path, JsonNode attachment, JsonNode pv, String csiNodeId)
      throws IOException {
    if (pv != null && pv.path("spec").path("csi").isObject()) {
      try {
        controller().controllerUnpublishVolume(Attaching.unpublish(pv, csiNodeId));
      } catch (StatusRuntimeException e) {
        api.mergePatch(
            path + "/status", Attaching.detachFailed(CsiVolumeManager.rpcError(e), now()));
        throw new IllegalStateException("ControllerUnpublishVolume: " + e.getStatus(), e);
      }
    }
    KubeApi.Reply written = api.mergePatch(path, Attaching.withoutFinalizer(attachment, driver));
    if (!written.ok() && written.status() != 404) {
      throw new IllegalStateException("removing the finalizer: " + written);
    }
    LOG.info("detached volume attachment {}", attachment.path("metadata").path("name").asText());
  }

  private JsonNode storageClass(String name, Map<String, JsonNode> classes) throws IOException {
    if (name.isEmpty()) {
      return null;
    }
    if (!classes.containsKey(name)) {
      KubeApi.Reply reply = api.get("/apis/storage.k8s.io/v1/storageclasses/" + name);
      classes.put(name, reply.ok() ? reply.body() : null);
    }
    return classes.get(name);
  }

  private void provision(JsonNode claim, Map<String, JsonNode> pvs, Map<String, JsonNode> classes)
      throws IOException {
    JsonNode storageClass =
        storageClass(claim.path("spec").path("storageClassName").asText(""), classes);
    if (!Provisioning.wantsVolume(claim, storageClass, driver)
        || !Provisioning.forNode(claim, nodeId, immediate)
        || pvs.containsKey(Provisioning.volumeName(claim))) {
      return;
    }
    Map<String, String> topology = Map.of();
    String node =
        claim.path("metadata").path("annotations").path(Provisioning.SELECTED_NODE).asText("");
    if (!node.isEmpty()) {
      KubeApi.Reply csiNode = api.get("/apis/storage.k8s.io/v1/csinodes/" + node);
      KubeApi.Reply nodeObject = api.get("/api/v1/nodes/" + node);
      if (!csiNode.ok() || !nodeObject.ok()) {
        throw new IllegalStateException(
            "the selected node " + node + " or its CSINode cannot be read: " + csiNode.status());
      }
      topology = Provisioning.nodeTopology(csiNode.body(), nodeObject.body(), driver);
      if (topology.isEmpty()) {
        throw new IllegalStateException(
            "driver " + driver + " is not registered on the selected node " + node);
      }
    }
    CreateVolumeRequest request = Provisioning.createVolume(claim, storageClass, topology);
    String claimKey =
        claim.path("metadata").path("namespace").asText()
            + "/"
            + claim.path("metadata").path("name").asText();
    String uid = claim.path("metadata").path("uid").asText();
    recordEvent(
        claim,
        "Normal",
        "Provisioning",
        "External provisioner is provisioning volume for claim \"" + claimKey + "\"",
        uid + "/Provisioning");
    Volume volume;
    try {
      volume = controller().createVolume(request).getVolume();
    } catch (StatusRuntimeException e) {
      String message =
          "failed to provision volume with StorageClass \""
              + storageClass.path("metadata").path("name").asText()
              + "\": "
              + CsiVolumeManager.rpcError(e);
      recordEvent(claim, "Warning", "ProvisioningFailed", message, uid + "/failed/" + message);
      throw new IllegalStateException("CreateVolume: " + e.getStatus(), e);
    }
    KubeApi.Reply created =
        api.post(
            "/api/v1/persistentvolumes",
            Provisioning.persistentVolume(claim, storageClass, volume, driver));
    if (!created.ok() && created.status() != 409) {
      throw new IllegalStateException("creating the PersistentVolume: " + created);
    }
    recordEvent(
        claim,
        "Normal",
        "ProvisioningSucceeded",
        "Successfully provisioned volume " + request.getName(),
        uid + "/ProvisioningSucceeded");
    LOG.info(
        "provisioned {} ({} bytes) for claim {}/{}",
        request.getName(),
        volume.getCapacityBytes(),
        claim.path("metadata").path("namespace").asText(),
        claim.path("metadata").path("name").asText());
  }

  private void delete(JsonNode pv) throws IOException {
    Optional<String> handle = Provisioning.toDelete(pv, driver);
    if (handle.isEmpty() || !Provisioning.onNode(pv, topologyKey, nodeId)) {
      return;
    }
    try {
      controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(handle.get()).build());
    } catch (StatusRuntimeException e) {
      throw new IllegalStateException("DeleteVolume: " + e.getStatus(), e);
    }
    String name = pv.path("metadata").path("name").asText();
    KubeApi.Reply deleted = api.delete("/api/v1/persistentvolumes/" + name);
    if (!deleted.ok() && deleted.status() != 404) {
      throw new IllegalStateException("deleting the PersistentVolume: " + deleted);
    }
    LOG.info("deleted volume {} of released {}", handle.get(), name);
  }

  private void expand(JsonNode claim, Map<String, JsonNode> pvs) throws IOException {
    JsonNode pv = pvs.get(claim.path("spec").path("volumeName").asText(""));
    Optional<ControllerExpandVolumeRequest> request = Provisioning.toExpand(claim, pv, driver);
    if (request.isEmpty() || !Provisioning.onNode(pv, topologyKey, nodeId)) {
      return;
    }
    String name = pv.path("metadata").path("name").asText();
    String seed =
        claim.path("metadata").path("uid").asText()
            + "/"
            + request.get().getCapacityRange().getRequiredBytes();
    recordEvent(
        claim,
        "Normal",
        "Resizing",
        "External resizer is resizing volume " + name,
        seed + "/Resizing");
    ControllerExpandVolumeResponse expanded;
    try {
      expanded = controller().controllerExpandVolume(request.get());
    } catch (StatusRuntimeException e) {
      String message =
          "resize volume \""
              + name
              + "\" by resizer \""
              + driver
              + "\" failed: "
              + CsiVolumeManager.rpcError(e);
      recordEvent(claim, "Warning", "VolumeResizeFailed", message, seed + "/failed/" + message);
      throw new IllegalStateException("ControllerExpandVolume: " + e.getStatus(), e);
    }
    KubeApi.Reply volume =
        api.mergePatch(
            "/api/v1/persistentvolumes/" + name,
            Provisioning.expandedVolume(expanded.getCapacityBytes()));
    if (!volume.ok()) {
      throw new IllegalStateException("writing the volume's capacity: " + volume);
    }
    String claimPath =
        "/api/v1/namespaces/"
            + claim.path("metadata").path("namespace").asText()
            + "/persistentvolumeclaims/"
            + claim.path("metadata").path("name").asText()
            + "/status";
    KubeApi.Reply status =
        api.mergePatch(
            claimPath,
            Provisioning.expandedClaim(
                claim,
                expanded.getCapacityBytes(),
                expanded.getNodeExpansionRequired(),
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()));
    if (!status.ok()) {
      throw new IllegalStateException("writing the claim's status: " + status);
    }
    if (expanded.getNodeExpansionRequired()) {
      recordEvent(
          claim,
          "Normal",
          "FileSystemResizeRequired",
          "Require file system resize of volume on node",
          seed + "/FileSystemResizeRequired");
    } else {
      recordEvent(
          claim,
          "Normal",
          "VolumeResizeSuccessful",
          "Resize volume succeeded",
          seed + "/VolumeResizeSuccessful");
    }
    LOG.info("expanded {} to {} bytes", name, expanded.getCapacityBytes());
  }

  @Override
  public void close() throws InterruptedException {
    loop.shutdownNow();
    loop.awaitTermination(5, TimeUnit.SECONDS);
    channel.shutdownNow();
  }
}
