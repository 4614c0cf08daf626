package io.streamplane.controller.replicaset;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetSpec;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ReplicaSet controller's decision for one ReplicaSet and its pods, as a pure function. */
class ReplicaSetReconcilerTest {

  private static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");
  private static final Map<String, String> LABELS = Map.of("app", "web");

  private static ReplicaSet replicaSet(int replicas) {
    return ReplicaSet.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("ReplicaSet")
        .setMetadata(
            ObjectMeta.newBuilder().setName("web").setNamespace("default").setUid("rs-uid").build())
        .setSpec(
            ReplicaSetSpec.newBuilder()
                .setReplicas(replicas)
                .setSelector(LabelSelector.newBuilder().setMatchLabels(LABELS).build())
                .setTemplate(
                    PodTemplateSpec.newBuilder()
                        .setMetadata(ObjectMeta.newBuilder().setLabels(LABELS).build())
                        .setSpec(
                            PodSpec.newBuilder()
                                .setContainers(
                                    List.of(
                                        Container.newBuilder()
                                            .setName("web")
                                            .setImage("nginx")
                                            .build()))
                                .build())
                        .build())
                .build())
        .build();
  }

  private static Pod pod(String name, Map<String, String> labels, String phase) {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid(name + "-uid")
                .setLabels(labels)
                .setOwnerReferences(
                    List.of(
                        OwnerReference.newBuilder()
                            .setApiVersion("apps/v1")
                            .setKind("ReplicaSet")
                            .setName("web")
                            .setUid("rs-uid")
                            .setController(true)
                            .build()))
                .build())
        .setSpec(PodSpec.newBuilder().setContainers(List.of()).build())
        .setStatus(PodStatus.newBuilder().setPhase(phase).build())
        .build();
  }

  private static List<CommandVerb> verbs(List<Intent> intents, String resource) {
    return intents.stream().filter(i -> i.resource().equals(resource)).map(Intent::verb).toList();
  }

  @Test
  void missingReplicasAreCreatedFromTheTemplateWithControllerReferencesAndDeterministicNames() {
    List<Intent> intents = ReplicaSetReconciler.reconcile(replicaSet(3), List.of(), true, 0, NOW);
    List<Intent> again = ReplicaSetReconciler.reconcile(replicaSet(3), List.of(), true, 0, NOW);

    assertThat(verbs(intents, "pods"))
        .containsExactly(CommandVerb.CREATE, CommandVerb.CREATE, CommandVerb.CREATE);
    Pod created = (Pod) intents.get(0).object();
    assertThat(created.getMetadata().getLabels()).isEqualTo(LABELS);
    assertThat(created.getMetadata().getOwnerReferences().get(0).getUid()).isEqualTo("rs-uid");
    assertThat(created.getMetadata().getOwnerReferences().get(0).getController()).isTrue();
    assertThat(intents.stream().map(Intent::name).toList())
        .as("the same decision twice names the same pods, so a repeat is AlreadyExists")
        .isEqualTo(again.stream().map(Intent::name).toList());
    assertThat(verbs(intents, "replicasets")).containsExactly(CommandVerb.UPDATE_STATUS);
  }

  @Test
  void extraReplicasAreDeletedPendingOnesFirst() {
    List<Pod> pods = new ArrayList<>();
    pods.add(pod("a", LABELS, "Running"));
    pods.add(pod("b", LABELS, "Pending"));
    pods.add(pod("c", LABELS, "Running"));

    List<Intent> intents = ReplicaSetReconciler.reconcile(replicaSet(2), pods, true, 0, NOW);

    assertThat(intents.stream().filter(i -> i.verb() == CommandVerb.DELETE).map(Intent::name))
        .containsExactly("b");
  }

  @Test
  void aPodThatNoLongerMatchesTheSelectorIsReleasedAndReplaced() {
    Pod relabelled = pod("a", Map.of("app", "debug"), "Running");

    List<Intent> intents =
        ReplicaSetReconciler.reconcile(replicaSet(1), List.of(relabelled), true, 0, NOW);

    Intent release =
        intents.stream().filter(i -> i.verb() == CommandVerb.UPDATE).findFirst().orElseThrow();
    assertThat(((Pod) release.object()).getMetadata().getOwnerReferences()).isNullOrEmpty();
    assertThat(verbs(intents, "pods")).contains(CommandVerb.CREATE);
  }

  @Test
  void aReplicaSetWhoseReplicasAreNotManagedCreatesNoPods() {
    List<Intent> first = ReplicaSetReconciler.reconcile(replicaSet(1), List.of(), true, 0, NOW);
    ReplicaSet withStatus = replicaSet(1);
    withStatus.setStatus(
        ((ReplicaSet)
                first.stream()
                    .filter(i -> i.verb() == CommandVerb.UPDATE_STATUS)
                    .findFirst()
                    .orElseThrow()
                    .object())
            .getStatus());
    Pod running = pod("web-x", LABELS, "Running");

    List<Intent> settled =
        ReplicaSetReconciler.reconcile(withStatus, List.of(running), false, 0, NOW);

    assertThat(verbs(settled, "pods")).as("not managing replicas: nothing created").isEmpty();
  }
}
