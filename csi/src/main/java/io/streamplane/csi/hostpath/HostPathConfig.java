package io.streamplane.csi.hostpath;

import java.nio.file.Path;

/**
 * The host-path driver's settings: its name, the node it serves (its id and topology segment),
 * where its volumes live, the capacity of that node it may give out, and how it publishes.
 *
 * @param failPublishMarker when this file exists, NodePublishVolume fails with its content as the
 *     message: a way to make mounts fail on demand
 */
public record HostPathConfig(
    String driverName,
    String nodeId,
    Path root,
    long capacityBytes,
    Mounts.Mode publishMode,
    Path failPublishMarker) {

  public static final String DRIVER_NAME = "hostpath.csi.streamplane.io";
  public static final String TOPOLOGY_KEY = "topology.hostpath.csi.streamplane.io/node";
  public static final String VENDOR_VERSION = "0.1.0";

  /** The marker file's default place: {@code <root>/fail-node-publish}. */
  public static Path defaultFailMarker(Path root) {
    return root.resolve("fail-node-publish");
  }
}
