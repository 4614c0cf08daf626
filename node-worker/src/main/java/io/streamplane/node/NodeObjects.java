package io.streamplane.node;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.DaemonEndpoint;
import io.streamplane.api.Lease;
import io.streamplane.api.LeaseSpec;
import io.streamplane.api.Node;
import io.streamplane.api.NodeAddress;
import io.streamplane.api.NodeCondition;
import io.streamplane.api.NodeDaemonEndpoints;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.NodeSystemInfo;
import io.streamplane.api.ObjectMeta;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The objects a node writes about itself, as pure functions of its options and the time: the Node
 * it registers (labels, pod CIDR, capacity, conditions, addresses, nodeInfo), the same Node with a
 * fresh heartbeat, and its Lease in {@code kube-node-lease}. Values follow what a kubelet 1.32
 * writes, so {@code kubectl get/describe node} reads as usual.
 *
 * <p>Limits: the pressure conditions are always False, nothing is reserved (allocatable equals
 * capacity), and there are no taints.
 */
public final class NodeObjects {

  public static final String KUBELET_VERSION = "v1.32.0-streamplane";
  public static final String LEASE_NAMESPACE = "kube-node-lease";
  public static final int LEASE_DURATION_SECONDS = 40;

  private NodeObjects() {}

  /** The Node a node registers, its conditions stamped {@code now}. */
  public static Node node(
      NodeOptions options, String runtimeVersion, String osImage, String bootID, Instant now) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/arch", architecture());
    labels.put("kubernetes.io/hostname", options.name());
    labels.put("kubernetes.io/os", "linux");
    labels.put("node.kubernetes.io/instance-type", "streamplane");
    Map<String, String> capacity = new LinkedHashMap<>();
    capacity.put("cpu", options.cpu());
    capacity.put("ephemeral-storage", options.ephemeralStorage());
    capacity.put("memory", options.memory());
    capacity.put("pods", Integer.toString(options.pods()));
    String machineID = nameUuid("machine/" + options.name()).toString().replace("-", "");
    return Node.newBuilder()
        .setApiVersion("v1")
        .setKind("Node")
        .setMetadata(ObjectMeta.newBuilder().setName(options.name()).setLabels(labels).build())
        .setSpec(
            NodeSpec.newBuilder()
                .setPodCIDR(options.podCIDR())
                .setPodCIDRs(List.of(options.podCIDR()))
                .build())
        .setStatus(
            NodeStatus.newBuilder()
                .setCapacity(capacity)
                .setAllocatable(new LinkedHashMap<>(capacity))
                .setConditions(conditions(now))
                .setAddresses(
                    List.of(
                        new NodeAddress("InternalIP", options.hostIP()),
                        new NodeAddress("Hostname", options.name())))
                .setDaemonEndpoints(daemonEndpoints(options.kubeletPort()))
                .setNodeInfo(
                    NodeSystemInfo.newBuilder()
                        .setMachineID(machineID)
                        .setSystemUUID(nameUuid("system/" + options.name()).toString())
                        .setBootID(bootID)
                        .setKernelVersion(System.getProperty("os.version"))
                        .setOsImage(osImage)
                        .setContainerRuntimeVersion(runtimeVersion)
                        .setKubeletVersion(KUBELET_VERSION)
                        // Deprecated, but a 1.32 kubelet still fills it with its own version
                        // (the DisableNodeKubeProxyVersion gate is off by default until 1.33),
                        // and clients such as the official Python one require the field.
                        .setKubeProxyVersion(KUBELET_VERSION)
                        .setOperatingSystem("linux")
                        .setArchitecture(architecture())
                        .build())
                .build())
        .build();
  }

  /**
   * Where the node's kubelet endpoint listens; kubelet always writes the field, with port 0 when it
   * serves nothing, and the API server then falls back to its default kubelet port.
   */
  static NodeDaemonEndpoints daemonEndpoints(int kubeletPort) {
    return NodeDaemonEndpoints.newBuilder()
        .setKubeletEndpoint(DaemonEndpoint.newBuilder().setPort(kubeletPort).build())
        .build();
  }

  /**
   * What an existing Node (registered before, perhaps by an earlier run) lacks of what this node
   * registers, as a JSON merge patch: its labels with another value or none, its pod CIDRs; empty
   * when it has them all. As the kubelet, a node re-registering patches only what it owns, so the
   * taints and labels others set are never written back stale.
   */
  public static Optional<ObjectNode> reRegistration(Node existing, Node registered) {
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    Map<String, String> labels =
        existing.getMetadata().getLabels() == null ? Map.of() : existing.getMetadata().getLabels();
    registered
        .getMetadata()
        .getLabels()
        .forEach(
            (key, value) -> {
              if (!value.equals(labels.get(key))) {
                patch.with("metadata").with("labels").put(key, value);
              }
            });
    NodeSpec spec = existing.getSpec() == null ? new NodeSpec() : existing.getSpec();
    NodeSpec wanted = registered.getSpec();
    if (!Objects.equals(spec.getPodCIDR(), wanted.getPodCIDR())
        || !List.copyOf(spec.getPodCIDRs() == null ? List.of() : spec.getPodCIDRs())
            .equals(List.copyOf(wanted.getPodCIDRs()))) {
      ObjectNode cidrs = patch.with("spec").put("podCIDR", wanted.getPodCIDR());
      wanted.getPodCIDRs().forEach(cidrs.putArray("podCIDRs")::add);
    }
    return patch.isEmpty() ? Optional.empty() : Optional.of(patch);
  }

  /** {@code current} with {@code status} replaced by the status this node reports. */
  public static Node withStatus(Node current, NodeStatus status) {
    return Node.newBuilder(current).setStatus(NodeStatus.newBuilder(status).build()).build();
  }

  /**
   * {@code node} with every condition's lastHeartbeatTime set to {@code now}, and the conditions
   * this node reports (Ready, MemoryPressure, DiskPressure, PIDPressure) back at their healthy
   * values: the node lifecycle controller sets them Unknown when the Lease lapses, and, as with a
   * kubelet, only the node's own next status brings them back. A condition whose status changes
   * gets {@code now} as its lastTransitionTime; one that keeps its status keeps its transition
   * time.
   */
  /**
   * How often an unchanged Node status is written anyway (the kubelet's nodeStatusReportFrequency
   * default): the Lease carries liveness, the status only what changed.
   */
  public static final Duration STATUS_REPORT_FREQUENCY = Duration.ofMinutes(5);

  /**
   * Whether the stored Node must be written: a condition's status differs from what a healthy node
   * reports, one is missing, or a heartbeat is older than {@link #STATUS_REPORT_FREQUENCY}.
   */
  public static boolean needsHeartbeat(Node stored, Instant now) {
    if (stored.getStatus() == null) {
      return false;
    }
    List<NodeCondition> current =
        stored.getStatus().getConditions() == null ? List.of() : stored.getStatus().getConditions();
    for (NodeCondition healthy : conditions(now)) {
      NodeCondition condition =
          current.stream()
              .filter(c -> c.getType().equals(healthy.getType()))
              .findFirst()
              .orElse(null);
      if (condition == null
          || !healthy.getStatus().equals(condition.getStatus())
          || condition.getLastHeartbeatTime() == null
          || condition.getLastHeartbeatTime().plus(STATUS_REPORT_FREQUENCY).isBefore(now)) {
        return true;
      }
    }
    return false;
  }

  /** The Node's {@code status.volumesInUse}, empty when it has none. */
  public static List<String> volumesInUse(Node node) {
    return node.getStatus() == null || node.getStatus().getVolumesInUse() == null
        ? List.of()
        : node.getStatus().getVolumesInUse();
  }

  /** The Node with {@code status.volumesInUse} set (omitted when empty, as the kubelet does). */
  public static Node withVolumesInUse(Node node, List<String> inUse) {
    if (node.getStatus() != null) {
      node.getStatus().setVolumesInUse(inUse.isEmpty() ? null : List.copyOf(inUse));
    }
    return node;
  }

  public static Node heartbeat(Node node, Instant now) {
    Node beat = Node.newBuilder(node).build();
    if (beat.getStatus() == null) {
      return beat;
    }
    Instant second = now.truncatedTo(ChronoUnit.SECONDS);
    List<NodeCondition> healthy = conditions(now);
    List<NodeCondition> current =
        beat.getStatus().getConditions() == null ? List.of() : beat.getStatus().getConditions();
    List<NodeCondition> updated = new ArrayList<>();
    for (NodeCondition condition : current) {
      NodeCondition wanted =
          healthy.stream()
              .filter(h -> h.getType().equals(condition.getType()))
              .findFirst()
              .orElse(null);
      if (wanted == null) {
        condition.setLastHeartbeatTime(second);
        updated.add(condition);
      } else {
        healthy.remove(wanted);
        if (wanted.getStatus().equals(condition.getStatus())) {
          wanted.setLastTransitionTime(condition.getLastTransitionTime());
        }
        updated.add(wanted);
      }
    }
    updated.addAll(healthy);
    beat.getStatus().setConditions(updated);
    return beat;
  }

  /** The Lease {@code kube-node-lease/<node>} renewed at {@code now}. */
  public static Lease lease(String node, Instant now, String resourceVersion) {
    return Lease.newBuilder()
        .setApiVersion("coordination.k8s.io/v1")
        .setKind("Lease")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(node)
                .setNamespace(LEASE_NAMESPACE)
                .setResourceVersion(resourceVersion)
                .build())
        .setSpec(
            LeaseSpec.newBuilder()
                .setHolderIdentity(node)
                .setLeaseDurationSeconds(LEASE_DURATION_SECONDS)
                .setRenewTime(now.truncatedTo(ChronoUnit.MICROS))
                .build())
        .build();
  }

  static List<NodeCondition> conditions(Instant now) {
    Instant second = now.truncatedTo(ChronoUnit.SECONDS);
    List<NodeCondition> conditions = new ArrayList<>();
    conditions.add(
        condition(
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
            second));
    conditions.add(
        condition(
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
            second));
    conditions.add(
        condition(
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
            second));
    conditions.add(
        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", second));
    return conditions;
  }

  private static NodeCondition condition(
      String type, String status, String reason, String message, Instant now) {
    return NodeCondition.newBuilder()
        .setType(type)
        .setStatus(status)
        .setReason(reason)
        .setMessage(message)
        .setLastHeartbeatTime(now)
        .setLastTransitionTime(now)
        .build();
  }

  private static String architecture() {
    String arch = System.getProperty("os.arch", "amd64");
    return switch (arch) {
      case "x86_64", "amd64" -> "amd64";
      case "aarch64", "arm64" -> "arm64";
      default -> arch;
    };
  }

  private static UUID nameUuid(String name) {
    return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
  }
}
