package io.streamplane.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Lease;
import io.streamplane.api.Node;
import io.streamplane.api.NodeCondition;
import io.streamplane.api.ObjectMeta;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeObjectsTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00.123456789Z");

  @Test
  void registeredNodeCarriesLabelsCapacityReadyConditionAddressesAndNodeInfo() {
    NodeOptions options = NodeOptions.defaults("n1").withPodCIDR("10.0.7.0/24");

    Node node = NodeObjects.node(options, "simulated://0.1", "sim", "boot", T0);

    assertThat(node.getMetadata().getName()).isEqualTo("n1");
    assertThat(node.getMetadata().getLabels())
        .containsEntry("kubernetes.io/hostname", "n1")
        .containsEntry("kubernetes.io/os", "linux")
        .containsEntry("node.kubernetes.io/instance-type", "streamplane");
    assertThat(node.getSpec().getPodCIDR()).isEqualTo("10.0.7.0/24");
    assertThat(node.getStatus().getCapacity())
        .isEqualTo(Map.of("cpu", "4", "memory", "8Gi", "pods", "110", "ephemeral-storage", "20Gi"));
    assertThat(node.getStatus().getAllocatable()).isEqualTo(node.getStatus().getCapacity());
    assertThat(node.getStatus().getConditions())
        .extracting(NodeCondition::getType, NodeCondition::getStatus)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("MemoryPressure", "False"),
            org.assertj.core.groups.Tuple.tuple("DiskPressure", "False"),
            org.assertj.core.groups.Tuple.tuple("PIDPressure", "False"),
            org.assertj.core.groups.Tuple.tuple("Ready", "True"));
    NodeCondition ready = node.getStatus().getConditions().get(3);
    assertThat(ready.getReason()).isEqualTo("KubeletReady");
    assertThat(ready.getMessage()).isEqualTo("kubelet is posting ready status");
    assertThat(node.getStatus().getAddresses())
        .extracting(a -> a.getType() + "=" + a.getAddress())
        .containsExactly("InternalIP=127.0.0.1", "Hostname=n1");
    assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.32.0-streamplane");
    assertThat(node.getStatus().getNodeInfo().getKubeProxyVersion())
        .as("what a 1.32 kubelet reports")
        .isEqualTo("v1.32.0-streamplane");
    assertThat(node.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .isEqualTo("simulated://0.1");
    assertThat(node.getStatus().getNodeInfo().getOperatingSystem()).isEqualTo("linux");
  }

  @Test
  void theKubeletPortIsPublishedAsTheNodesKubeletEndpointAndIsZeroWhenNoneIsServed() {
    Node serving =
        NodeObjects.node(NodeOptions.defaults("n1").withKubeletPort(10260), "sim", "sim", "b", T0);
    Node silent = NodeObjects.node(NodeOptions.defaults("n2"), "sim", "sim", "b", T0);

    assertThat(serving.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort())
        .isEqualTo(10260);
    assertThat(silent.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort()).isZero();
  }

  @Test
  void heartbeatMovesEveryConditionsHeartbeatButNotItsTransition() {
    Node node = NodeObjects.node(NodeOptions.defaults("n1"), "simulated://0.1", "sim", "b", T0);
    Instant later = Instant.parse("2026-01-01T10:00:40Z");

    Node beat = NodeObjects.heartbeat(node, later);

    assertThat(beat.getStatus().getConditions())
        .allSatisfy(
            c -> {
              assertThat(c.getLastHeartbeatTime()).isEqualTo(later);
              assertThat(c.getLastTransitionTime())
                  .isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
            });
    assertThat(node.getStatus().getConditions().get(0).getLastHeartbeatTime())
        .as("the original is not changed")
        .isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
  }

  @Test
  void heartbeatBringsConditionsMarkedUnknownBackToHealthy() {
    Node node = NodeObjects.node(NodeOptions.defaults("n1"), "simulated://0.1", "sim", "b", T0);
    Instant lost = Instant.parse("2026-01-01T10:01:00Z");
    for (NodeCondition condition : node.getStatus().getConditions()) {
      condition.setStatus("Unknown");
      condition.setReason("NodeStatusUnknown");
      condition.setMessage("Kubelet stopped posting node status.");
      condition.setLastTransitionTime(lost);
    }
    Instant back = Instant.parse("2026-01-01T10:02:00Z");

    Node beat = NodeObjects.heartbeat(node, back);

    assertThat(beat.getStatus().getConditions())
        .extracting(
            NodeCondition::getType,
            NodeCondition::getStatus,
            NodeCondition::getReason,
            NodeCondition::getLastHeartbeatTime,
            NodeCondition::getLastTransitionTime)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "MemoryPressure", "False", "KubeletHasSufficientMemory", back, back),
            org.assertj.core.groups.Tuple.tuple(
                "DiskPressure", "False", "KubeletHasNoDiskPressure", back, back),
            org.assertj.core.groups.Tuple.tuple(
                "PIDPressure", "False", "KubeletHasSufficientPID", back, back),
            org.assertj.core.groups.Tuple.tuple("Ready", "True", "KubeletReady", back, back));
  }

  @Test
  void reRegisteringPatchesOnlyTheLabelsAndPodCidrsTheNodeOwnsThatDiffer() {
    Node fresh = NodeObjects.node(NodeOptions.defaults("n1"), "simulated://0.1", "sim", "b", T0);
    Map<String, String> labels = new java.util.HashMap<>(fresh.getMetadata().getLabels());
    labels.put("kubernetes.io/hostname", "renamed");
    labels.put("team", "a");
    Node existing =
        Node.newBuilder(fresh)
            .setMetadata(
                ObjectMeta.newBuilder(fresh.getMetadata())
                    .setResourceVersion("42")
                    .setLabels(labels)
                    .build())
            .build();

    assertThat(NodeObjects.reRegistration(existing, fresh).orElseThrow().toString())
        .isEqualTo("{\"metadata\":{\"labels\":{\"kubernetes.io/hostname\":\"n1\"}}}");
    assertThat(NodeObjects.reRegistration(fresh, fresh)).isEmpty();
    Node withoutSpec = Node.newBuilder(fresh).setSpec(null).build();
    assertThat(NodeObjects.reRegistration(withoutSpec, fresh).orElseThrow().path("spec"))
        .hasToString(
            "{\"podCIDR\":\""
                + fresh.getSpec().getPodCIDR()
                + "\",\"podCIDRs\":[\""
                + fresh.getSpec().getPodCIDR()
                + "\"]}");
  }

  @Test
  void leaseIsHeldByTheNodeForFortySecondsWithAMicrosecondRenewTime() {
    Lease lease = NodeObjects.lease("n1", T0, "9");

    assertThat(lease.getMetadata().getNamespace()).isEqualTo("kube-node-lease");
    assertThat(lease.getMetadata().getResourceVersion()).isEqualTo("9");
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("n1");
    assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
    assertThat(lease.getSpec().getRenewTime())
        .isEqualTo(Instant.parse("2026-01-01T10:00:00.123456Z"));
  }
}
