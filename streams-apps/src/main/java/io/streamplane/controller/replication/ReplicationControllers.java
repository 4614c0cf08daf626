package io.streamplane.controller.replication;

import io.streamplane.api.LabelSelector;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetSpec;
import io.streamplane.api.ReplicaSetStatus;
import io.streamplane.api.ReplicationController;
import io.streamplane.api.ReplicationControllerStatus;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.Intent;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ReplicationController controller, as kube-controller-manager runs it ({@code
 * pkg/controller/replication}): the ReplicaSet controller's code over ReplicationControllers seen
 * as ReplicaSets ({@code conversion.go}). An RC becomes a ReplicaSet whose selector is the RC's
 * labels as {@code matchLabels}; {@link ReplicaSetReconciler} decides, its pods get a controller
 * reference to the {@code v1} ReplicationController, and its status update becomes the RC's
 * (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas, observedGeneration).
 *
 * <p>Orphan pods matching an RC are adopted by the namespace's index ({@code
 * NamespaceControllers}), as a ReplicaSet's are.
 */
public final class ReplicationControllers {

  public static final ControllerRefManager.OwnerKind REPLICATION_CONTROLLER =
      new ControllerRefManager.OwnerKind("v1", "ReplicationController");

  private ReplicationControllers() {}

  /** {@link ReplicaSetReconciler}'s decision for {@code rc}, its writes made to the RC. */
  public static List<Intent> reconcile(
      ReplicationController rc,
      List<Pod> controlledPods,
      boolean manageReplicas,
      int podsBeingCreated,
      Instant now) {
    if (rc.getMetadata() == null || rc.getSpec() == null || rc.getSpec().getTemplate() == null) {
      return List.of();
    }
    List<Intent> intents = new ArrayList<>();
    for (Intent intent :
        ReplicaSetReconciler.reconcile(
            asReplicaSet(rc),
            REPLICATION_CONTROLLER,
            controlledPods,
            manageReplicas,
            podsBeingCreated,
            now)) {
      if (intent.verb() == CommandVerb.UPDATE_STATUS && intent.resource().equals("replicasets")) {
        ReplicationController updated = KubeObjects.copy(rc);
        updated.setStatus(status(((ReplicaSet) intent.object()).getStatus(), rc.getStatus()));
        intents.add(Intent.updateStatus("replicationcontrollers", "", updated));
      } else {
        intents.add(intent);
      }
    }
    return intents;
  }

  /** {@code nextAvailable} of the RC seen as a ReplicaSet. */
  public static Instant nextAvailable(
      ReplicationController rc, List<Pod> controlledPods, Instant now) {
    return rc.getSpec() == null
        ? null
        : ReplicaSetReconciler.nextAvailable(asReplicaSet(rc), controlledPods, now);
  }

  /** {@code Convert_v1_ReplicationController_To_apps_ReplicaSet}. */
  public static ReplicaSet asReplicaSet(ReplicationController rc) {
    Map<String, String> selector = rc.getSpec().getSelector();
    ReplicationControllerStatus status = rc.getStatus();
    return ReplicaSet.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("ReplicaSet")
        .setMetadata(rc.getMetadata())
        .setSpec(
            ReplicaSetSpec.newBuilder()
                .setReplicas(rc.getSpec().getReplicas())
                .setMinReadySeconds(rc.getSpec().getMinReadySeconds())
                .setSelector(
                    selector == null
                        ? null
                        : LabelSelector.newBuilder().setMatchLabels(selector).build())
                .setTemplate(rc.getSpec().getTemplate())
                .build())
        .setStatus(
            status == null
                ? null
                : ReplicaSetStatus.newBuilder()
                    .setReplicas(status.getReplicas())
                    .setFullyLabeledReplicas(status.getFullyLabeledReplicas())
                    .setReadyReplicas(status.getReadyReplicas())
                    .setAvailableReplicas(status.getAvailableReplicas())
                    .setObservedGeneration(status.getObservedGeneration())
                    .build())
        .build();
  }

  /** The RC's status from the ReplicaSet status decided, its conditions kept. */
  private static ReplicationControllerStatus status(
      ReplicaSetStatus decided, ReplicationControllerStatus old) {
    return ReplicationControllerStatus.newBuilder()
        .setReplicas(decided.getReplicas())
        .setFullyLabeledReplicas(decided.getFullyLabeledReplicas())
        .setReadyReplicas(decided.getReadyReplicas())
        .setAvailableReplicas(decided.getAvailableReplicas())
        .setObservedGeneration(decided.getObservedGeneration())
        .setConditions(old == null ? null : old.getConditions())
        .build();
  }
}
