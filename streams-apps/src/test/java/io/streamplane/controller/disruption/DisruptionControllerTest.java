package io.streamplane.controller.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.Node;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** How the disruption controller keys and reduces the events it reads. */
class DisruptionControllerTest {

  private final DisruptionController controller = new DisruptionController();

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

  private static Pod pod() {
    return Pod.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("web-0")
                .setNamespace("shop")
                .setLabels(Map.of("app", "web"))
                .setAnnotations(Map.of("note", "x"))
                .build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(
                    List.of(Container.newBuilder().setName("web").setImage("nginx").build()))
                .build())
        .setStatus(
            PodStatus.newBuilder()
                .setPhase("Running")
                .setPodIP("10.0.0.1")
                .setConditions(
                    List.of(PodCondition.newBuilder().setType("Ready").setStatus("True").build()))
                .build())
        .build();
  }

  @Test
  void budgetsAndPodsGoToTheirNamespaceAndNodesNowhere() {
    PodDisruptionBudget budget =
        PodDisruptionBudget.newBuilder()
            .setMetadata(ObjectMeta.newBuilder().setName("web").setNamespace("shop").build())
            .build();
    Node node =
        Node.newBuilder().setMetadata(ObjectMeta.newBuilder().setName("n1").build()).build();

    assertThat(controller.keysOf(event("poddisruptionbudgets", "policy", budget)))
        .containsExactly("shop");
    assertThat(controller.keysOf(event("pods", "", pod()))).containsExactly("shop");
    assertThat(controller.keysOf(event("nodes", "", node))).isEmpty();
  }

  @Test
  void aPodCrossesTheReKeyedTopicWithOnlyWhatTheBudgetsRead() {
    Pod reduced = (Pod) KindObjects.of(controller.reduce(event("pods", "", pod())));

    assertThat(reduced.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(reduced.getMetadata().getAnnotations()).isNull();
    assertThat(reduced.getSpec()).isNull();
    assertThat(reduced.getStatus().getPhase()).isEqualTo("Running");
    assertThat(reduced.getStatus().getConditions()).hasSize(1);
    assertThat(reduced.getStatus().getPodIP()).isNull();
  }
}
