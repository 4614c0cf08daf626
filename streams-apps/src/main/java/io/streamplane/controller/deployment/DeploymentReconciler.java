package io.streamplane.controller.deployment;

import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentCondition;
import io.streamplane.api.DeploymentSpec;
import io.streamplane.api.DeploymentStatus;
import io.streamplane.api.DeploymentStrategy;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetCondition;
import io.streamplane.api.ReplicaSetSpec;
import io.streamplane.api.RollingUpdateDeployment;
import io.streamplane.controller.Intent;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Kubernetes' deployment controller ({@code pkg/controller/deployment}: sync.go, rolling.go,
 * recreate.go, progress.go and util/deployment_util.go) as a pure function: given a Deployment, the
 * ReplicaSets it controls and the time, decide which ReplicaSets to create, scale or delete and
 * which status the Deployment should have.
 *
 * <p>Contract. {@code replicaSets} are the ReplicaSets whose controller reference is the Deployment
 * (others are ignored here too). The Recreate strategy waits until the old pods are gone by their
 * ReplicaSets' {@code status.replicas} and {@code status.terminatingReplicas}, as Kubernetes 1.33
 * does, so the function needs no pods. It reads nothing else, changes none of its arguments and
 * returns the same decision for the same input. Creates use the deterministic name {@code
 * <deployment>-<pod-template-hash>}; updates carry the resourceVersion the ReplicaSet was read
 * with, so a decision taken on a stale view is refused by the store rather than applied; each
 * ReplicaSet gets at most one intent per decision and no update that changes nothing. The returned
 * status is the whole status the Deployment should have; the caller writes it when it differs.
 * Condition times are {@code now} truncated to seconds and are kept as they were when a condition
 * does not change, so reconciling the state a decision produced gives no further intents until
 * something (pods, spec) moves.
 *
 * <p>The order of a sync follows Kubernetes: paused conditions; then a paused Deployment or a
 * scaling event (a ReplicaSet's {@code desired-replicas} annotation differs from spec.replicas)
 * only scales, proportionally across the active ReplicaSets; otherwise the strategy rolls out one
 * step (RollingUpdate: scale the new ReplicaSet up within maxSurge, else old ones down within
 * maxUnavailable, unhealthy replicas first; Recreate: old ones to zero, wait for their pods, then
 * the new one to full size); when the rollout is complete, ReplicaSets beyond revisionHistoryLimit
 * are deleted; then status and the Available, Progressing and ReplicaFailure conditions.
 *
 * <p>The Deployment's own {@code deployment.kubernetes.io/revision} annotation is the new
 * ReplicaSet's revision ({@code SetDeploymentRevision}); the decision names it and the caller
 * writes it with the status, as Kubernetes' controller does with UpdateStatus. {@code kubectl
 * rollout undo} needs it: it replaces the Deployment's annotations with a JSON patch, which fails
 * on a Deployment that has none.
 *
 * <p>Limits. The pod-template-hash is deterministic but not the value Kubernetes computes. The
 * progress deadline is checked only when a reconcile runs: the caller has to reconcile again once
 * progressDeadlineSeconds have passed (Kubernetes requeues itself). Adoption and orphaning of
 * ReplicaSets by selector, the deprecated rollbackTo and events are not reproduced. A name
 * collision with a ReplicaSet the Deployment does not own cannot be seen here (the create fails
 * with AlreadyExists and is retried as is). Two departures make a pure function stable: cleanup
 * after a complete rollout uses the status being computed rather than the one last written, and
 * status counts use the replicas as decided rather than as before the decision.
 */
public final class DeploymentReconciler {

  public static final String REVISION = "deployment.kubernetes.io/revision";
  public static final String REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
  public static final String DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
  public static final String MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";

  public static final String AVAILABLE = "Available";
  public static final String PROGRESSING = "Progressing";
  public static final String REPLICA_FAILURE = "ReplicaFailure";

  public static final String MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable";
  public static final String MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable";
  public static final String NEW_REPLICA_SET_CREATED = "NewReplicaSetCreated";
  public static final String FOUND_NEW_REPLICA_SET = "FoundNewReplicaSet";
  public static final String REPLICA_SET_UPDATED = "ReplicaSetUpdated";
  public static final String NEW_REPLICA_SET_AVAILABLE = "NewReplicaSetAvailable";
  public static final String PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";
  public static final String DEPLOYMENT_PAUSED = "DeploymentPaused";
  public static final String DEPLOYMENT_RESUMED = "DeploymentResumed";

  public static final String RECREATE = "Recreate";

  /**
   * What one reconcile decided: the ReplicaSet intents, the status the Deployment should have, and
   * the revision it should carry in its {@code deployment.kubernetes.io/revision} annotation (the
   * new ReplicaSet's; null while there is none, and then the annotation stays as it is).
   */
  public record Decision(List<Intent> intents, DeploymentStatus status, String revision) {}

  private static final Set<String> ANNOTATIONS_NOT_COPIED =
      Set.of(
          "kubectl.kubernetes.io/last-applied-configuration",
          REVISION,
          REVISION_HISTORY,
          DESIRED_REPLICAS,
          MAX_REPLICAS,
          "deprecated.deployment.rollback.to");
  private static final int MAX_REVISION_HISTORY_CHARS = 2000;
  private static final String DEFAULT_SURGE_AND_UNAVAILABLE = "25%";

  private DeploymentReconciler() {}

  public static Decision reconcile(
      Deployment deployment, List<ReplicaSet> replicaSets, Instant now) {
    return new Sync(deployment, replicaSets, now).run();
  }

  /** The state of one reconcile; Kubernetes' controller keeps it in the Deployment it mutates. */
  private static final class Sync {

    private final Deployment deployment;
    private final ObjectMeta meta;
    private final DeploymentSpec spec;
    private final DeploymentStatus lastStatus;
    private final Instant now;

    private final int desired;
    private final boolean rolling;
    private final Object maxSurge;
    private final Object maxUnavailable;
    private final Integer revisionHistoryLimit;
    private final Integer progressDeadlineSeconds;

    private final List<ReplicaSetPlan> observed;
    private final List<DeploymentCondition> conditions;
    private Integer collisionCount;

    private ReplicaSetPlan newReplicaSet;
    private boolean newReplicaSetSearched;
    private final Set<ReplicaSetPlan> touched = new LinkedHashSet<>();
    private final List<ReplicaSetPlan> deleted = new ArrayList<>();

    Sync(Deployment deployment, List<ReplicaSet> replicaSets, Instant now) {
      this.deployment = deployment;
      this.meta = KubeObjects.meta(deployment);
      this.spec = deployment.getSpec() == null ? new DeploymentSpec() : deployment.getSpec();
      this.lastStatus =
          deployment.getStatus() == null ? new DeploymentStatus() : deployment.getStatus();
      this.now = now.truncatedTo(ChronoUnit.SECONDS);

      // Defaults as the API server applies them to apps/v1, for objects that did not pass it.
      this.desired = spec.getReplicas() == null ? 1 : spec.getReplicas();
      DeploymentStrategy strategy = spec.getStrategy();
      this.rolling = strategy == null || !RECREATE.equals(strategy.getType());
      RollingUpdateDeployment rollingUpdate = strategy == null ? null : strategy.getRollingUpdate();
      Object surge = rollingUpdate == null ? null : rollingUpdate.getMaxSurge();
      Object unavailable = rollingUpdate == null ? null : rollingUpdate.getMaxUnavailable();
      this.maxSurge = surge == null ? DEFAULT_SURGE_AND_UNAVAILABLE : surge;
      this.maxUnavailable = unavailable == null ? DEFAULT_SURGE_AND_UNAVAILABLE : unavailable;
      this.revisionHistoryLimit =
          spec.getRevisionHistoryLimit() == null ? 10 : spec.getRevisionHistoryLimit();
      this.progressDeadlineSeconds =
          spec.getProgressDeadlineSeconds() == null ? 600 : spec.getProgressDeadlineSeconds();

      String uid = meta.getUid();
      List<ReplicaSet> given = replicaSets == null ? List.of() : replicaSets;
      this.observed =
          given.stream()
              .filter(rs -> uid == null || uid.equals(controllerUid(KubeObjects.meta(rs))))
              .map(ReplicaSetPlan::observed)
              .sorted(ReplicaSetPlan.BY_CREATION)
              .collect(Collectors.toCollection(ArrayList::new));
      this.conditions =
          lastStatus.getConditions() == null
              ? new ArrayList<>()
              : new ArrayList<>(lastStatus.getConditions());
      this.collisionCount = lastStatus.getCollisionCount();
    }

    Decision run() {
      LabelSelector selector = spec.getSelector();
      if (selectsEverything(selector)) {
        // Kubernetes refuses to act on a selector that selects every pod; it only records that
        // it has seen the generation.
        DeploymentStatus status = DeploymentStatus.newBuilder(lastStatus).build();
        status.setObservedGeneration(meta.getGeneration());
        return finish(status);
      }
      if (meta.getDeletionTimestamp() != null) {
        resolveNewReplicaSet(false);
        return finish(calculateStatus());
      }
      checkPausedConditions();
      if (Boolean.TRUE.equals(spec.getPaused()) || isScalingEvent()) {
        return finish(syncScaleOnly());
      }
      return finish(rolling ? rolloutRolling() : rolloutRecreate());
    }

    // ------------------------------------------------------------ the new ReplicaSet and revisions

    /** getAllReplicaSetsAndSyncRevision: find (and sync) the new ReplicaSet, or create it. */
    private void resolveNewReplicaSet(boolean createIfMissing) {
      if (!newReplicaSetSearched) {
        newReplicaSetSearched = true;
        newReplicaSet =
            observed.stream()
                .filter(p -> PodTemplateHash.equalIgnoringHash(spec.getTemplate(), template(p)))
                .findFirst()
                .orElse(null);
        if (newReplicaSet != null) {
          syncExistingNewReplicaSet();
        }
      }
      if (newReplicaSet == null && createIfMissing) {
        createNewReplicaSet();
      }
    }

    private List<ReplicaSetPlan> oldReplicaSets() {
      return observed.stream().filter(p -> p != newReplicaSet).toList();
    }

    private List<ReplicaSetPlan> allReplicaSets() {
      List<ReplicaSetPlan> all = new ArrayList<>(oldReplicaSets());
      if (newReplicaSet != null) {
        all.add(newReplicaSet);
      }
      return all;
    }

    private String nextRevision() {
      long max = oldReplicaSets().stream().mapToLong(ReplicaSetPlan::revision).max().orElse(0);
      return Long.toString(max + 1);
    }

    private void syncExistingNewReplicaSet() {
      setNewReplicaSetAnnotations(newReplicaSet, nextRevision(), true);
      int wantedMinReady = spec.getMinReadySeconds() == null ? 0 : spec.getMinReadySeconds();
      Integer currentMinReady = newReplicaSet.minReadySeconds();
      if ((currentMinReady == null ? 0 : currentMinReady) != wantedMinReady) {
        newReplicaSet.setMinReadySeconds(wantedMinReady);
      }
      touched.add(newReplicaSet);
      if (hasProgressDeadline() && findCondition(conditions, PROGRESSING) == null) {
        setCondition(
            conditions,
            newCondition(
                PROGRESSING,
                "True",
                FOUND_NEW_REPLICA_SET,
                "Found new replica set \"%s\"".formatted(newReplicaSet.name())));
      }
    }

    private void createNewReplicaSet() {
      Set<String> taken =
          observed.stream().map(ReplicaSetPlan::name).collect(Collectors.toUnmodifiableSet());
      Integer count = collisionCount;
      String hash = PodTemplateHash.of(spec.getTemplate(), count);
      // An owned ReplicaSet with this name that is not the new one is a hash collision: Kubernetes
      // bumps status.collisionCount and hashes again on its next sync; we do it at once.
      for (int attempt = 0; taken.contains(meta.getName() + "-" + hash) && attempt < 100; ) {
        attempt++;
        count = count == null ? 1 : count + 1;
        hash = PodTemplateHash.of(spec.getTemplate(), count);
      }
      collisionCount = count;
      String name = meta.getName() + "-" + hash;

      PodTemplateSpec template =
          spec.getTemplate() == null
              ? new PodTemplateSpec()
              : KubeObjects.MODEL.deepCopy(PodTemplateSpec.getClassSchema(), spec.getTemplate());
      ObjectMeta templateMeta =
          template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
      Map<String, String> labels =
          new TreeMap<>(templateMeta.getLabels() == null ? Map.of() : templateMeta.getLabels());
      labels.put(PodTemplateHash.LABEL, hash);
      templateMeta.setLabels(new TreeMap<>(labels));
      template.setMetadata(templateMeta);

      LabelSelector selector =
          KubeObjects.MODEL.deepCopy(LabelSelector.getClassSchema(), spec.getSelector());
      Map<String, String> matchLabels =
          new TreeMap<>(selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels());
      matchLabels.put(PodTemplateHash.LABEL, hash);
      selector.setMatchLabels(matchLabels);

      ReplicaSet replicaSet =
          ReplicaSet.newBuilder()
              .setApiVersion("apps/v1")
              .setKind("ReplicaSet")
              .setMetadata(
                  ObjectMeta.newBuilder()
                      .setName(name)
                      .setNamespace(meta.getNamespace())
                      .setLabels(new TreeMap<>(labels))
                      .setOwnerReferences(
                          List.of(
                              OwnerReference.newBuilder()
                                  .setApiVersion("apps/v1")
                                  .setKind("Deployment")
                                  .setName(meta.getName())
                                  .setUid(meta.getUid())
                                  .setController(true)
                                  .setBlockOwnerDeletion(true)
                                  .build()))
                      .build())
              .setSpec(
                  ReplicaSetSpec.newBuilder()
                      .setReplicas(0)
                      .setMinReadySeconds(
                          spec.getMinReadySeconds() == null ? 0 : spec.getMinReadySeconds())
                      .setSelector(selector)
                      .setTemplate(template)
                      .build())
              .build();
      String revision = nextRevision();
      newReplicaSet = ReplicaSetPlan.toCreate(replicaSet);
      newReplicaSet.setReplicas(newReplicaSetReplicas(newReplicaSet));
      setNewReplicaSetAnnotations(newReplicaSet, revision, false);
      touched.add(newReplicaSet);
      if (hasProgressDeadline()) {
        setCondition(
            conditions,
            newCondition(
                PROGRESSING,
                "True",
                NEW_REPLICA_SET_CREATED,
                "Created new replica set \"%s\"".formatted(name)));
      }
    }

    /** SetNewReplicaSetAnnotations: Deployment annotations, revision (+history), replica counts. */
    private void setNewReplicaSetAnnotations(ReplicaSetPlan plan, String revision, boolean exists) {
      Map<String, String> annotations = plan.annotations();
      Map<String, String> own = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
      for (var entry : new TreeMap<>(own).entrySet()) {
        if (!ANNOTATIONS_NOT_COPIED.contains(entry.getKey())) {
          annotations.put(entry.getKey(), entry.getValue());
        }
      }
      String oldRevision = annotations.get(REVISION);
      long oldRevisionNumber;
      try {
        oldRevisionNumber = oldRevision == null ? 0 : Long.parseLong(oldRevision);
      } catch (NumberFormatException e) {
        return;
      }
      if (oldRevisionNumber < Long.parseLong(revision)) {
        annotations.put(REVISION, revision);
        if (oldRevision != null) {
          // A ReplicaSet that becomes new again is a rollback: remember the revisions it had.
          annotations.put(
              REVISION_HISTORY, appendRevision(annotations.get(REVISION_HISTORY), oldRevision));
        }
      }
      if (!exists) {
        setReplicasAnnotations(plan);
      }
    }

    private static String appendRevision(String history, String revision) {
      List<String> revisions = new ArrayList<>();
      if (history != null && !history.isEmpty()) {
        revisions.addAll(List.of(history.split(",")));
      }
      revisions.add(revision);
      while (String.join(",", revisions).length() > MAX_REVISION_HISTORY_CHARS
          && revisions.size() > 1) {
        revisions.remove(0);
      }
      return String.join(",", revisions);
    }

    private boolean replicasAnnotationsNeedUpdate(ReplicaSetPlan plan) {
      return !Integer.toString(desired).equals(plan.annotations().get(DESIRED_REPLICAS))
          || !Integer.toString(desired + maxSurge()).equals(plan.annotations().get(MAX_REPLICAS));
    }

    private void setReplicasAnnotations(ReplicaSetPlan plan) {
      plan.annotations().put(DESIRED_REPLICAS, Integer.toString(desired));
      plan.annotations().put(MAX_REPLICAS, Integer.toString(desired + maxSurge()));
    }

    // ------------------------------------------------------------ scaling

    /** scaleReplicaSetAndRecordEvent: true when the size changes. */
    private boolean scale(ReplicaSetPlan plan, int replicas) {
      return plan.replicas() != replicas && scaleWithAnnotations(plan, replicas);
    }

    /**
     * scaleReplicaSet: also refreshes the desired/max annotations; true when the size changes.
     *
     * <p>Unlike Kubernetes, a ReplicaSet whose controller has not yet observed its current spec is
     * not scaled down: it may be creating pods for that spec, which its status does not count yet,
     * and counting it with the smaller size would let the new ReplicaSet grow into room those pods
     * take. It is scaled down once its status is current, and then counts with its status.
     */
    private boolean scaleWithAnnotations(ReplicaSetPlan plan, int replicas) {
      if (replicas < plan.replicas() && !plan.statusIsCurrent()) {
        return false;
      }
      boolean sizeChanges = plan.replicas() != replicas;
      if (sizeChanges || replicasAnnotationsNeedUpdate(plan)) {
        plan.setReplicas(replicas);
        setReplicasAnnotations(plan);
        touched.add(plan);
      }
      return sizeChanges;
    }

    /**
     * NewRSNewReplicas: how far the new ReplicaSet may grow in this step. Unlike Kubernetes, which
     * sums the ReplicaSets' spec.replicas, a ReplicaSet counts with at least the pods its status
     * reports: an old ReplicaSet scaled down keeps its pods until its ReplicaSet controller deletes
     * them, and the new one grows only into the room they leave, so live pods stay within replicas
     * + maxSurge while that controller is behind.
     */
    private int newReplicaSetReplicas(ReplicaSetPlan newPlan) {
      if (!rolling) {
        return desired;
      }
      int surge = scaledValue(maxSurge, desired, true);
      int current = oldReplicaSets().stream().mapToInt(ReplicaSetPlan::podsCounted).sum();
      current += newPlan.podsCounted();
      int maxTotal = desired + surge;
      if (current >= maxTotal) {
        return newPlan.replicas();
      }
      int scaleUp = Math.min(maxTotal - current, desired - newPlan.replicas());
      return newPlan.replicas() + scaleUp;
    }

    /** isScalingEvent: an active ReplicaSet was sized for a different spec.replicas. */
    private boolean isScalingEvent() {
      resolveNewReplicaSet(false);
      for (ReplicaSetPlan plan : active(allReplicaSets())) {
        String annotated = plan.annotations().get(DESIRED_REPLICAS);
        try {
          if (annotated != null && Integer.parseInt(annotated) != desired) {
            return true;
          }
        } catch (NumberFormatException e) {
          // an unreadable annotation does not make a scaling event, as in Kubernetes
        }
      }
      return false;
    }

    /** sync: scale only (a paused Deployment, or spec.replicas changed), then plain status. */
    private DeploymentStatus syncScaleOnly() {
      resolveNewReplicaSet(false);
      List<ReplicaSetPlan> old = oldReplicaSets();
      scaleToDesired(old);
      if (Boolean.TRUE.equals(spec.getPaused())) {
        cleanup(old);
      }
      return calculateStatus();
    }

    /** scale: one active ReplicaSet takes all; otherwise spread the change proportionally. */
    private void scaleToDesired(List<ReplicaSetPlan> old) {
      ReplicaSetPlan activeOrLatest = activeOrLatest(old);
      if (activeOrLatest != null) {
        scale(activeOrLatest, desired);
        return;
      }
      if (isSaturated(newReplicaSet)) {
        for (ReplicaSetPlan plan : active(old)) {
          scale(plan, 0);
        }
        return;
      }
      if (!rolling) {
        return;
      }
      List<ReplicaSetPlan> all = new ArrayList<>(active(allReplicaSets()));
      int current = all.stream().mapToInt(ReplicaSetPlan::replicas).sum();
      int allowed = desired > 0 ? desired + maxSurge() : 0;
      int toAdd = allowed - current;
      // Larger ReplicaSets first; among equals, newer first when growing, older first when
      // shrinking, so leftovers go where Kubernetes puts them.
      Comparator<ReplicaSetPlan> bySize =
          Comparator.comparingInt(ReplicaSetPlan::replicas).reversed();
      if (toAdd > 0) {
        all.sort(bySize.thenComparing(ReplicaSetPlan.BY_CREATION.reversed()));
      } else if (toAdd < 0) {
        all.sort(bySize.thenComparing(ReplicaSetPlan.BY_CREATION));
      }
      int added = 0;
      Map<ReplicaSetPlan, Integer> sizes = new IdentityHashMap<>();
      for (ReplicaSetPlan plan : all) {
        int proportion = toAdd == 0 ? 0 : proportion(plan, toAdd, added);
        sizes.put(plan, plan.replicas() + proportion);
        added += proportion;
      }
      for (int i = 0; i < all.size(); i++) {
        ReplicaSetPlan plan = all.get(i);
        int size = sizes.get(plan);
        if (i == 0 && toAdd != 0) {
          size = Math.max(0, size + toAdd - added);
        }
        scaleWithAnnotations(plan, size);
      }
    }

    private ReplicaSetPlan activeOrLatest(List<ReplicaSetPlan> old) {
      if (newReplicaSet == null && old.isEmpty()) {
        return null;
      }
      List<ReplicaSetPlan> newestFirst = new ArrayList<>(old);
      newestFirst.sort(ReplicaSetPlan.BY_CREATION.reversed());
      List<ReplicaSetPlan> candidates = new ArrayList<>(newestFirst);
      if (newReplicaSet != null) {
        candidates.add(newReplicaSet);
      }
      List<ReplicaSetPlan> active = active(candidates);
      if (active.isEmpty()) {
        return newReplicaSet != null ? newReplicaSet : newestFirst.get(0);
      }
      return active.size() == 1 ? active.get(0) : null;
    }

    private boolean isSaturated(ReplicaSetPlan plan) {
      if (plan == null) {
        return false;
      }
      String annotated = plan.annotations().get(DESIRED_REPLICAS);
      return plan.replicas() == desired
          && Integer.toString(desired).equals(annotated)
          && plan.availableReplicas() == desired;
    }

    /** GetReplicaSetProportion: this ReplicaSet's share of the replicas to add or remove. */
    private int proportion(ReplicaSetPlan plan, int toAdd, int added) {
      if (plan.replicas() == 0 || toAdd == added) {
        return 0;
      }
      int fraction;
      if (desired == 0) {
        fraction = -plan.replicas();
      } else {
        int maxReplicas = desired + maxSurge();
        int before = 0;
        try {
          String annotated = plan.annotations().get(MAX_REPLICAS);
          before = annotated == null ? 0 : Integer.parseInt(annotated);
        } catch (NumberFormatException e) {
          before = 0;
        }
        if (before == 0) {
          before = lastStatus.getReplicas() == null ? 0 : lastStatus.getReplicas();
        }
        fraction =
            before == 0
                ? 0
                : (int) Math.round((double) plan.replicas() * maxReplicas / before)
                    - plan.replicas();
      }
      int allowed = toAdd - added;
      return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
    }

    // ------------------------------------------------------------ strategies

    /** rolloutRolling: one step of a rolling update. */
    private DeploymentStatus rolloutRolling() {
      resolveNewReplicaSet(true);
      if (reconcileNewReplicaSet() || reconcileOldReplicaSets()) {
        return rolloutStatus();
      }
      if (isComplete(calculateStatus())) {
        cleanup(oldReplicaSets());
      }
      return rolloutStatus();
    }

    private boolean reconcileNewReplicaSet() {
      if (newReplicaSet.replicas() == desired) {
        return false;
      }
      if (newReplicaSet.replicas() > desired) {
        return scale(newReplicaSet, desired);
      }
      return scale(newReplicaSet, newReplicaSetReplicas(newReplicaSet));
    }

    private boolean reconcileOldReplicaSets() {
      List<ReplicaSetPlan> old = active(oldReplicaSets());
      if (old.stream().mapToInt(ReplicaSetPlan::replicas).sum() == 0) {
        return false;
      }
      int allPods = allReplicaSets().stream().mapToInt(ReplicaSetPlan::replicas).sum();
      int minAvailable = desired - maxUnavailable();
      int newUnavailable = newReplicaSet.replicas() - newReplicaSet.availableReplicas();
      int maxScaledDown = allPods - minAvailable - newUnavailable;
      if (maxScaledDown <= 0) {
        return false;
      }
      // Unhealthy replicas go first, or they would block the rollout until it times out
      // (kubernetes#16737).
      int cleaned = cleanupUnhealthyReplicas(old, maxScaledDown);
      int scaledDown = scaleDownOldReplicaSets(old);
      return cleaned + scaledDown > 0;
    }

    private int cleanupUnhealthyReplicas(List<ReplicaSetPlan> old, int maxCleanup) {
      List<ReplicaSetPlan> oldestFirst = new ArrayList<>(old);
      oldestFirst.sort(ReplicaSetPlan.BY_CREATION);
      int total = 0;
      for (ReplicaSetPlan plan : oldestFirst) {
        if (total >= maxCleanup) {
          break;
        }
        if (plan.replicas() == 0 || plan.replicas() == plan.availableReplicas()) {
          continue;
        }
        int count = Math.min(maxCleanup - total, plan.replicas() - plan.availableReplicas());
        if (count <= 0) {
          continue;
        }
        if (scale(plan, plan.replicas() - count)) {
          total += count;
        }
      }
      return total;
    }

    private int scaleDownOldReplicaSets(List<ReplicaSetPlan> old) {
      int minAvailable = desired - maxUnavailable();
      int available =
          allReplicaSets().stream().mapToInt(ReplicaSetPlan::countableAvailableReplicas).sum();
      if (available <= minAvailable) {
        return 0;
      }
      List<ReplicaSetPlan> oldestFirst = new ArrayList<>(old);
      oldestFirst.sort(ReplicaSetPlan.BY_CREATION);
      int toScaleDown = available - minAvailable;
      int total = 0;
      for (ReplicaSetPlan plan : oldestFirst) {
        if (total >= toScaleDown) {
          break;
        }
        if (plan.replicas() == 0) {
          continue;
        }
        int count = Math.min(plan.replicas(), toScaleDown - total);
        if (scale(plan, plan.replicas() - count)) {
          total += count;
        }
      }
      return total;
    }

    /** rolloutRecreate: old ReplicaSets to zero, wait for their pods, then the new one. */
    private DeploymentStatus rolloutRecreate() {
      // The new ReplicaSet is not created before the old pods are gone, so it never runs
      // alongside them.
      resolveNewReplicaSet(false);
      boolean scaledDown = false;
      for (ReplicaSetPlan plan : active(oldReplicaSets())) {
        scaledDown |= scale(plan, 0);
      }
      // An old ReplicaSet not scaled down yet, its controller being behind, may still have pods.
      if (scaledDown || !active(oldReplicaSets()).isEmpty() || oldPodsRunning()) {
        return rolloutStatus();
      }
      resolveNewReplicaSet(true);
      scale(newReplicaSet, desired);
      if (isComplete(calculateStatus())) {
        cleanup(oldReplicaSets());
      }
      return rolloutStatus();
    }

    /** Old pods still running: counted, or terminating but not yet Succeeded or Failed. */
    private boolean oldPodsRunning() {
      return oldReplicaSets().stream()
              .mapToInt(p -> p.statusReplicas() + p.terminatingReplicas())
              .sum()
          > 0;
    }

    /** cleanupDeployment: delete the oldest idle ReplicaSets beyond revisionHistoryLimit. */
    private void cleanup(List<ReplicaSetPlan> old) {
      if (revisionHistoryLimit == null || revisionHistoryLimit == Integer.MAX_VALUE) {
        return;
      }
      List<ReplicaSetPlan> cleanable =
          new ArrayList<>(old.stream().filter(p -> !p.isBeingDeleted()).toList());
      int diff = cleanable.size() - revisionHistoryLimit;
      if (diff <= 0) {
        return;
      }
      cleanable.sort(
          Comparator.comparingLong(ReplicaSetPlan::revision)
              .thenComparing(ReplicaSetPlan.BY_CREATION));
      for (int i = 0; i < diff; i++) {
        ReplicaSetPlan plan = cleanable.get(i);
        ReplicaSetSpec observedSpec = plan.observed().getSpec();
        int observedReplicas =
            observedSpec == null || observedSpec.getReplicas() == null
                ? 0
                : observedSpec.getReplicas();
        // Only ReplicaSets that are idle and that this decision leaves alone.
        if (plan.statusReplicas() != 0
            || observedReplicas != 0
            || plan.isChanged()
            || !plan.statusIsCurrent()) {
          continue;
        }
        deleted.add(plan);
      }
    }

    // ------------------------------------------------------------ status and conditions

    /** calculateStatus: counts from the ReplicaSets, and the Available condition. */
    private DeploymentStatus calculateStatus() {
      List<ReplicaSetPlan> all = allReplicaSets();
      int available = all.stream().mapToInt(ReplicaSetPlan::availableReplicas).sum();
      int total = all.stream().mapToInt(ReplicaSetPlan::replicas).sum();
      List<DeploymentCondition> statusConditions = new ArrayList<>(conditions);
      if (available >= desired - maxUnavailable()) {
        setCondition(
            statusConditions,
            newCondition(
                AVAILABLE,
                "True",
                MINIMUM_REPLICAS_AVAILABLE,
                "Deployment has minimum availability."));
      } else {
        setCondition(
            statusConditions,
            newCondition(
                AVAILABLE,
                "False",
                MINIMUM_REPLICAS_UNAVAILABLE,
                "Deployment does not have minimum availability."));
      }
      return DeploymentStatus.newBuilder()
          .setObservedGeneration(meta.getGeneration())
          .setReplicas(all.stream().mapToInt(ReplicaSetPlan::statusReplicas).sum())
          .setUpdatedReplicas(newReplicaSet == null ? 0 : newReplicaSet.statusReplicas())
          .setReadyReplicas(all.stream().mapToInt(ReplicaSetPlan::readyReplicas).sum())
          .setAvailableReplicas(available)
          // Kubernetes counts against the ReplicaSets' replicas, so a surge shows as unavailable.
          .setUnavailableReplicas(Math.max(0, total - available))
          .setConditions(statusConditions)
          .setCollisionCount(collisionCount)
          .build();
    }

    /** syncRolloutStatus: status plus the Progressing estimate and ReplicaFailure. */
    private DeploymentStatus rolloutStatus() {
      DeploymentStatus status = calculateStatus();
      List<DeploymentCondition> statusConditions = status.getConditions();
      if (!hasProgressDeadline()) {
        removeCondition(statusConditions, PROGRESSING);
      }
      DeploymentCondition current = findCondition(conditions, PROGRESSING);
      boolean alreadyComplete =
          Objects.equals(status.getReplicas(), status.getUpdatedReplicas())
              && current != null
              && NEW_REPLICA_SET_AVAILABLE.equals(current.getReason());
      String subject =
          newReplicaSet == null
              ? "Deployment \"%s\"".formatted(meta.getName())
              : "ReplicaSet \"%s\"".formatted(newReplicaSet.name());
      if (hasProgressDeadline() && !alreadyComplete) {
        if (isComplete(status)) {
          setCondition(
              statusConditions,
              newCondition(
                  PROGRESSING,
                  "True",
                  NEW_REPLICA_SET_AVAILABLE,
                  subject + " has successfully progressed."));
        } else if (isProgressing(status)) {
          // Progress refreshes lastUpdateTime even when the reason stays the same, which the
          // generic condition setter would not do; the transition time stays if it was True.
          DeploymentCondition progressing =
              newCondition(PROGRESSING, "True", REPLICA_SET_UPDATED, subject + " is progressing.");
          if (current != null) {
            if ("True".equals(current.getStatus())) {
              progressing.setLastTransitionTime(current.getLastTransitionTime());
            }
            removeCondition(statusConditions, PROGRESSING);
          }
          setCondition(statusConditions, progressing);
        } else if (isTimedOut(status)) {
          setCondition(
              statusConditions,
              newCondition(
                  PROGRESSING,
                  "False",
                  PROGRESS_DEADLINE_EXCEEDED,
                  subject + " has timed out progressing."));
        }
      }
      DeploymentCondition failure = replicaFailure();
      if (failure != null) {
        setCondition(statusConditions, failure);
      } else {
        removeCondition(statusConditions, REPLICA_FAILURE);
      }
      return status;
    }

    private boolean isComplete(DeploymentStatus status) {
      long generation = meta.getGeneration() == null ? 0 : meta.getGeneration();
      long observedGeneration =
          status.getObservedGeneration() == null ? 0 : status.getObservedGeneration();
      return status.getUpdatedReplicas() == desired
          && status.getReplicas() == desired
          && status.getAvailableReplicas() == desired
          && observedGeneration >= generation;
    }

    /** DeploymentProgressing: any count moved the right way since the last written status. */
    private boolean isProgressing(DeploymentStatus status) {
      int lastReplicas = orZero(lastStatus.getReplicas());
      int lastUpdated = orZero(lastStatus.getUpdatedReplicas());
      return status.getUpdatedReplicas() > lastUpdated
          || status.getReplicas() - status.getUpdatedReplicas() < lastReplicas - lastUpdated
          || status.getReadyReplicas() > orZero(lastStatus.getReadyReplicas())
          || status.getAvailableReplicas() > orZero(lastStatus.getAvailableReplicas());
    }

    private boolean isTimedOut(DeploymentStatus status) {
      DeploymentCondition progressing = findCondition(status.getConditions(), PROGRESSING);
      if (progressing == null || NEW_REPLICA_SET_AVAILABLE.equals(progressing.getReason())) {
        return false;
      }
      if (PROGRESS_DEADLINE_EXCEEDED.equals(progressing.getReason())) {
        return true;
      }
      Instant from = progressing.getLastUpdateTime();
      return from != null && from.plusSeconds(progressDeadlineSeconds).isBefore(now);
    }

    /** The ReplicaFailure of the new ReplicaSet, else of any ReplicaSet, as a Deployment's. */
    private DeploymentCondition replicaFailure() {
      List<ReplicaSetPlan> candidates = new ArrayList<>();
      if (newReplicaSet != null) {
        candidates.add(newReplicaSet);
      }
      candidates.addAll(allReplicaSets());
      for (ReplicaSetPlan plan : candidates) {
        for (ReplicaSetCondition c : plan.conditions()) {
          if (REPLICA_FAILURE.equals(c.getType())) {
            return DeploymentCondition.newBuilder()
                .setType(REPLICA_FAILURE)
                .setStatus(c.getStatus())
                .setLastUpdateTime(c.getLastTransitionTime())
                .setLastTransitionTime(c.getLastTransitionTime())
                .setReason(c.getReason())
                .setMessage(c.getMessage())
                .build();
          }
        }
      }
      return null;
    }

    /** checkPausedConditions: Progressing says paused/resumed, unless it already says timed out. */
    private void checkPausedConditions() {
      if (!hasProgressDeadline()) {
        return;
      }
      DeploymentCondition progressing = findCondition(conditions, PROGRESSING);
      if (progressing != null && PROGRESS_DEADLINE_EXCEEDED.equals(progressing.getReason())) {
        return;
      }
      boolean pausedRecorded =
          progressing != null && DEPLOYMENT_PAUSED.equals(progressing.getReason());
      boolean paused = Boolean.TRUE.equals(spec.getPaused());
      if (paused && !pausedRecorded) {
        setCondition(
            conditions,
            newCondition(PROGRESSING, "Unknown", DEPLOYMENT_PAUSED, "Deployment is paused"));
      } else if (!paused && pausedRecorded) {
        setCondition(
            conditions,
            newCondition(PROGRESSING, "Unknown", DEPLOYMENT_RESUMED, "Deployment is resumed"));
      }
    }

    private boolean hasProgressDeadline() {
      return progressDeadlineSeconds != null && progressDeadlineSeconds != Integer.MAX_VALUE;
    }

    private int maxSurge() {
      return rolling ? fenceposts()[0] : 0;
    }

    private int maxUnavailable() {
      if (!rolling || desired == 0) {
        return 0;
      }
      return Math.min(fenceposts()[1], desired);
    }

    /** ResolveFenceposts: surge rounds up, unavailable down; both zero means one unavailable. */
    private int[] fenceposts() {
      int surge = scaledValue(maxSurge, desired, true);
      int unavailable = scaledValue(maxUnavailable, desired, false);
      if (surge == 0 && unavailable == 0) {
        unavailable = 1;
      }
      return new int[] {surge, unavailable};
    }

    private DeploymentCondition newCondition(
        String type, String status, String reason, String message) {
      return DeploymentCondition.newBuilder()
          .setType(type)
          .setStatus(status)
          .setReason(reason)
          .setMessage(message)
          .setLastUpdateTime(now)
          .setLastTransitionTime(now)
          .build();
    }

    private Decision finish(DeploymentStatus status) {
      List<Intent> intents = new ArrayList<>();
      for (ReplicaSetPlan plan : touched) {
        if (plan.isCreated()) {
          intents.add(Intent.create("replicasets", "apps", plan.toReplicaSet()));
        } else if (plan.isChanged()) {
          intents.add(Intent.update("replicasets", "apps", plan.toReplicaSet()));
        }
      }
      for (ReplicaSetPlan plan : deleted) {
        intents.add(Intent.delete("replicasets", "apps", plan.observed(), "Background"));
      }
      // A copy, so the decision shares no condition objects with the Deployment it was given.
      DeploymentStatus result =
          KubeObjects.MODEL.deepCopy(DeploymentStatus.getClassSchema(), status);
      if (result.getConditions() != null && result.getConditions().isEmpty()) {
        result.setConditions(null);
      }
      String revision = newReplicaSet == null ? null : newReplicaSet.annotations().get(REVISION);
      return new Decision(List.copyOf(intents), result, revision);
    }

    private static PodTemplateSpec template(ReplicaSetPlan plan) {
      ReplicaSetSpec rsSpec = plan.observed().getSpec();
      return rsSpec == null ? null : rsSpec.getTemplate();
    }
  }

  // ------------------------------------------------------------ helpers without state

  private static List<ReplicaSetPlan> active(List<ReplicaSetPlan> plans) {
    return plans.stream().filter(p -> p.replicas() > 0).toList();
  }

  private static boolean selectsEverything(LabelSelector selector) {
    return selector == null
        || ((selector.getMatchLabels() == null || selector.getMatchLabels().isEmpty())
            && (selector.getMatchExpressions() == null
                || selector.getMatchExpressions().isEmpty()));
  }

  private static String controllerUid(ObjectMeta meta) {
    if (meta.getOwnerReferences() == null) {
      return null;
    }
    return meta.getOwnerReferences().stream()
        .filter(ref -> Boolean.TRUE.equals(ref.getController()))
        .map(OwnerReference::getUid)
        .findFirst()
        .orElse(null);
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }

  /**
   * GetScaledValueFromIntOrPercent: an int as is, "n%" of {@code total} rounded up or down. A plain
   * number in a string is read as an int; anything unreadable counts as 0 (validation rejects it
   * before it gets here).
   */
  static int scaledValue(Object intOrPercent, int total, boolean roundUp) {
    if (intOrPercent instanceof Integer value) {
      return value;
    }
    if (intOrPercent == null) {
      return 0;
    }
    String text = intOrPercent.toString().trim();
    try {
      if (!text.endsWith("%")) {
        return Integer.parseInt(text);
      }
      long scaled = Long.parseLong(text.substring(0, text.length() - 1)) * total;
      return (int) (roundUp ? -Math.floorDiv(-scaled, 100) : Math.floorDiv(scaled, 100));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  static DeploymentCondition findCondition(List<DeploymentCondition> conditions, String type) {
    return conditions == null
        ? null
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  /**
   * SetDeploymentCondition: nothing changes when status and reason are the same; a changed
   * condition keeps its transition time if only the reason changed, and moves to the end.
   */
  static void setCondition(List<DeploymentCondition> conditions, DeploymentCondition condition) {
    DeploymentCondition current = findCondition(conditions, condition.getType());
    if (current != null
        && Objects.equals(current.getStatus(), condition.getStatus())
        && Objects.equals(current.getReason(), condition.getReason())) {
      return;
    }
    if (current != null && Objects.equals(current.getStatus(), condition.getStatus())) {
      condition.setLastTransitionTime(current.getLastTransitionTime());
    }
    removeCondition(conditions, condition.getType());
    conditions.add(condition);
  }

  static void removeCondition(List<DeploymentCondition> conditions, String type) {
    conditions.removeIf(c -> type.equals(c.getType()));
  }
}
