package io.streamplane.controller.deployment;

import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentStatus;
import io.streamplane.api.Pod;
import io.streamplane.api.ReplicaSet;
import io.streamplane.controller.Intent;
import java.time.Instant;
import java.util.List;

/** Placeholder replaced by the deployment controller's reconcile logic (being written). */
public final class DeploymentReconciler {

  public record Decision(List<Intent> intents, DeploymentStatus status) {}

  private DeploymentReconciler() {}

  public static Decision reconcile(
      Deployment deployment, List<ReplicaSet> replicaSets, List<Pod> pods, Instant now) {
    return new Decision(List.of(), null);
  }
}
