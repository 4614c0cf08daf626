package io.streamplane.csi.hostpath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.streamplane.csi.UnixSockets;
import io.streamplane.csi.v1.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host-path driver's three services, called over a Unix socket as a node and sidecar do. */
class HostPathDriverTest {

  private static final long MI = 1L << 20;

  @TempDir Path dir;

  private HostPathPlugin plugin;
  private ManagedChannel channel;
  private IdentityGrpc.IdentityBlockingStub identity;
  private ControllerGrpc.ControllerBlockingStub controller;
  private NodeGrpc.NodeBlockingStub node;

  @BeforeEach
  void start() throws Exception {
    Path root = dir.resolve("root");
    plugin =
        HostPathPlugin.start(
            new HostPathConfig(
                HostPathConfig.DRIVER_NAME,
                "node-0",
                root,
                100 * MI,
                Mounts.Mode.SYMLINK,
                HostPathConfig.defaultFailMarker(root)),
            dir.resolve("csi.sock"),
            null);
    channel = UnixSockets.connect(dir.resolve("csi.sock"));
    identity = IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    controller = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    node = NodeGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    plugin.close();
  }

  private static VolumeCapability mount() {
    return VolumeCapability.newBuilder()
        .setMount(VolumeCapability.MountVolume.getDefaultInstance())
        .setAccessMode(
            VolumeCapability.AccessMode.newBuilder()
                .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
        .build();
  }

  private CreateVolumeRequest.Builder create(String name, long bytes) {
    return CreateVolumeRequest.newBuilder()
        .setName(name)
        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
        .addVolumeCapabilities(mount());
  }

  private long available() {
    return controller.getCapacity(GetCapacityRequest.getDefaultInstance()).getAvailableCapacity();
  }

  private static Status.Code code(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void identityNamesTheDriverAndItsCapabilities() {
    assertThat(identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName())
        .isEqualTo("hostpath.csi.streamplane.io");
    assertThat(identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isTrue();
    assertThat(
            identity
                .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.hasService() ? c.getService().getType().name() : "expansion")
        .containsExactly("CONTROLLER_SERVICE", "VOLUME_ACCESSIBILITY_CONSTRAINTS", "expansion");
    assertThat(
            node.nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .containsExactly(
            NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME,
            NodeServiceCapability.RPC.Type.EXPAND_VOLUME);
    NodeGetInfoResponse info = node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
    assertThat(info.getNodeId()).isEqualTo("node-0");
    assertThat(info.getAccessibleTopology().getSegmentsMap())
        .containsExactly(
            java.util.Map.entry("topology.hostpath.csi.streamplane.io/node", "node-0"));
  }

  @Test
  void createIsIdempotentByNameAndAccountsCapacity() {
    Volume first = controller.createVolume(create("pvc-1", 30 * MI).build()).getVolume();
    Volume again = controller.createVolume(create("pvc-1", 30 * MI).build()).getVolume();
    assertThat(again.getVolumeId()).isEqualTo(first.getVolumeId());
    assertThat(first.getCapacityBytes()).isEqualTo(30 * MI);
    assertThat(first.getAccessibleTopology(0).getSegmentsMap())
        .containsEntry(HostPathConfig.TOPOLOGY_KEY, "node-0");
    assertThat(Files.isDirectory(plugin.driver().volumes().directory(first.getVolumeId())))
        .isTrue();
    assertThat(available()).isEqualTo(70 * MI);
    // the same name asking for more than it has is a conflict, not a second volume
    assertThat(code(() -> controller.createVolume(create("pvc-1", 40 * MI).build())))
        .isEqualTo(Status.Code.ALREADY_EXISTS);
    // more than the node has left
    assertThat(code(() -> controller.createVolume(create("pvc-2", 71 * MI).build())))
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(available()).isEqualTo(70 * MI);
    // another node's capacity is none of this driver's
    assertThat(
            controller
                .getCapacity(
                    GetCapacityRequest.newBuilder()
                        .setAccessibleTopology(
                            Topology.newBuilder()
                                .putSegments(HostPathConfig.TOPOLOGY_KEY, "node-9"))
                        .build())
                .getAvailableCapacity())
        .isZero();
  }

  @Test
  void createRefusesBadRequestsAndOtherNodesTopology() {
    assertThat(code(() -> controller.createVolume(create("", MI).build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(
            code(
                () ->
                    controller.createVolume(
                        create("b", MI)
                            .clearVolumeCapabilities()
                            .addVolumeCapabilities(
                                VolumeCapability.newBuilder()
                                    .setBlock(VolumeCapability.BlockVolume.getDefaultInstance()))
                            .build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    Topology elsewhere =
        Topology.newBuilder().putSegments(HostPathConfig.TOPOLOGY_KEY, "node-1").build();
    assertThat(
            code(
                () ->
                    controller.createVolume(
                        create("c", MI)
                            .setAccessibilityRequirements(
                                TopologyRequirement.newBuilder().addRequisite(elsewhere))
                            .build())))
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(available()).isEqualTo(100 * MI);
  }

  @Test
  void stagePublishWriteUnpublishUnstageThenDelete() throws Exception {
    String id = controller.createVolume(create("pvc-1", 10 * MI).build()).getVolume().getVolumeId();
    Path staging = dir.resolve("kubelet/plugins/kubernetes.io/csi/x/globalmount");
    Path target = dir.resolve("kubelet/pods/uid/volumes/kubernetes.io~csi/pv/mount");
    Files.createDirectories(staging);
    Files.createDirectories(target);
    for (int i = 0; i < 2; i++) { // idempotent
      node.nodeStageVolume(
          NodeStageVolumeRequest.newBuilder()
              .setVolumeId(id)
              .setStagingTargetPath(staging.toString())
              .setVolumeCapability(mount())
              .build());
      node.nodePublishVolume(
          NodePublishVolumeRequest.newBuilder()
              .setVolumeId(id)
              .setStagingTargetPath(staging.toString())
              .setTargetPath(target.toString())
              .setVolumeCapability(mount())
              .build());
    }
    Files.writeString(target.resolve("hello"), "world");
    assertThat(plugin.driver().volumes().directory(id).resolve("hello")).hasContent("world");

    node.nodeUnpublishVolume(
        NodeUnpublishVolumeRequest.newBuilder()
            .setVolumeId(id)
            .setTargetPath(target.toString())
            .build());
    node.nodeUnstageVolume(
        NodeUnstageVolumeRequest.newBuilder()
            .setVolumeId(id)
            .setStagingTargetPath(staging.toString())
            .build());
    assertThat(target).doesNotExist();
    assertThat(staging).doesNotExist();
    assertThat(plugin.driver().volumes().directory(id).resolve("hello")).hasContent("world");

    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
    controller.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
    assertThat(plugin.driver().volumes().directory(id)).doesNotExist();
    assertThat(available()).isEqualTo(100 * MI);
  }

  @Test
  void publishFailsOnDemandAndForUnknownVolumes() throws Exception {
    String id = controller.createVolume(create("pvc-1", MI).build()).getVolume().getVolumeId();
    Path target = dir.resolve("target");
    NodePublishVolumeRequest publish =
        NodePublishVolumeRequest.newBuilder()
            .setVolumeId(id)
            .setTargetPath(target.toString())
            .setVolumeCapability(mount())
            .build();
    Files.writeString(plugin.driver().config().failPublishMarker(), "disk on fire");
    assertThatThrownBy(() -> node.nodePublishVolume(publish))
        .isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INTERNAL: disk on fire");
    Files.delete(plugin.driver().config().failPublishMarker());
    node.nodePublishVolume(publish);
    assertThat(Files.isSymbolicLink(target)).isTrue();
    assertThat(code(() -> node.nodePublishVolume(publish.toBuilder().setVolumeId("nope").build())))
        .isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void expansionGrowsTheAccountWithinTheNodesCapacity() {
    String id = controller.createVolume(create("pvc-1", 10 * MI).build()).getVolume().getVolumeId();
    ControllerExpandVolumeResponse grown =
        controller.controllerExpandVolume(
            ControllerExpandVolumeRequest.newBuilder()
                .setVolumeId(id)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(20 * MI))
                .build());
    assertThat(grown.getCapacityBytes()).isEqualTo(20 * MI);
    assertThat(grown.getNodeExpansionRequired()).isTrue();
    assertThat(available()).isEqualTo(80 * MI);
    assertThat(
            node.nodeExpandVolume(
                    NodeExpandVolumeRequest.newBuilder()
                        .setVolumeId(id)
                        .setVolumePath(dir.toString())
                        .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(20 * MI))
                        .build())
                .getCapacityBytes())
        .isEqualTo(20 * MI);
    assertThat(
            code(
                () ->
                    controller.controllerExpandVolume(
                        ControllerExpandVolumeRequest.newBuilder()
                            .setVolumeId(id)
                            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(101 * MI))
                            .build())))
        .isEqualTo(Status.Code.OUT_OF_RANGE);
    assertThat(
            code(
                () ->
                    controller.controllerExpandVolume(
                        ControllerExpandVolumeRequest.newBuilder()
                            .setVolumeId("nope")
                            .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(MI))
                            .build())))
        .isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void withoutAttachmentPublishingOnTheControllerIsUnimplemented() {
    Volume volume = controller.createVolume(create("pvc-a", MI).build()).getVolume();
    assertThat(
            controller
                .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .doesNotContain(ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME);
    assertThat(
            code(
                () ->
                    controller.controllerPublishVolume(
                        ControllerPublishVolumeRequest.newBuilder()
                            .setVolumeId(volume.getVolumeId())
                            .setNodeId("node-0")
                            .setVolumeCapability(mount())
                            .build())))
        .isEqualTo(Status.Code.UNIMPLEMENTED);
  }

  @Test
  void anAttachingDriverStagesOnlyWhatItAttachedAndSaysWhereInThePublishContext() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    plugin.close();
    Path root = dir.resolve("attaching");
    plugin =
        HostPathPlugin.start(
            new HostPathConfig(
                "attach.csi.streamplane.io",
                "node-0",
                root,
                100 * MI,
                Mounts.Mode.SYMLINK,
                HostPathConfig.defaultFailMarker(root),
                true,
                HostPathConfig.defaultFailAttachMarker(root),
                3),
            dir.resolve("csi.sock"),
            null);
    channel = UnixSockets.connect(dir.resolve("csi.sock"));
    controller = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    node = NodeGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);

    assertThat(
            controller
                .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList())
        .extracting(c -> c.getRpc().getType())
        .contains(ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME);
    assertThat(node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getMaxVolumesPerNode())
        .isEqualTo(3);
    String id = controller.createVolume(create("pvc-a", MI).build()).getVolume().getVolumeId();
    NodeStageVolumeRequest stage =
        NodeStageVolumeRequest.newBuilder()
            .setVolumeId(id)
            .setStagingTargetPath(dir.resolve("staging").toString())
            .setVolumeCapability(mount())
            .build();
    assertThat(code(() -> node.nodeStageVolume(stage)))
        .as("not attached yet")
        .isEqualTo(Status.Code.FAILED_PRECONDITION);

    ControllerPublishVolumeRequest.Builder publish =
        ControllerPublishVolumeRequest.newBuilder()
            .setVolumeId(id)
            .setNodeId("node-0")
            .setVolumeCapability(mount());
    Files.writeString(HostPathConfig.defaultFailAttachMarker(root), "the bus is down");
    assertThatThrownBy(() -> controller.controllerPublishVolume(publish.build()))
        .hasMessage("INTERNAL: the bus is down");
    Files.delete(HostPathConfig.defaultFailAttachMarker(root));
    assertThat(code(() -> controller.controllerPublishVolume(publish.setNodeId("node-9").build())))
        .isEqualTo(Status.Code.NOT_FOUND);
    assertThat(
            controller
                .controllerPublishVolume(publish.setNodeId("node-0").build())
                .getPublishContextMap())
        .containsExactly(java.util.Map.entry("attachedTo", "node-0"));
    // idempotent
    controller.controllerPublishVolume(publish.build());
    assertThat(plugin.driver().volumes().byId(id).orElseThrow().attachedTo()).isEqualTo("node-0");
    node.nodeStageVolume(stage);

    ControllerUnpublishVolumeRequest unpublish =
        ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId("node-0").build();
    controller.controllerUnpublishVolume(unpublish);
    controller.controllerUnpublishVolume(unpublish);
    assertThat(plugin.driver().volumes().byId(id).orElseThrow().attachedTo()).isNull();
  }
}
