package io.streamplane.controller.disruption;

import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentSpec;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodStatus;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetSpec;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Intent;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * kube-controller-manager's disruption controller on the one controller contract: keeps the status
 * of every PodDisruptionBudget ({@link DisruptionReconciler}) from the pods of its namespace.
 *
 * <p>Keyed by namespace, as the endpoints controller is, so a namespace's budgets, pods,
 * ReplicaSets and Deployments are on one task: the cache holds the budgets ({@code <ns>/b/<name>}),
 * the pods ({@code <ns>/p/<name>}, reduced to their labels, owners, deletion, phase and conditions
 * before the re-keying), the ReplicaSets ({@code <ns>/r/<name>}, reduced to their controller and
 * replicas) and the Deployments ({@code <ns>/d/<name>}, reduced to their replicas), whose scale a
 * percentage or a maxUnavailable is taken of. A pod's change queues the namespace only when a
 * budget of the namespace selects the pod (before or after the change); a ReplicaSet's or a
 * Deployment's when the namespace has a budget. A reconcile decides for every budget of the
 * namespace; a converged budget writes nothing, and the earliest expiry of a {@code disruptedPods}
 * entry is the moment to look again.
 *
 * <p>Limits: no {@code NoPods} or {@code CalculateExpectedPodCountFailed} Events; the status is
 * written as the {@code disruption-controller} service account, with the budget's resourceVersion
 * as precondition, so an eviction's write in between makes it a Conflict decided again from the
 * eviction's status.
 */
public final class DisruptionController implements Controller<DisruptionController.View> {

  static final UserInfo ACTOR = ControllerActors.serviceAccount("disruption-controller");
  private static final String BUDGETS = "/b/";
  private static final String PODS = "/p/";
  private static final String REPLICA_SETS = "/r/";
  private static final String DEPLOYMENTS = "/d/";

  /** A namespace's budgets, pods, ReplicaSets and Deployments. */
  public record View(
      List<PodDisruptionBudget> budgets,
      List<Pod> pods,
      List<ReplicaSet> replicaSets,
      List<Deployment> deployments) {}

  @Override
  public String name() {
    return "disruption";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    boolean concerned =
        object instanceof PodDisruptionBudget
            || object instanceof Pod
            || object instanceof ReplicaSet;
    return concerned && event.getNamespace() != null && !event.getNamespace().isEmpty()
        ? List.of(event.getNamespace())
        : List.of();
  }

  @Override
  public ResourceEvent reduce(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    SpecificRecord reduced;
    if (object instanceof Pod pod) {
      reduced = reduced(pod);
    } else if (object instanceof ReplicaSet rs) {
      reduced = reduced(rs);
    } else if (object instanceof Deployment deployment) {
      reduced = reduced(deployment);
    } else {
      return event;
    }
    return ResourceEvent.newBuilder(event).setEncodedObject(KindObjects.encode(reduced)).build();
  }

  /** A pod as the controller reads it: name, labels, owners, deletion, phase and conditions. */
  static Pod reduced(Pod pod) {
    ObjectMeta meta = pod.getMetadata();
    return Pod.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(meta.getName())
                .setNamespace(meta.getNamespace())
                .setUid(meta.getUid())
                .setLabels(meta.getLabels())
                .setOwnerReferences(meta.getOwnerReferences())
                .setDeletionTimestamp(meta.getDeletionTimestamp())
                .build())
        .setStatus(
            pod.getStatus() == null
                ? null
                : PodStatus.newBuilder()
                    .setPhase(pod.getStatus().getPhase())
                    .setConditions(pod.getStatus().getConditions())
                    .build())
        .build();
  }

  /** A Deployment as the controller reads it: its identity and replicas. */
  static Deployment reduced(Deployment deployment) {
    ObjectMeta meta = deployment.getMetadata();
    return Deployment.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(meta.getName())
                .setNamespace(meta.getNamespace())
                .setUid(meta.getUid())
                .build())
        .setSpec(
            deployment.getSpec() == null
                ? null
                : DeploymentSpec.newBuilder()
                    .setReplicas(deployment.getSpec().getReplicas())
                    .build())
        .build();
  }

  /** A ReplicaSet as the controller reads it: its identity, controller and replicas. */
  static ReplicaSet reduced(ReplicaSet rs) {
    ObjectMeta meta = rs.getMetadata();
    return ReplicaSet.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(meta.getName())
                .setNamespace(meta.getNamespace())
                .setUid(meta.getUid())
                .setOwnerReferences(meta.getOwnerReferences())
                .build())
        .setSpec(
            rs.getSpec() == null
                ? null
                : ReplicaSetSpec.newBuilder().setReplicas(rs.getSpec().getReplicas()).build())
        .build();
  }

  @Override
  public boolean observe(String ns, ResourceEvent event, long timestampMs, ControllerCache cache) {
    SpecificRecord object = KindObjects.of(event);
    boolean deleted = event.getType() == EventType.DELETED;
    if (object instanceof PodDisruptionBudget) {
      cache.putOrDelete(ns + BUDGETS + event.getName(), deleted ? null : event);
      return !deleted;
    }
    boolean budgets = !cache.values(ns + BUDGETS).isEmpty();
    if (object instanceof ReplicaSet) {
      cache.putOrDelete(ns + REPLICA_SETS + event.getName(), deleted ? null : event);
      return budgets;
    }
    if (object instanceof Deployment) {
      cache.putOrDelete(ns + DEPLOYMENTS + event.getName(), deleted ? null : event);
      return budgets;
    }
    Pod pod = (Pod) object;
    ResourceEvent before = cache.get(ns + PODS + event.getName());
    cache.putOrDelete(ns + PODS + event.getName(), deleted ? null : event);
    if (!budgets) {
      return false;
    }
    List<Pod> changed = new ArrayList<>(List.of(pod));
    if (before != null) {
      changed.add((Pod) KindObjects.of(before));
    }
    for (ResourceEvent budgetEvent : cache.values(ns + BUDGETS)) {
      PodDisruptionBudget budget = (PodDisruptionBudget) KindObjects.of(budgetEvent);
      if (!DisruptionReconciler.selected(budget.getSpec(), changed).isEmpty()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public View view(String ns, ControllerCache cache) {
    List<PodDisruptionBudget> budgets = new ArrayList<>();
    cache.values(ns + BUDGETS).forEach(e -> budgets.add((PodDisruptionBudget) KindObjects.of(e)));
    if (budgets.isEmpty()) {
      return new View(List.of(), List.of(), List.of(), List.of());
    }
    List<Pod> pods = new ArrayList<>();
    cache.values(ns + PODS).forEach(e -> pods.add((Pod) KindObjects.of(e)));
    List<ReplicaSet> replicaSets = new ArrayList<>();
    cache.values(ns + REPLICA_SETS).forEach(e -> replicaSets.add((ReplicaSet) KindObjects.of(e)));
    List<Deployment> deployments = new ArrayList<>();
    cache.values(ns + DEPLOYMENTS).forEach(e -> deployments.add((Deployment) KindObjects.of(e)));
    return new View(budgets, pods, replicaSets, deployments);
  }

  @Override
  public Result reconcile(String ns, View view, Expectations expectations, Instant now) {
    List<Intent> intents = new ArrayList<>();
    Instant recheckAt = null;
    for (PodDisruptionBudget budget : view.budgets()) {
      DisruptionReconciler.Decision decision =
          DisruptionReconciler.reconcile(
              budget, view.pods(), view.replicaSets(), view.deployments(), now);
      if (decision.updated() != null) {
        intents.add(Intent.updateStatus("poddisruptionbudgets", "policy", decision.updated()));
      }
      Instant at = decision.recheckAt();
      if (at != null && (recheckAt == null || at.isBefore(recheckAt))) {
        recheckAt = at;
      }
    }
    return Result.of(Result.by(ACTOR, intents), recheckAt);
  }
}
