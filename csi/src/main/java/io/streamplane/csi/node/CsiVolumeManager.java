package io.streamplane.csi.node;

import io.grpc.StatusRuntimeException;
import io.streamplane.csi.v1.CapacityRange;
import io.streamplane.csi.v1.NodeExpandVolumeRequest;
import io.streamplane.csi.v1.NodePublishVolumeRequest;
import io.streamplane.csi.v1.NodeStageVolumeRequest;
import io.streamplane.csi.v1.NodeUnpublishVolumeRequest;
import io.streamplane.csi.v1.NodeUnstageVolumeRequest;
import io.streamplane.csi.v1.VolumeCapability;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The CSI half of the node's volume manager (the kubelet's csi_attacher MountDevice and csi_mounter
 * SetUp, and their TearDown): for a pod's CSI volume, NodeStageVolume at the volume's global mount
 * — once per volume on the node, when the driver stages — then NodePublishVolume at the pod's mount
 * directory; on the pod's end NodeUnpublishVolume, and NodeUnstageVolume once no pod of the node
 * publishes the volume any more.
 *
 * <p>Paths are the kubelet's: {@code <root>/plugins/kubernetes.io/csi/<driver>/<sha256(volume
 * handle)>/globalmount} and {@code <root>/pods/<pod uid>/volumes/kubernetes.io~csi/<name>/mount},
 * {@code name} being the PersistentVolume's name (or the pod's volume's, inline).
 *
 * <p>Contract: {@link #setUp} returns the published directory, or throws {@link MountFailure} whose
 * message is the kubelet's ({@code MountVolume.SetUp failed for volume "NAME" : rpc error: code =
 * ... desc = ...}); it is idempotent, so a failed set-up is simply called again. Thread-safe.
 */
public final class CsiVolumeManager {

  /**
   * A volume of a pod, as the node asks for it.
   *
   * @param publishContext what the attacher's ControllerPublishVolume answered (the
   *     VolumeAttachment's {@code attachmentMetadata}), passed to NodeStageVolume and
   *     NodePublishVolume
   */
  public record VolumeSpec(
      String driver,
      String volumeHandle,
      String name,
      boolean readOnly,
      String fsType,
      Map<String, String> volumeContext,
      Map<String, String> publishContext) {

    /** A volume that is not attached: no publish context. */
    public VolumeSpec(
        String driver,
        String volumeHandle,
        String name,
        boolean readOnly,
        String fsType,
        Map<String, String> volumeContext) {
      this(driver, volumeHandle, name, readOnly, fsType, volumeContext, Map.of());
    }

    public VolumeSpec withPublishContext(Map<String, String> context) {
      return new VolumeSpec(driver, volumeHandle, name, readOnly, fsType, volumeContext, context);
    }
  }

  /** A CSI call that failed, with the kubelet's message. */
  public static final class MountFailure extends Exception {
    public MountFailure(String message) {
      super(message);
    }
  }

  private static final long TIMEOUT_SECONDS = 30;

  private final Path root;
  private final Function<String, java.util.Optional<CsiDriverRegistration>> drivers;
  // volume handle (driver^handle) -> pods of this node that published it
  private final Map<String, Set<String>> publishers = new HashMap<>();
  // the inline ephemeral volumes among them, which are never attached
  private final Set<String> inline = new HashSet<>();

  public CsiVolumeManager(
      Path root, Function<String, java.util.Optional<CsiDriverRegistration>> drivers) {
    this.root = root;
    this.drivers = drivers;
  }

  /**
   * The kubelet's {@code node.status.volumesInUse}: the unique names ({@code
   * kubernetes.io/csi/<driver>^<handle>}) of the volumes set up on this node for its pods, but the
   * inline ephemeral ones, sorted.
   */
  public List<String> volumesInUse() {
    synchronized (publishers) {
      return publishers.keySet().stream()
          .filter(key -> !inline.contains(key))
          .map(key -> "kubernetes.io/csi/" + key)
          .sorted()
          .toList();
    }
  }

  /** The global mount (staging path) of {@code handle} of {@code driver}. */
  public Path globalMount(String driver, String handle) {
    return root.resolve("plugins/kubernetes.io/csi")
        .resolve(driver)
        .resolve(sha256(handle))
        .resolve("globalmount");
  }

  /** The directory a pod's volume is published at. */
  public Path podMount(String podUid, String name) {
    return root.resolve("pods")
        .resolve(podUid)
        .resolve("volumes/kubernetes.io~csi")
        .resolve(name)
        .resolve("mount");
  }

  /** The volume handle of an inline volume: the kubelet's {@code csi-<sha256(uid+name)>}. */
  public static String inlineHandle(String podUid, String volumeName) {
    return "csi-" + sha256(podUid + volumeName);
  }

  static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private CsiDriverRegistration driver(VolumeSpec spec, String operation) throws MountFailure {
    return drivers
        .apply(spec.driver())
        .orElseThrow(
            () ->
                new MountFailure(
                    operation
                        + " failed for volume \""
                        + spec.name()
                        + "\" : kubernetes.io/csi: "
                        + "attacher.MountDevice failed to create newCsiDriverClient: driver name "
                        + spec.driver()
                        + " not found in the list of registered CSI drivers"));
  }

  private static VolumeCapability capability(VolumeSpec spec) {
    return VolumeCapability.newBuilder()
        .setMount(VolumeCapability.MountVolume.newBuilder().setFsType(spec.fsType()))
        .setAccessMode(
            VolumeCapability.AccessMode.newBuilder()
                .setMode(
                    spec.readOnly()
                        ? VolumeCapability.AccessMode.Mode.SINGLE_NODE_READER_ONLY
                        : VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
        .build();
  }

  /** The kubelet's rendering of a gRPC failure: {@code rpc error: code = X desc = Y}. */
  public static String rpcError(StatusRuntimeException e) {
    return "rpc error: code = "
        + codeName(e.getStatus().getCode())
        + " desc = "
        + (e.getStatus().getDescription() == null ? "" : e.getStatus().getDescription());
  }

  /** gRPC-Go's names of the codes (Internal, NotFound...), which the kubelet prints. */
  private static String codeName(io.grpc.Status.Code code) {
    StringBuilder name = new StringBuilder();
    for (String part : code.name().split("_")) {
      name.append(part.charAt(0)).append(part.substring(1).toLowerCase(java.util.Locale.ROOT));
    }
    return name.toString();
  }

  /** Whether the volume is staged: when the driver stages, except inline ephemeral volumes. */
  private static boolean stages(CsiDriverRegistration driver, VolumeSpec spec) {
    return driver.stages() && !"true".equals(spec.volumeContext().get(EPHEMERAL));
  }

  /** The volume context key by which the node marks an inline ephemeral volume. */
  public static final String EPHEMERAL = "csi.storage.k8s.io/ephemeral";

  /** Stages (when the driver does) and publishes the volume for the pod; its directory. */
  public Path setUp(String podUid, VolumeSpec spec) throws MountFailure {
    CsiDriverRegistration driver = driver(spec, "MountVolume.MountDevice");
    Path staging = globalMount(spec.driver(), spec.volumeHandle());
    Path target = podMount(podUid, spec.name());
    boolean stages = stages(driver, spec);
    try {
      if (stages) {
        Files.createDirectories(staging);
        try {
          driver
              .node()
              .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
              .nodeStageVolume(
                  NodeStageVolumeRequest.newBuilder()
                      .setVolumeId(spec.volumeHandle())
                      .setStagingTargetPath(staging.toString())
                      .setVolumeCapability(capability(spec))
                      .putAllVolumeContext(spec.volumeContext())
                      .putAllPublishContext(spec.publishContext())
                      .build());
        } catch (StatusRuntimeException e) {
          throw new MountFailure(
              "MountVolume.MountDevice failed for volume \"" + spec.name() + "\" : " + rpcError(e));
        }
      }
      Files.createDirectories(target.getParent());
      try {
        driver
            .node()
            .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .nodePublishVolume(
                NodePublishVolumeRequest.newBuilder()
                    .setVolumeId(spec.volumeHandle())
                    .setStagingTargetPath(stages ? staging.toString() : "")
                    .setTargetPath(target.toString())
                    .setVolumeCapability(capability(spec))
                    .setReadonly(spec.readOnly())
                    .putAllVolumeContext(spec.volumeContext())
                    .putAllPublishContext(spec.publishContext())
                    .build());
      } catch (StatusRuntimeException e) {
        throw new MountFailure(
            "MountVolume.SetUp failed for volume \"" + spec.name() + "\" : " + rpcError(e));
      }
    } catch (IOException e) {
      throw new MountFailure(
          "MountVolume.SetUp failed for volume \"" + spec.name() + "\" : " + e.getMessage());
    }
    synchronized (publishers) {
      String key = spec.driver() + "^" + spec.volumeHandle();
      publishers.computeIfAbsent(key, k -> new HashSet<>()).add(podUid);
      if ("true".equals(spec.volumeContext().get(EPHEMERAL))) {
        inline.add(key);
      }
    }
    return target;
  }

  /** NodeExpandVolume of a published volume to {@code bytes}; the size the driver reports. */
  public long expand(String podUid, VolumeSpec spec, long bytes) throws MountFailure {
    CsiDriverRegistration driver = driver(spec, "MountVolume.NodeExpandVolume");
    try {
      return driver
          .node()
          .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .nodeExpandVolume(
              NodeExpandVolumeRequest.newBuilder()
                  .setVolumeId(spec.volumeHandle())
                  .setVolumePath(podMount(podUid, spec.name()).toString())
                  .setStagingTargetPath(
                      driver.stages()
                          ? globalMount(spec.driver(), spec.volumeHandle()).toString()
                          : "")
                  .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
                  .setVolumeCapability(capability(spec))
                  .build())
          .getCapacityBytes();
    } catch (StatusRuntimeException e) {
      // the kubelet's online expansion: the csi expander's error, in the operation's words
      throw new MountFailure(
          "NodeExpandVolume.NodeExpandVolume failed for volume \""
              + spec.name()
              + "\" : Expander.NodeExpand failed to expand the volume : "
              + rpcError(e));
    }
  }

  /** Unpublishes the pod's volume, and unstages it when no other pod of the node publishes it. */
  public void tearDown(String podUid, VolumeSpec spec) throws MountFailure {
    CsiDriverRegistration driver = driver(spec, "UnmountVolume.TearDown");
    Path target = podMount(podUid, spec.name());
    try {
      driver
          .node()
          .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
          .nodeUnpublishVolume(
              NodeUnpublishVolumeRequest.newBuilder()
                  .setVolumeId(spec.volumeHandle())
                  .setTargetPath(target.toString())
                  .build());
    } catch (StatusRuntimeException e) {
      throw new MountFailure(
          "UnmountVolume.TearDown failed for volume \"" + spec.name() + "\" : " + rpcError(e));
    }
    boolean last;
    String key = spec.driver() + "^" + spec.volumeHandle();
    synchronized (publishers) {
      Set<String> pods = publishers.getOrDefault(key, new HashSet<>());
      pods.remove(podUid);
      last = pods.isEmpty();
      if (last) {
        publishers.remove(key);
        inline.remove(key);
      }
    }
    if (last && stages(driver, spec)) {
      Path staging = globalMount(spec.driver(), spec.volumeHandle());
      try {
        driver
            .node()
            .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .nodeUnstageVolume(
                NodeUnstageVolumeRequest.newBuilder()
                    .setVolumeId(spec.volumeHandle())
                    .setStagingTargetPath(staging.toString())
                    .build());
        Files.deleteIfExists(staging.getParent());
      } catch (StatusRuntimeException e) {
        throw new MountFailure(
            "UnmountDevice failed for volume \"" + spec.name() + "\" : " + rpcError(e));
      } catch (IOException e) {
        // the directory of the global mount stays; nothing is mounted there any more
      }
    }
  }
}
