package io.streamplane.controller.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.DaemonSet;
import io.streamplane.api.Node;
import io.streamplane.api.NodeCondition;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.Taint;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** How the DaemonSet controller keys and reduces the events it reads. */
class DaemonSetControllerTest {

  private final DaemonSetController controller = new DaemonSetController();

  private static ResourceEvent event(String resource, String group, SpecificRecord object) {
    var meta = io.streamplane.schema.objects.KubeObjects.meta(object);
    return ResourceEvent.newBuilder()
        .setType(EventType.MODIFIED)
        .setResource(resource)
        .setGroup(group)
        .setNamespace(meta.getNamespace() == null ? "" : meta.getNamespace())
        .setName(meta.getName())
        .setResourceVersion(1L)
        .setEncodedObject(KindObjects.encode(object))
        .setCommandId("c-1")
        .setActor(UserInfo.newBuilder().setUsername("test").build())
        .build();
  }

  @Test
  void aNodeGoesToEveryShardAndADaemonSetWithItsPodsToOne() {
    Node node =
        Node.newBuilder().setMetadata(ObjectMeta.newBuilder().setName("n1").build()).build();
    DaemonSet ds =
        DaemonSet.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder().setName("agent").setNamespace("a").setUid("ds-uid").build())
            .build();
    Pod pod =
        Pod.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("agent-x")
                    .setNamespace("a")
                    .setUid("pod-uid")
                    .setOwnerReferences(
                        List.of(
                            OwnerReference.newBuilder()
                                .setApiVersion("apps/v1")
                                .setKind("DaemonSet")
                                .setName("agent")
                                .setUid("ds-uid")
                                .setController(true)
                                .build()))
                    .build())
            .build();
    Pod orphan =
        Pod.newBuilder()
            .setMetadata(ObjectMeta.newBuilder().setName("p").setNamespace("a").build())
            .build();

    assertThat(controller.keysOf(event("nodes", "", node)))
        .hasSize(DaemonSetController.SHARDS)
        .doesNotHaveDuplicates();
    String shard = DaemonSetController.shardOf("ds-uid");
    assertThat(controller.keysOf(event("daemonsets", "apps", ds))).containsExactly(shard);
    assertThat(controller.keysOf(event("pods", "", pod))).containsExactly(shard);
    assertThat(controller.keysOf(event("pods", "", orphan))).isEmpty();
  }

  @Test
  void aNodeIsReducedToItsNameLabelsAndTaints() {
    Node node =
        Node.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("n1")
                    .setLabels(Map.of("role", "edge"))
                    .setAnnotations(Map.of("a", "b"))
                    .build())
            .setSpec(
                NodeSpec.newBuilder()
                    .setPodCIDR("10.0.0.0/24")
                    .setTaints(
                        List.of(Taint.newBuilder().setKey("k").setEffect("NoSchedule").build()))
                    .build())
            .setStatus(
                NodeStatus.newBuilder()
                    .setConditions(
                        List.of(
                            NodeCondition.newBuilder().setType("Ready").setStatus("True").build()))
                    .build())
            .build();

    Node reduced = (Node) KindObjects.of(controller.reduce(event("nodes", "", node)));

    assertThat(reduced.getMetadata().getLabels()).containsEntry("role", "edge");
    assertThat(reduced.getMetadata().getAnnotations()).isNull();
    assertThat(reduced.getSpec().getTaints()).hasSize(1);
    assertThat(reduced.getSpec().getPodCIDR()).isNull();
    assertThat(reduced.getStatus()).isNull();
  }
}
