package io.streamplane.csi.hostpath;

import java.nio.file.Path;

/**
 * The host-path driver's settings: its name, the node it serves (its id and topology segment),
 * where its volumes live, the capacity of that node it may give out, and how it publishes.
 *
 * @param failPublishMarker when this file exists, NodePublishVolume fails with its content as the
 *     message: a way to make mounts fail on demand
 * @param enableAttach whether the driver asks to be attached (the PUBLISH_UNPUBLISH_VOLUME
 *     controller capability: ControllerPublishVolume before a node stages a volume)
 * @param failAttachMarker when this file exists, ControllerPublishVolume fails with its content as
 *     the message
 * @param maxVolumesPerNode what NodeGetInfo reports as the node's volume limit (0: none)
 */
public record HostPathConfig(
    String driverName,
    String nodeId,
    Path root,
    long capacityBytes,
    Mounts.Mode publishMode,
    Path failPublishMarker,
    boolean enableAttach,
    Path failAttachMarker,
    long maxVolumesPerNode) {

  /** A driver that does not attach. */
  public HostPathConfig(
      String driverName,
      String nodeId,
      Path root,
      long capacityBytes,
      Mounts.Mode publishMode,
      Path failPublishMarker) {
    this(driverName, nodeId, root, capacityBytes, publishMode, failPublishMarker, false, null, 0);
  }

  public static final String DRIVER_NAME = "hostpath.csi.streamplane.io";
  public static final String TOPOLOGY_KEY = "topology.hostpath.csi.streamplane.io/node";
  public static final String VENDOR_VERSION = "0.1.0";

  /** The marker file's default place: {@code <root>/fail-node-publish}. */
  public static Path defaultFailMarker(Path root) {
    return root.resolve("fail-node-publish");
  }

  /** The attach marker file's default place: {@code <root>/fail-controller-publish}. */
  public static Path defaultFailAttachMarker(Path root) {
    return root.resolve("fail-controller-publish");
  }
}
