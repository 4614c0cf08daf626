package io.streamplane.controller;

import io.streamplane.api.Deployment;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicationController;
import io.streamplane.controller.Controller.Decision;
import io.streamplane.controller.deployment.DeploymentReconciler;
import io.streamplane.controller.gc.GarbageCollector;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.controller.replication.ReplicationControllers;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;

/**
 * The controllers of one owner key as a pure function: given what is known of the owner and its
 * dependents and which writes are still pending, decide the commands to send (ReplicaSet,
 * ReplicationController, Deployment, garbage collector) and when to look again if only time can
 * change the answer. The {@link ControllerProcessor} leaves out intents whose write is already
 * pending: a write is sent once and then waited for.
 */
public final class OwnerReconciler {

  /** How often a rollout in progress is looked at again for its progress deadline. */
  static final Duration PROGRESS_RECHECK = Duration.ofSeconds(5);

  static final UserInfo REPLICASET_CONTROLLER =
      ControllerActors.serviceAccount("replicaset-controller");
  static final UserInfo REPLICATION_CONTROLLER =
      ControllerActors.serviceAccount("replication-controller");
  static final UserInfo DEPLOYMENT_CONTROLLER =
      ControllerActors.serviceAccount("deployment-controller");
  static final UserInfo GARBAGE_COLLECTOR =
      ControllerActors.serviceAccount("generic-garbage-collector");

  private OwnerReconciler() {}

  public static Controller.Result reconcile(
      OwnerView view, Expectations expectations, Instant now) {
    List<Decision> decisions = new ArrayList<>();
    Instant requeueAt = null;
    SpecificRecord owner = view.liveOwner();
    if (owner instanceof ReplicaSet rs) {
      List<Pod> pods = view.controlled(Pod.class);
      boolean manage = !expectations.creatingOrDeleting("pods");
      ReplicaSetReconciler.reconcile(rs, pods, manage, expectations.creating("pods"), now)
          .forEach(i -> decisions.add(new Decision(i, REPLICASET_CONTROLLER)));
      requeueAt = ReplicaSetReconciler.nextAvailable(rs, pods, now);
    } else if (owner instanceof ReplicationController rc) {
      List<Pod> pods = view.controlled(Pod.class);
      boolean manage = !expectations.creatingOrDeleting("pods");
      ReplicationControllers.reconcile(rc, pods, manage, expectations.creating("pods"), now)
          .forEach(i -> decisions.add(new Decision(i, REPLICATION_CONTROLLER)));
      requeueAt = ReplicationControllers.nextAvailable(rc, pods, now);
    } else if (owner instanceof Deployment deployment) {
      String self = target(view);
      // Kubernetes' deployment controller waits for its ReplicaSet writes to be observed: a view
      // that misses them could exceed maxSurge across ReplicaSets.
      if (!expectations.anyPendingBut(self)) {
        decisions.addAll(deploymentDecisions(deployment, view.controlled(ReplicaSet.class), now));
      }
      if (inMotion(deployment)) {
        requeueAt = now.plus(PROGRESS_RECHECK);
      }
    }
    GarbageCollector.collect(view).forEach(i -> decisions.add(new Decision(i, GARBAGE_COLLECTOR)));
    return Controller.Result.of(decisions, requeueAt);
  }

  private static String target(OwnerView view) {
    return Expectations.target(
        view.owner().getResource(),
        view.owner().getGroup(),
        view.owner().getNamespace(),
        view.owner().getName());
  }

  private static List<Decision> deploymentDecisions(
      Deployment deployment, List<ReplicaSet> owned, Instant now) {
    DeploymentReconciler.Decision decision = DeploymentReconciler.reconcile(deployment, owned, now);
    List<Decision> decisions = new ArrayList<>();
    decision.intents().forEach(i -> decisions.add(new Decision(i, DEPLOYMENT_CONTROLLER)));
    boolean statusChanges =
        decision.status() != null && !KubeObjects.same(decision.status(), deployment.getStatus());
    Map<String, String> annotations = deployment.getMetadata().getAnnotations();
    String revision = annotations == null ? null : annotations.get(DeploymentReconciler.REVISION);
    boolean revisionChanges = decision.revision() != null && !decision.revision().equals(revision);
    if (statusChanges || revisionChanges) {
      // One status update for both, as Kubernetes' deployment controller writes the revision
      // annotation (its status strategy lets annotations through).
      Deployment updated = KubeObjects.copy(deployment);
      if (statusChanges) {
        updated.setStatus(decision.status());
      }
      if (revisionChanges) {
        Map<String, String> withRevision =
            new TreeMap<>(annotations == null ? Map.of() : annotations);
        withRevision.put(DeploymentReconciler.REVISION, decision.revision());
        updated.getMetadata().setAnnotations(withRevision);
      }
      decisions.add(
          new Decision(Intent.updateStatus("deployments", "apps", updated), DEPLOYMENT_CONTROLLER));
    }
    return decisions;
  }

  /** A rollout whose progress deadline still matters: neither complete nor already exceeded. */
  static boolean inMotion(Deployment deployment) {
    if (deployment.getSpec() == null
        || deployment.getSpec().getProgressDeadlineSeconds() == null
        || deployment.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    var conditions = deployment.getStatus() == null ? null : deployment.getStatus().getConditions();
    if (conditions == null) {
      return true;
    }
    return conditions.stream()
        .noneMatch(
            c ->
                "Progressing".equals(c.getType())
                    && (Objects.equals("NewReplicaSetAvailable", c.getReason())
                        || Objects.equals("ProgressDeadlineExceeded", c.getReason())));
  }
}
