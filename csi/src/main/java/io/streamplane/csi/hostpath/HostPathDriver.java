package io.streamplane.csi.hostpath;

import com.google.protobuf.BoolValue;
import com.google.protobuf.Int64Value;
import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.StreamObserver;
import io.streamplane.csi.Bytes;
import io.streamplane.csi.v1.*;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CSI driver whose volumes are directories on one node ({@code hostpath.csi.streamplane.io}),
 * serving the Identity, Controller and Node services of the CSI specification.
 *
 * <p>Contract (the specification's, for what this driver advertises): CreateVolume is idempotent by
 * name, gives the volume the requested bytes (or 1 when none) out of the node's capacity
 * (RESOURCE_EXHAUSTED when it has not enough), reports it accessible from this node only ({@link
 * HostPathConfig#TOPOLOGY_KEY}) and refuses a request whose requisite topology excludes this node;
 * DeleteVolume removes the directory and its files, and is idempotent; ControllerExpandVolume grows
 * the account (NOT_FOUND for an unknown volume) and asks for node expansion; GetCapacity is what
 * remains of the node's capacity (0 for another topology). With attachment enabled (the
 * PUBLISH_UNPUBLISH_VOLUME capability), ControllerPublishVolume records the volume attached to this
 * node (FAILED_PRECONDITION when attached to another, NOT_FOUND for another node) and answers the
 * publish context {@code attachedTo: <node>}, ControllerUnpublishVolume forgets it, both
 * idempotent, and NodeStageVolume refuses a volume not attached here. NodeStageVolume publishes the
 * volume's directory at the staging path; NodePublishVolume publishes the staged path (or the
 * directory) at the target path, read-only when asked; the Unstage and Unpublish calls undo them;
 * all four are idempotent. NodeExpandVolume has nothing to grow in a directory: it confirms the new
 * size. Every call is served under one lock.
 *
 * <p>Limits: block volumes and volume sources (snapshots, clones) are refused; there is one node,
 * whose driver is also the controller (as the host-path driver runs its provisioner per node).
 */
public final class HostPathDriver {

  private static final Logger LOG = LoggerFactory.getLogger(HostPathDriver.class);

  private final HostPathConfig config;
  private final HostPathVolumes volumes;
  private final Mounts mounts;

  public HostPathDriver(HostPathConfig config) throws IOException {
    this.config = config;
    this.volumes = new HostPathVolumes(config.root(), config.capacityBytes());
    this.mounts = new Mounts(config.publishMode());
  }

  public HostPathConfig config() {
    return config;
  }

  public HostPathVolumes volumes() {
    return volumes;
  }

  /** This node's topology segment. */
  public Topology topology() {
    return Topology.newBuilder().putSegments(HostPathConfig.TOPOLOGY_KEY, config.nodeId()).build();
  }

  /** The three services, to serve on one socket. */
  public List<BindableService> services() {
    return List.of(new IdentityService(), new ControllerService(), new NodeService());
  }

  private interface Call<T> {
    T run() throws StatusException, IOException;
  }

  private synchronized <T> void serve(String name, StreamObserver<T> observer, Call<T> call) {
    T answer;
    try {
      answer = call.run();
    } catch (StatusException e) {
      LOG.info("{}: {}", name, e.getStatus());
      observer.onError(e);
      return;
    } catch (IOException | RuntimeException e) {
      LOG.warn("{} failed", name, e);
      observer.onError(Status.INTERNAL.withDescription(e.toString()).asException());
      return;
    }
    observer.onNext(answer);
    observer.onCompleted();
  }

  private static StatusException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asException();
  }

  private static void requireMount(VolumeCapability capability) throws StatusException {
    if (capability.hasBlock()) {
      throw invalid("block access type is not supported by " + HostPathConfig.DRIVER_NAME);
    }
  }

  private HostPathVolumes.Record existing(String id) throws StatusException, IOException {
    if (id.isEmpty()) {
      throw invalid("volume ID missing in request");
    }
    Optional<HostPathVolumes.Record> record = volumes.byId(id);
    if (record.isEmpty()) {
      throw Status.NOT_FOUND.withDescription("volume " + id + " not found").asException();
    }
    return record.get();
  }

  private boolean ours(Topology topology) {
    return config.nodeId().equals(topology.getSegmentsMap().get(HostPathConfig.TOPOLOGY_KEY));
  }

  private final class IdentityService extends IdentityGrpc.IdentityImplBase {
    @Override
    public void getPluginInfo(
        GetPluginInfoRequest request, StreamObserver<GetPluginInfoResponse> observer) {
      serve(
          "GetPluginInfo",
          observer,
          () ->
              GetPluginInfoResponse.newBuilder()
                  .setName(config.driverName())
                  .setVendorVersion(HostPathConfig.VENDOR_VERSION)
                  .build());
    }

    @Override
    public void getPluginCapabilities(
        GetPluginCapabilitiesRequest request,
        StreamObserver<GetPluginCapabilitiesResponse> observer) {
      serve(
          "GetPluginCapabilities",
          observer,
          () ->
              GetPluginCapabilitiesResponse.newBuilder()
                  .addCapabilities(service(PluginCapability.Service.Type.CONTROLLER_SERVICE))
                  .addCapabilities(
                      service(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS))
                  .addCapabilities(
                      PluginCapability.newBuilder()
                          .setVolumeExpansion(
                              PluginCapability.VolumeExpansion.newBuilder()
                                  .setType(PluginCapability.VolumeExpansion.Type.ONLINE)))
                  .build());
    }

    private PluginCapability service(PluginCapability.Service.Type type) {
      return PluginCapability.newBuilder()
          .setService(PluginCapability.Service.newBuilder().setType(type))
          .build();
    }

    @Override
    public void probe(ProbeRequest request, StreamObserver<ProbeResponse> observer) {
      serve(
          "Probe",
          observer,
          () ->
              ProbeResponse.newBuilder()
                  .setReady(BoolValue.of(Files.isDirectory(volumes.root())))
                  .build());
    }
  }

  private List<ControllerServiceCapability.RPC.Type> controllerCapabilities() {
    List<ControllerServiceCapability.RPC.Type> types =
        new java.util.ArrayList<>(
            List.of(
                ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME,
                ControllerServiceCapability.RPC.Type.GET_CAPACITY,
                ControllerServiceCapability.RPC.Type.EXPAND_VOLUME));
    if (config.enableAttach()) {
      types.add(ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME);
    }
    return types;
  }

  /** The publish context ControllerPublishVolume gives, which the node passes back on staging. */
  public static final String PUBLISH_CONTEXT_NODE = "attachedTo";

  private final class ControllerService extends ControllerGrpc.ControllerImplBase {
    @Override
    public void controllerPublishVolume(
        ControllerPublishVolumeRequest request,
        StreamObserver<ControllerPublishVolumeResponse> observer) {
      serve(
          "ControllerPublishVolume",
          observer,
          () -> {
            if (!config.enableAttach()) {
              throw Status.UNIMPLEMENTED
                  .withDescription("ControllerPublishVolume is not supported")
                  .asException();
            }
            HostPathVolumes.Record record = existing(request.getVolumeId());
            if (request.getNodeId().isEmpty()) {
              throw invalid("node ID missing in request");
            }
            if (!request.hasVolumeCapability()) {
              throw invalid("volume capability missing in request");
            }
            requireMount(request.getVolumeCapability());
            if (!request.getNodeId().equals(config.nodeId())) {
              throw Status.NOT_FOUND
                  .withDescription("node " + request.getNodeId() + " not found")
                  .asException();
            }
            Path marker = config.failAttachMarker();
            if (marker != null && Files.exists(marker)) {
              String why = Files.readString(marker, StandardCharsets.UTF_8).strip();
              throw Status.INTERNAL
                  .withDescription(
                      why.isEmpty() ? "attaching is failing on demand (" + marker + ")" : why)
                  .asException();
            }
            if (record.attachedTo() != null && !record.attachedTo().equals(request.getNodeId())) {
              throw Status.FAILED_PRECONDITION
                  .withDescription(
                      "volume " + record.id() + " is attached to node " + record.attachedTo())
                  .asException();
            }
            if (record.attachedTo() == null) {
              volumes.write(record.withAttachedTo(request.getNodeId()));
              LOG.info("attached volume {} to node {}", record.id(), request.getNodeId());
            }
            return ControllerPublishVolumeResponse.newBuilder()
                .putPublishContext(PUBLISH_CONTEXT_NODE, request.getNodeId())
                .build();
          });
    }

    @Override
    public void controllerUnpublishVolume(
        ControllerUnpublishVolumeRequest request,
        StreamObserver<ControllerUnpublishVolumeResponse> observer) {
      serve(
          "ControllerUnpublishVolume",
          observer,
          () -> {
            if (!config.enableAttach()) {
              throw Status.UNIMPLEMENTED
                  .withDescription("ControllerUnpublishVolume is not supported")
                  .asException();
            }
            if (request.getVolumeId().isEmpty()) {
              throw invalid("volume ID missing in request");
            }
            Optional<HostPathVolumes.Record> record = volumes.byId(request.getVolumeId());
            // a deleted volume, or one attached elsewhere, is not attached here: done
            if (record.isPresent()
                && record.get().attachedTo() != null
                && (request.getNodeId().isEmpty()
                    || record.get().attachedTo().equals(request.getNodeId()))) {
              volumes.write(record.get().withAttachedTo(null));
              LOG.info("detached volume {} from node {}", record.get().id(), request.getNodeId());
            }
            return ControllerUnpublishVolumeResponse.getDefaultInstance();
          });
    }

    @Override
    public void createVolume(
        CreateVolumeRequest request, StreamObserver<CreateVolumeResponse> observer) {
      serve("CreateVolume", observer, () -> create(request));
    }

    private CreateVolumeResponse create(CreateVolumeRequest request)
        throws StatusException, IOException {
      if (request.getName().isEmpty()) {
        throw invalid("name missing in request");
      }
      if (request.getVolumeCapabilitiesCount() == 0) {
        throw invalid("volume capabilities missing in request");
      }
      for (VolumeCapability capability : request.getVolumeCapabilitiesList()) {
        requireMount(capability);
      }
      CapacityRange range = request.getCapacityRange();
      if (range.getLimitBytes() > 0 && range.getRequiredBytes() > range.getLimitBytes()) {
        throw Status.OUT_OF_RANGE
            .withDescription(
                "required bytes "
                    + range.getRequiredBytes()
                    + " exceed the limit "
                    + range.getLimitBytes())
            .asException();
      }
      long size = Math.max(1, range.getRequiredBytes());
      TopologyRequirement requirement = request.getAccessibilityRequirements();
      if (requirement.getRequisiteCount() > 0
          && requirement.getRequisiteList().stream().noneMatch(HostPathDriver.this::ours)) {
        throw Status.RESOURCE_EXHAUSTED
            .withDescription("no requisite topology is node " + config.nodeId() + " of this driver")
            .asException();
      }
      Optional<HostPathVolumes.Record> same = volumes.byName(request.getName());
      HostPathVolumes.Record record;
      if (same.isPresent()) {
        record = same.get();
        if (record.capacityBytes() < size
            || (range.getLimitBytes() > 0 && record.capacityBytes() > range.getLimitBytes())) {
          throw Status.ALREADY_EXISTS
              .withDescription(
                  "volume "
                      + request.getName()
                      + " exists with capacity "
                      + record.capacityBytes()
                      + ", incompatible with the request")
              .asException();
        }
      } else {
        long available = volumes.available();
        if (size > available) {
          throw Status.RESOURCE_EXHAUSTED
              .withDescription(
                  "requested " + size + " bytes, node " + config.nodeId() + " has " + available)
              .asException();
        }
        record = volumes.create(request.getName(), size);
        LOG.info("created volume {} ({}, {} bytes)", record.id(), record.name(), size);
      }
      return CreateVolumeResponse.newBuilder()
          .setVolume(
              Volume.newBuilder()
                  .setVolumeId(record.id())
                  .setCapacityBytes(record.capacityBytes())
                  .addAccessibleTopology(topology()))
          .build();
    }

    @Override
    public void deleteVolume(
        DeleteVolumeRequest request, StreamObserver<DeleteVolumeResponse> observer) {
      serve(
          "DeleteVolume",
          observer,
          () -> {
            if (request.getVolumeId().isEmpty()) {
              throw invalid("volume ID missing in request");
            }
            if (volumes.byId(request.getVolumeId()).isPresent()) {
              volumes.delete(request.getVolumeId());
              LOG.info("deleted volume {}", request.getVolumeId());
            }
            return DeleteVolumeResponse.getDefaultInstance();
          });
    }

    @Override
    public void validateVolumeCapabilities(
        ValidateVolumeCapabilitiesRequest request,
        StreamObserver<ValidateVolumeCapabilitiesResponse> observer) {
      serve(
          "ValidateVolumeCapabilities",
          observer,
          () -> {
            existing(request.getVolumeId());
            if (request.getVolumeCapabilitiesCount() == 0) {
              throw invalid("volume capabilities missing in request");
            }
            for (VolumeCapability capability : request.getVolumeCapabilitiesList()) {
              if (capability.hasBlock()) {
                return ValidateVolumeCapabilitiesResponse.newBuilder()
                    .setMessage("block access type is not supported")
                    .build();
              }
            }
            return ValidateVolumeCapabilitiesResponse.newBuilder()
                .setConfirmed(
                    ValidateVolumeCapabilitiesResponse.Confirmed.newBuilder()
                        .putAllVolumeContext(request.getVolumeContextMap())
                        .addAllVolumeCapabilities(request.getVolumeCapabilitiesList())
                        .putAllParameters(request.getParametersMap()))
                .build();
          });
    }

    @Override
    public void getCapacity(
        GetCapacityRequest request, StreamObserver<GetCapacityResponse> observer) {
      serve(
          "GetCapacity",
          observer,
          () -> {
            long available =
                request.hasAccessibleTopology() && !ours(request.getAccessibleTopology())
                    ? 0
                    : volumes.available();
            return GetCapacityResponse.newBuilder()
                .setAvailableCapacity(available)
                .setMaximumVolumeSize(Int64Value.of(available))
                .build();
          });
    }

    @Override
    public void controllerGetCapabilities(
        ControllerGetCapabilitiesRequest request,
        StreamObserver<ControllerGetCapabilitiesResponse> observer) {
      serve(
          "ControllerGetCapabilities",
          observer,
          () -> {
            ControllerGetCapabilitiesResponse.Builder answer =
                ControllerGetCapabilitiesResponse.newBuilder();
            for (ControllerServiceCapability.RPC.Type type : controllerCapabilities()) {
              answer.addCapabilities(
                  ControllerServiceCapability.newBuilder()
                      .setRpc(ControllerServiceCapability.RPC.newBuilder().setType(type)));
            }
            return answer.build();
          });
    }

    @Override
    public void controllerExpandVolume(
        ControllerExpandVolumeRequest request,
        StreamObserver<ControllerExpandVolumeResponse> observer) {
      serve(
          "ControllerExpandVolume",
          observer,
          () -> {
            HostPathVolumes.Record record = existing(request.getVolumeId());
            long wanted = request.getCapacityRange().getRequiredBytes();
            if (wanted <= 0) {
              throw invalid("capacity range missing in request");
            }
            long limit = request.getCapacityRange().getLimitBytes();
            if (limit > 0 && wanted > limit) {
              throw Status.OUT_OF_RANGE
                  .withDescription("required bytes " + wanted + " exceed the limit " + limit)
                  .asException();
            }
            if (wanted > record.capacityBytes()) {
              long growth = wanted - record.capacityBytes();
              long available = volumes.available();
              if (growth > available) {
                throw Status.OUT_OF_RANGE
                    .withDescription(
                        "growing volume "
                            + record.id()
                            + " by "
                            + growth
                            + " bytes, node "
                            + config.nodeId()
                            + " has "
                            + available)
                    .asException();
              }
              record = record.withCapacity(wanted);
              volumes.write(record);
              LOG.info("expanded volume {} to {} bytes", record.id(), wanted);
            }
            return ControllerExpandVolumeResponse.newBuilder()
                .setCapacityBytes(record.capacityBytes())
                .setNodeExpansionRequired(true)
                .build();
          });
    }
  }

  /**
   * An inline ephemeral volume ({@code csi.storage.k8s.io/ephemeral: "true"} in the volume
   * context): made at its first publication, its size the {@code size} attribute (a quantity of
   * bytes; 1Mi when absent), and deleted when unpublished; null for a persistent volume.
   */
  private HostPathVolumes.Record ephemeral(NodePublishVolumeRequest request)
      throws StatusException, IOException {
    if (!"true".equals(request.getVolumeContextMap().get(EPHEMERAL))) {
      return null;
    }
    Optional<HostPathVolumes.Record> existing = volumes.byId(request.getVolumeId());
    if (existing.isPresent()) {
      return existing.get();
    }
    String size = request.getVolumeContextMap().getOrDefault("size", "");
    long bytes;
    try {
      bytes = size.isEmpty() ? 1L << 20 : Bytes.parse(size);
    } catch (IllegalArgumentException e) {
      throw invalid("size " + size + " of the inline volume is not a quantity of bytes");
    }
    if (bytes > volumes.available()) {
      throw Status.RESOURCE_EXHAUSTED
          .withDescription(
              "inline volume of "
                  + bytes
                  + " bytes, node "
                  + config.nodeId()
                  + " has "
                  + volumes.available())
          .asException();
    }
    return volumes.create(request.getVolumeId(), request.getVolumeId(), bytes, true);
  }

  /** The volume context key by which the node marks an inline ephemeral volume. */
  public static final String EPHEMERAL = "csi.storage.k8s.io/ephemeral";

  private final class NodeService extends NodeGrpc.NodeImplBase {
    @Override
    public void nodeStageVolume(
        NodeStageVolumeRequest request, StreamObserver<NodeStageVolumeResponse> observer) {
      serve(
          "NodeStageVolume",
          observer,
          () -> {
            HostPathVolumes.Record record = existing(request.getVolumeId());
            if (request.getStagingTargetPath().isEmpty()) {
              throw invalid("staging target path missing in request");
            }
            if (!request.hasVolumeCapability()) {
              throw invalid("volume capability missing in request");
            }
            requireMount(request.getVolumeCapability());
            if (config.enableAttach() && !config.nodeId().equals(record.attachedTo())) {
              throw Status.FAILED_PRECONDITION
                  .withDescription(
                      "volume " + record.id() + " is not attached to node " + config.nodeId())
                  .asException();
            }
            mounts.publish(
                volumes.directory(record.id()), Path.of(request.getStagingTargetPath()), false);
            return NodeStageVolumeResponse.getDefaultInstance();
          });
    }

    @Override
    public void nodeUnstageVolume(
        NodeUnstageVolumeRequest request, StreamObserver<NodeUnstageVolumeResponse> observer) {
      serve(
          "NodeUnstageVolume",
          observer,
          () -> {
            if (request.getVolumeId().isEmpty()) {
              throw invalid("volume ID missing in request");
            }
            if (request.getStagingTargetPath().isEmpty()) {
              throw invalid("staging target path missing in request");
            }
            mounts.unpublish(Path.of(request.getStagingTargetPath()));
            return NodeUnstageVolumeResponse.getDefaultInstance();
          });
    }

    @Override
    public void nodePublishVolume(
        NodePublishVolumeRequest request, StreamObserver<NodePublishVolumeResponse> observer) {
      serve(
          "NodePublishVolume",
          observer,
          () -> {
            if (request.getTargetPath().isEmpty()) {
              throw invalid("target path missing in request");
            }
            HostPathVolumes.Record record = ephemeral(request);
            if (record == null) {
              record = existing(request.getVolumeId());
            }
            if (!request.hasVolumeCapability()) {
              throw invalid("volume capability missing in request");
            }
            requireMount(request.getVolumeCapability());
            Path marker = config.failPublishMarker();
            if (marker != null && Files.exists(marker)) {
              String why = Files.readString(marker, StandardCharsets.UTF_8).strip();
              throw Status.INTERNAL
                  .withDescription(
                      why.isEmpty() ? "publishing is failing on demand (" + marker + ")" : why)
                  .asException();
            }
            Path source =
                request.getStagingTargetPath().isEmpty()
                    ? volumes.directory(record.id())
                    : Path.of(request.getStagingTargetPath());
            mounts.publish(source, Path.of(request.getTargetPath()), request.getReadonly());
            return NodePublishVolumeResponse.getDefaultInstance();
          });
    }

    @Override
    public void nodeUnpublishVolume(
        NodeUnpublishVolumeRequest request, StreamObserver<NodeUnpublishVolumeResponse> observer) {
      serve(
          "NodeUnpublishVolume",
          observer,
          () -> {
            if (request.getVolumeId().isEmpty()) {
              throw invalid("volume ID missing in request");
            }
            if (request.getTargetPath().isEmpty()) {
              throw invalid("target path missing in request");
            }
            mounts.unpublish(Path.of(request.getTargetPath()));
            Optional<HostPathVolumes.Record> record = volumes.byId(request.getVolumeId());
            if (record.isPresent() && record.get().ephemeral()) {
              volumes.delete(record.get().id()); // an inline volume lives as long as its pod
            }
            return NodeUnpublishVolumeResponse.getDefaultInstance();
          });
    }

    @Override
    public void nodeExpandVolume(
        NodeExpandVolumeRequest request, StreamObserver<NodeExpandVolumeResponse> observer) {
      serve(
          "NodeExpandVolume",
          observer,
          () -> {
            HostPathVolumes.Record record = existing(request.getVolumeId());
            if (request.getVolumePath().isEmpty()) {
              throw invalid("volume path missing in request");
            }
            long size = Math.max(record.capacityBytes(), 0);
            return NodeExpandVolumeResponse.newBuilder().setCapacityBytes(size).build();
          });
    }

    @Override
    public void nodeGetCapabilities(
        NodeGetCapabilitiesRequest request, StreamObserver<NodeGetCapabilitiesResponse> observer) {
      serve(
          "NodeGetCapabilities",
          observer,
          () -> {
            NodeGetCapabilitiesResponse.Builder answer = NodeGetCapabilitiesResponse.newBuilder();
            for (NodeServiceCapability.RPC.Type type :
                List.of(
                    NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME,
                    NodeServiceCapability.RPC.Type.EXPAND_VOLUME)) {
              answer.addCapabilities(
                  NodeServiceCapability.newBuilder()
                      .setRpc(NodeServiceCapability.RPC.newBuilder().setType(type)));
            }
            return answer.build();
          });
    }

    @Override
    public void nodeGetInfo(
        NodeGetInfoRequest request, StreamObserver<NodeGetInfoResponse> observer) {
      serve(
          "NodeGetInfo",
          observer,
          () ->
              NodeGetInfoResponse.newBuilder()
                  .setNodeId(config.nodeId())
                  .setMaxVolumesPerNode(config.maxVolumesPerNode())
                  .setAccessibleTopology(topology())
                  .build());
    }
  }
}
