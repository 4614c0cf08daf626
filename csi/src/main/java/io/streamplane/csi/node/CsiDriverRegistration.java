package io.streamplane.csi.node;

import io.grpc.ManagedChannel;
import io.streamplane.csi.v1.NodeGrpc;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A CSI driver registered on a node: its name, the socket of its services and a channel to them,
 * what NodeGetInfo answered (the node's id in the driver, its topology segments, its volume limit)
 * and whether it stages volumes (the STAGE_UNSTAGE_VOLUME node capability).
 */
public record CsiDriverRegistration(
    String name,
    Path endpoint,
    ManagedChannel channel,
    String nodeId,
    Map<String, String> topology,
    long maxVolumesPerNode,
    boolean stages) {

  /** The topology keys the driver reports, as CSINode lists them. */
  public List<String> topologyKeys() {
    return topology.keySet().stream().sorted().toList();
  }

  public NodeGrpc.NodeBlockingStub node() {
    return NodeGrpc.newBlockingStub(channel);
  }
}
