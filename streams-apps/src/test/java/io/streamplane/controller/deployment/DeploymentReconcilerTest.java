package io.streamplane.controller.deployment;

import static io.streamplane.controller.deployment.DeploymentReconciler.DESIRED_REPLICAS;
import static io.streamplane.controller.deployment.DeploymentReconciler.MAX_REPLICAS;
import static io.streamplane.controller.deployment.DeploymentReconciler.REVISION;
import static io.streamplane.controller.deployment.DeploymentReconciler.REVISION_HISTORY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.streamplane.api.Container;
import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentCondition;
import io.streamplane.api.DeploymentSpec;
import io.streamplane.api.DeploymentStatus;
import io.streamplane.api.DeploymentStrategy;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetStatus;
import io.streamplane.api.RollingUpdateDeployment;
import io.streamplane.controller.Intent;
import io.streamplane.controller.deployment.DeploymentReconciler.Decision;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Given a Deployment, its ReplicaSets (and for Recreate their pods), expect these ReplicaSet
 * intents and this status. {@link Cluster} applies decisions the way the store would, so tests can
 * run a rollout step by step.
 */
class DeploymentReconcilerTest {

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final String UID = "uid-web";

  // ---------------------------------------------------------------- creating and scaling

  @Test
  void aNewDeploymentGetsOneReplicaSetWithAllReplicasAtRevisionOne() {
    Deployment web = deployment(3, "nginx:1.27");

    Decision decision = DeploymentReconciler.reconcile(web, List.of(), T0);

    String hash = PodTemplateHash.of(web.getSpec().getTemplate(), null);
    assertThat(decision.intents()).hasSize(1);
    Intent intent = decision.intents().get(0);
    assertThat(intent.verb()).isEqualTo(CommandVerb.CREATE);
    assertThat(intent.resource()).isEqualTo("replicasets");
    assertThat(intent.group()).isEqualTo("apps");
    ReplicaSet rs = (ReplicaSet) intent.object();
    assertThat(rs.getMetadata().getName()).isEqualTo("web-" + hash);
    assertThat(rs.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(rs.getMetadata().getResourceVersion()).isNull();
    assertThat(rs.getMetadata().getUid()).isNull();
    assertThat(rs.getMetadata().getLabels())
        .isEqualTo(Map.of("app", "web", "pod-template-hash", hash));
    assertThat(rs.getSpec().getSelector().getMatchLabels())
        .isEqualTo(Map.of("app", "web", "pod-template-hash", hash));
    assertThat(rs.getSpec().getTemplate().getMetadata().getLabels())
        .isEqualTo(Map.of("app", "web", "pod-template-hash", hash));
    assertThat(rs.getSpec().getTemplate().getSpec())
        .isEqualTo(web.getSpec().getTemplate().getSpec());
    assertThat(rs.getMetadata().getOwnerReferences())
        .containsExactly(
            OwnerReference.newBuilder()
                .setApiVersion("apps/v1")
                .setKind("Deployment")
                .setName("web")
                .setUid(UID)
                .setController(true)
                .setBlockOwnerDeletion(true)
                .build());
    // 25% of 3 rounds up to a surge of 1: max-replicas 4.
    assertThat(rs.getMetadata().getAnnotations())
        .isEqualTo(Map.of(REVISION, "1", DESIRED_REPLICAS, "3", MAX_REPLICAS, "4"));
    assertThat(rs.getSpec().getReplicas()).isEqualTo(3);
    assertThat(decision.revision()).as("the Deployment's own revision").isEqualTo("1");
  }

  @Test
  void aNewDeploymentIsProgressingWithoutMinimumAvailability() {
    Decision decision = DeploymentReconciler.reconcile(deployment(3, "nginx:1.27"), List.of(), T0);

    String rsName = "web-" + PodTemplateHash.of(template("nginx:1.27"), null);
    DeploymentStatus status = decision.status();
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
    assertThat(status.getReplicas()).isZero();
    assertThat(status.getUpdatedReplicas()).isZero();
    assertThat(status.getReadyReplicas()).isZero();
    assertThat(status.getAvailableReplicas()).isZero();
    assertThat(status.getUnavailableReplicas()).isEqualTo(3);
    assertThat(status.getConditions())
        .extracting(DeploymentReconcilerTest::text)
        .containsExactly(
            text(
                condition(
                    "Progressing",
                    "True",
                    "NewReplicaSetCreated",
                    "Created new replica set \"" + rsName + "\"",
                    T0,
                    T0)),
            text(
                condition(
                    "Available",
                    "False",
                    "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability.",
                    T0,
                    T0)));
  }

  @Test
  void theSameInputGivesTheSameDecision() {
    Cluster cluster = Cluster.rolledOut(deployment(10, "nginx:1.27"));
    cluster.setTemplate(template("nginx:1.28"));

    Decision first = cluster.reconcile(T0.plusSeconds(60));
    Decision second = cluster.reconcile(T0.plusSeconds(60));

    assertThat(second.intents().toString()).isEqualTo(first.intents().toString());
    assertThat(second.status().toString()).isEqualTo(first.status().toString());
  }

  @Test
  void aCreatedReplicaSetIsNotCreatedAgainWhileItsPodsStart() {
    Cluster cluster = new Cluster(deployment(3, "nginx:1.27"));
    cluster.apply(cluster.reconcile(T0));

    Decision again = cluster.reconcile(T0.plusSeconds(5));

    assertThat(again.intents()).isEmpty();
    assertThat(text(again.status())).isEqualTo(text(cluster.deployment.getStatus()));
  }

  @Test
  void scalingUpASingleReplicaSetSetsItToTheNewCountAndAnnotations() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27"));
    ReplicaSet before = cluster.only();
    cluster.setReplicas(5);

    Decision decision = cluster.reconcile(T0.plusSeconds(60));

    assertThat(decision.intents()).hasSize(1);
    Intent intent = decision.intents().get(0);
    assertThat(intent.verb()).isEqualTo(CommandVerb.UPDATE);
    ReplicaSet scaled = (ReplicaSet) intent.object();
    assertThat(scaled.getMetadata().getResourceVersion())
        .isEqualTo(before.getMetadata().getResourceVersion());
    assertThat(scaled.getSpec().getReplicas()).isEqualTo(5);
    assertThat(scaled.getMetadata().getAnnotations())
        .containsEntry(DESIRED_REPLICAS, "5")
        .containsEntry(MAX_REPLICAS, "7")
        .containsEntry(REVISION, "1");
    assertThat(before.getSpec().getReplicas()).as("the input is not changed").isEqualTo(3);

    cluster.apply(decision);
    assertThat(cluster.reconcile(T0.plusSeconds(61)).intents()).isEmpty();
  }

  @Test
  void scalingDownASingleReplicaSetSetsItToTheNewCount() {
    Cluster cluster = Cluster.rolledOut(deployment(5, "nginx:1.27"));
    cluster.setReplicas(1);

    Decision decision = cluster.reconcile(T0.plusSeconds(60));

    assertThat(decision.intents()).hasSize(1);
    ReplicaSet scaled = (ReplicaSet) decision.intents().get(0).object();
    assertThat(scaled.getSpec().getReplicas()).isEqualTo(1);
    assertThat(scaled.getMetadata().getAnnotations())
        .containsEntry(DESIRED_REPLICAS, "1")
        .containsEntry(MAX_REPLICAS, "2");
    cluster.apply(decision);
    assertThat(cluster.reconcile(T0.plusSeconds(61)).intents()).isEmpty();
  }

  @Test
  void scalingDuringARolloutSpreadsTheChangeProportionally() {
    Cluster cluster = Cluster.rolledOut(deployment(10, "nginx:1.27"));
    cluster.setTemplate(template("nginx:1.28"));
    cluster.step(T0.plusSeconds(60)); // new 3, old 8
    cluster.step(T0.plusSeconds(61)); // new 5, old 8
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 8, "2", 5));
    cluster.setReplicas(20);

    Decision decision = cluster.reconcile(T0.plusSeconds(62));
    cluster.apply(decision);

    // 25 allowed (20 + surge 5) instead of 13: each grows by its share of the 12 added.
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 15, "2", 10));
    assertThat(decision.intents())
        .allSatisfy(
            i ->
                assertThat(((ReplicaSet) i.object()).getMetadata().getAnnotations())
                    .containsEntry(DESIRED_REPLICAS, "20")
                    .containsEntry(MAX_REPLICAS, "25"));
  }

  // ---------------------------------------------------------------- rolling update

  @Test
  void aTemplateChangeCreatesRevisionTwoWithTheSurgeAndScalesTheOldDownWithinMaxUnavailable() {
    Cluster cluster = Cluster.rolledOut(deployment(10, "nginx:1.27"));
    ReplicaSet old = cluster.only();
    cluster.setTemplate(template("nginx:1.28"));

    Decision decision = cluster.reconcile(T0.plusSeconds(60));

    // As Kubernetes in one sync: the new ReplicaSet takes the surge (25% of 10, rounded up: 3),
    // and the old one gives up what maxUnavailable allows (25% of 10, rounded down: 2).
    assertThat(decision.intents())
        .extracting(Intent::verb)
        .containsExactly(CommandVerb.CREATE, CommandVerb.UPDATE);
    ReplicaSet created = (ReplicaSet) decision.intents().get(0).object();
    assertThat(created.getSpec().getReplicas()).isEqualTo(3);
    assertThat(created.getMetadata().getAnnotations())
        .containsEntry(REVISION, "2")
        .containsEntry(DESIRED_REPLICAS, "10")
        .containsEntry(MAX_REPLICAS, "13");
    ReplicaSet scaledDown = (ReplicaSet) decision.intents().get(1).object();
    assertThat(scaledDown.getMetadata().getName()).isEqualTo(old.getMetadata().getName());
    assertThat(scaledDown.getMetadata().getResourceVersion())
        .isEqualTo(old.getMetadata().getResourceVersion());
    assertThat(scaledDown.getSpec().getReplicas()).isEqualTo(8);
    assertThat(scaledDown.getMetadata().getAnnotations()).containsEntry(REVISION, "1");
  }

  @Test
  void oldReplicasAreScaledDownOnlyAsFarAsNewPodsAreAvailable() {
    Cluster cluster = Cluster.rolledOut(deployment(10, "nginx:1.27"));
    cluster.setTemplate(template("nginx:1.28"));
    cluster.apply(cluster.reconcile(T0.plusSeconds(60))); // new 3, old 8
    cluster.setAvailable("1", 8); // the two old pods are gone
    cluster.apply(cluster.reconcile(T0.plusSeconds(61))); // new 5 (13 in all), old 8

    // No new pod is available yet: 8 available is the minimum (10 - 2), nothing may go.
    assertThat(cluster.reconcile(T0.plusSeconds(62)).intents()).isEmpty();

    // Three new pods become available: 11 available, so 3 old replicas may go.
    cluster.setAvailable("2", 3);
    Decision decision = cluster.reconcile(T0.plusSeconds(63));
    cluster.apply(decision);

    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 5, "2", 5));
  }

  @Test
  void availableReplicasBeyondAReplicaSetsSpecAreNotCountedWhileItsPodsAreDeleted() {
    Cluster cluster = Cluster.rolledOut(deployment(4, "nginx:1.27")); // surge 1, unavailable 1
    cluster.setTemplate(template("nginx:1.28"));
    cluster.apply(cluster.reconcile(T0.plusSeconds(60))); // new 1, old 3
    cluster.setStatusReplicas("1", 3); // the old pod is gone
    cluster.apply(cluster.reconcile(T0.plusSeconds(61))); // new 2, old 3
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 3, "2", 2));
    // The old ReplicaSet's status is not yet updated: it still reports its four pods available,
    // though one of them is being deleted. One new pod is available.
    cluster.setAvailable("1", 4);
    cluster.setAvailable("2", 1);

    cluster.apply(cluster.reconcile(T0.plusSeconds(62)));

    // 3 old + 1 new can be counted on: only one old replica may go (3 must stay available).
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 2, "2", 2));
  }

  @Test
  void theNewReplicaSetGrowsOnlyIntoTheRoomTheOldPodsLeave() {
    Cluster cluster = Cluster.rolledOut(deployment(4, "nginx:1.27")); // surge 1, unavailable 1
    cluster.setTemplate(template("nginx:1.28"));
    cluster.apply(cluster.reconcile(T0.plusSeconds(60)));
    // The surge, and one old replica within maxUnavailable: specs new 1, old 3.
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 3, "2", 1));
    cluster.setAvailable("2", 1);

    // The old ReplicaSet's controller has not deleted its fourth pod yet: its status still
    // reports four. Four old pods and one new are replicas + maxSurge already.
    cluster.setStatusReplicas("1", 4);
    cluster.apply(cluster.reconcile(T0.plusSeconds(61)));
    assertThat(cluster.replicasByRevision().get("2")).isEqualTo(1);

    // The pod is gone: the new ReplicaSet takes its place.
    cluster.setStatusReplicas("1", 3);
    cluster.apply(cluster.reconcile(T0.plusSeconds(62)));
    assertThat(cluster.replicasByRevision().get("2")).isEqualTo(2);
  }

  @Test
  void aReplicaSetWhoseControllerHasNotReportedOnItsSpecIsNotScaledDown() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27")); // surge 1, unavailable 0
    cluster.setTemplate(template("nginx:1.28"));
    cluster.apply(cluster.reconcile(T0.plusSeconds(60)));
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 3, "2", 1));

    // A second rollout before revision 2's controller has reported on its spec: it may be creating
    // its pod right now. Lowering it to 0 (its pod is unavailable) would let revision 3 take the
    // room that pod takes: 3 + 1 + 1 live pods for replicas 3 + maxSurge 1.
    cluster.setTemplate(template("nginx:1.29"));
    cluster.apply(cluster.reconcile(T0.plusSeconds(61)));
    cluster.apply(cluster.reconcile(T0.plusSeconds(62)));
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 3, "2", 1, "3", 0));

    // Its controller reports the pod (not available): now it goes, and its pod still counts.
    cluster.setAvailable("2", 0);
    cluster.apply(cluster.reconcile(T0.plusSeconds(63)));
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 3, "2", 0, "3", 0));

    // The pod is gone: revision 3 takes its place.
    cluster.setStatusReplicas("2", 0);
    cluster.apply(cluster.reconcile(T0.plusSeconds(64)));
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 3, "2", 0, "3", 1));
  }

  static Stream<Arguments> rollingSettings() {
    return Stream.of(
        Arguments.of(10, "25%", "25%", 3, 2),
        Arguments.of(3, 1, 0, 1, 0),
        Arguments.of(3, 0, 1, 0, 1),
        Arguments.of(5, "50%", "0%", 3, 0),
        Arguments.of(4, "0%", "10%", 0, 1)); // both resolve to 0: maxUnavailable becomes 1
  }

  @ParameterizedTest(name = "{0} replicas, maxSurge {1}, maxUnavailable {2}")
  @MethodSource("rollingSettings")
  void aRollingUpdateStaysWithinSurgeAndUnavailabilityAndCompletes(
      int replicas, Object maxSurge, Object maxUnavailable, int surge, int unavailable) {
    Cluster cluster =
        Cluster.rolledOut(
            with(
                deployment(replicas, "nginx:1.27"),
                s ->
                    s.setStrategy(
                        DeploymentStrategy.newBuilder()
                            .setType("RollingUpdate")
                            .setRollingUpdate(
                                RollingUpdateDeployment.newBuilder()
                                    .setMaxSurge(maxSurge)
                                    .setMaxUnavailable(maxUnavailable)
                                    .build())
                            .build())));
    cluster.setTemplate(template("nginx:1.28"));

    Instant now = T0.plusSeconds(60);
    int steps = 0;
    while (true) {
      Decision decision = cluster.reconcile(now);
      if (decision.intents().isEmpty() && cluster.podsMatchSpecs()) {
        cluster.apply(decision);
        break;
      }
      cluster.apply(decision);
      // Right after the decision, before any new pod starts: old pods may already be gone.
      assertThat(cluster.totalSpecReplicas()).isLessThanOrEqualTo(replicas + surge);
      assertThat(cluster.availableAfterScaleDown()).isGreaterThanOrEqualTo(replicas - unavailable);
      cluster.podsUp();
      now = now.plusSeconds(1);
      assertThat(++steps).as("steps to complete the rollout").isLessThan(50);
    }

    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 0, "2", replicas));
    DeploymentStatus status = cluster.deployment.getStatus();
    assertThat(status.getUpdatedReplicas()).isEqualTo(replicas);
    assertThat(status.getAvailableReplicas()).isEqualTo(replicas);
    assertThat(status.getUnavailableReplicas()).isZero();
    assertThat(progressing(status).getReason()).isEqualTo("NewReplicaSetAvailable");
  }

  @Test
  void unavailableOldReplicasAreRemovedFirst() {
    Cluster cluster = Cluster.rolledOut(deployment(10, "nginx:1.27"));
    cluster.setAvailable("1", 6); // four old pods are broken
    cluster.setTemplate(template("nginx:1.28"));

    Decision decision = cluster.reconcile(T0.plusSeconds(60));
    cluster.apply(decision);

    // maxScaledDown = 13 total - 8 minimum - 3 new unavailable = 2: the broken pods go first,
    // no available one does (6 available is below the minimum of 8 already).
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 8, "2", 3));
  }

  // ---------------------------------------------------------------- recreate

  @Test
  void recreateScalesTheOldReplicaSetToZeroBeforeCreatingTheNewOne() {
    Cluster cluster =
        Cluster.rolledOut(
            with(
                deployment(3, "nginx:1.27"),
                s -> s.setStrategy(DeploymentStrategy.newBuilder().setType("Recreate").build())));
    cluster.setTemplate(template("nginx:1.28"));

    Decision decision = cluster.reconcile(T0.plusSeconds(60));

    assertThat(decision.intents()).hasSize(1);
    assertThat(decision.intents().get(0).verb()).isEqualTo(CommandVerb.UPDATE);
    assertThat(((ReplicaSet) decision.intents().get(0).object()).getSpec().getReplicas()).isZero();
  }

  @Test
  void recreateWaitsUntilTheOldPodsAreGoneBeforeScalingTheNewOneUp() {
    Cluster cluster =
        Cluster.rolledOut(
            with(
                deployment(3, "nginx:1.27"),
                s -> s.setStrategy(DeploymentStrategy.newBuilder().setType("Recreate").build())));
    ReplicaSet old = cluster.only();
    cluster.setTemplate(template("nginx:1.28"));
    cluster.apply(cluster.reconcile(T0.plusSeconds(60)));
    cluster.podsUp(); // the old ReplicaSet reports 0 replicas while two of its pods terminate
    cluster.setTerminating(old.getMetadata().getName(), 2);

    assertThat(cluster.reconcile(T0.plusSeconds(61)).intents()).isEmpty();

    cluster.setTerminating(old.getMetadata().getName(), 0);
    Decision decision = cluster.reconcile(T0.plusSeconds(62));

    assertThat(decision.intents()).hasSize(1);
    Intent create = decision.intents().get(0);
    assertThat(create.verb()).isEqualTo(CommandVerb.CREATE);
    assertThat(((ReplicaSet) create.object()).getSpec().getReplicas()).isEqualTo(3);
    assertThat(((ReplicaSet) create.object()).getMetadata().getAnnotations())
        .containsEntry(REVISION, "2");
  }

  // ---------------------------------------------------------------- rollback, pause, history

  @Test
  void rollingBackMakesTheOldReplicaSetNewAgainAtTheNextRevision() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27"));
    String first = cluster.only().getMetadata().getName();
    cluster.setTemplate(template("nginx:1.28"));
    cluster.rollOut(T0.plusSeconds(60));
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("1", 0, "2", 3));

    cluster.setTemplate(template("nginx:1.27")); // kubectl rollout undo
    Decision decision = cluster.reconcile(T0.plusSeconds(120));

    assertThat(decision.intents()).hasSize(1);
    ReplicaSet revived = (ReplicaSet) decision.intents().get(0).object();
    assertThat(revived.getMetadata().getName()).isEqualTo(first);
    assertThat(revived.getMetadata().getAnnotations())
        .containsEntry(REVISION, "3")
        .containsEntry(REVISION_HISTORY, "1");
    assertThat(revived.getSpec().getReplicas()).as("within maxSurge 1").isEqualTo(1);
    assertThat(decision.revision()).as("the Deployment follows its new ReplicaSet").isEqualTo("3");

    cluster.apply(decision);
    cluster.rollOut(T0.plusSeconds(121));
    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("3", 3, "2", 0));
  }

  @Test
  void aPausedDeploymentCreatesNoReplicaSetForANewTemplate() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27"));
    cluster.update(s -> s.setPaused(true));
    cluster.setTemplate(template("nginx:1.28"));

    Decision decision = cluster.reconcile(T0.plusSeconds(60));

    assertThat(decision.intents()).isEmpty();
    assertThat(text(progressing(decision.status())))
        .isEqualTo(
            text(
                condition(
                    "Progressing",
                    "Unknown",
                    "DeploymentPaused",
                    "Deployment is paused",
                    T0.plusSeconds(60),
                    T0.plusSeconds(60))));
    assertThat(decision.status().getUpdatedReplicas()).isZero();
  }

  @Test
  void aPausedDeploymentStillScales() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27"));
    cluster.update(s -> s.setPaused(true));
    cluster.setTemplate(template("nginx:1.28"));
    cluster.setReplicas(4);

    Decision decision = cluster.reconcile(T0.plusSeconds(60));

    assertThat(decision.intents()).hasSize(1);
    assertThat(((ReplicaSet) decision.intents().get(0).object()).getSpec().getReplicas())
        .isEqualTo(4);
  }

  @Test
  void resumingAPausedDeploymentRollsOutTheNewTemplate() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27"));
    cluster.update(s -> s.setPaused(true));
    cluster.setTemplate(template("nginx:1.28"));
    cluster.apply(cluster.reconcile(T0.plusSeconds(60)));

    cluster.update(s -> s.setPaused(false));
    Decision decision = cluster.reconcile(T0.plusSeconds(61));

    assertThat(decision.intents()).extracting(Intent::verb).contains(CommandVerb.CREATE);
    assertThat(progressing(decision.status()).getReason()).isEqualTo("NewReplicaSetCreated");
  }

  @Test
  void replicaSetsBeyondTheRevisionHistoryLimitAreDeletedOldestFirst() {
    Cluster cluster = Cluster.rolledOut(deployment(2, "nginx:1.27"));
    ReplicaSet oldest = cluster.only();
    cluster.setTemplate(template("nginx:1.28"));
    cluster.rollOut(T0.plusSeconds(60));
    cluster.update(s -> s.setRevisionHistoryLimit(1));
    cluster.setTemplate(template("nginx:1.29"));

    cluster.rollOut(T0.plusSeconds(120));

    assertThat(cluster.replicasByRevision()).isEqualTo(Map.of("2", 0, "3", 2));
    assertThat(cluster.deleted).containsExactly(oldest.getMetadata().getName());
    Intent delete = cluster.lastDelete;
    assertThat(delete.deleteOptions().getPropagationPolicy()).isEqualTo("Background");
    assertThat(delete.preconditions().getUid()).isEqualTo(oldest.getMetadata().getUid());
  }

  // ---------------------------------------------------------------- status and conditions

  @Test
  void aCompleteRolloutReportsTheNewReplicaSetAsSuccessfullyProgressed() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27"));

    DeploymentStatus status = cluster.deployment.getStatus();
    String rsName = cluster.only().getMetadata().getName();
    assertThat(status.getReplicas()).isEqualTo(3);
    assertThat(status.getUpdatedReplicas()).isEqualTo(3);
    assertThat(status.getReadyReplicas()).isEqualTo(3);
    assertThat(status.getAvailableReplicas()).isEqualTo(3);
    assertThat(status.getUnavailableReplicas()).isZero();
    assertThat(status.getConditions())
        .extracting(
            DeploymentCondition::getType,
            DeploymentCondition::getStatus,
            DeploymentCondition::getReason,
            DeploymentCondition::getMessage)
        .containsExactly(
            tuple(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability."),
            tuple(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                "ReplicaSet \"" + rsName + "\" has successfully progressed."));
  }

  @Test
  void aSettledDeploymentKeepsItsStatusAndConditionTimesOnLaterReconciles() {
    Cluster cluster = Cluster.rolledOut(deployment(3, "nginx:1.27"));
    DeploymentStatus settled = cluster.deployment.getStatus();

    Decision later = cluster.reconcile(T0.plus(Duration.ofHours(5)));

    assertThat(later.intents()).isEmpty();
    assertThat(text(later.status())).isEqualTo(text(settled));
  }

  @Test
  void progressRefreshesTheUpdateTimeButKeepsTheTransitionTime() {
    Cluster cluster = new Cluster(deployment(3, "nginx:1.27"));
    cluster.apply(cluster.reconcile(T0));
    cluster.setAvailable(cluster.only().getMetadata().getName(), 1);

    Decision decision = cluster.reconcile(T0.plusSeconds(30));

    String rsName = cluster.only().getMetadata().getName();
    assertThat(text(progressing(decision.status())))
        .isEqualTo(
            text(
                condition(
                    "Progressing",
                    "True",
                    "ReplicaSetUpdated",
                    "ReplicaSet \"" + rsName + "\" is progressing.",
                    T0.plusSeconds(30),
                    T0)));
  }

  @Test
  void noProgressPastTheDeadlineTimesOut() {
    Cluster cluster = new Cluster(deployment(3, "nginx:1.27"));
    cluster.apply(cluster.reconcile(T0));
    String rsName = cluster.only().getMetadata().getName();

    assertThat(progressing(cluster.reconcile(T0.plusSeconds(600)).status()).getReason())
        .isEqualTo("NewReplicaSetCreated");
    Decision late = cluster.reconcile(T0.plusSeconds(601));

    assertThat(text(progressing(late.status())))
        .isEqualTo(
            text(
                condition(
                    "Progressing",
                    "False",
                    "ProgressDeadlineExceeded",
                    "ReplicaSet \"" + rsName + "\" has timed out progressing.",
                    T0.plusSeconds(601),
                    T0.plusSeconds(601))));
  }

  @Test
  void conditionTimesAreTruncatedToSeconds() {
    Decision decision =
        DeploymentReconciler.reconcile(
            deployment(1, "nginx:1.27"), List.of(), T0.plusMillis(1_750));

    assertThat(decision.status().getConditions())
        .allSatisfy(c -> assertThat(c.getLastUpdateTime()).isEqualTo(T0.plusSeconds(1)));
  }

  // ---------------------------------------------------------------- pod-template-hash

  @Test
  void theTemplateHashIgnoresMapOrderAndChangesWithTheCollisionCount() {
    PodTemplateSpec a = template("nginx:1.27");
    PodTemplateSpec b = template("nginx:1.27");
    Map<String, String> reversed = new LinkedHashMap<>();
    reversed.put("tier", "front");
    reversed.put("app", "web");
    Map<String, String> ordered = new LinkedHashMap<>();
    ordered.put("app", "web");
    ordered.put("tier", "front");
    a.getMetadata().setLabels(reversed);
    b.getMetadata().setLabels(ordered);

    assertThat(PodTemplateHash.of(a, null)).isEqualTo(PodTemplateHash.of(b, null));
    assertThat(PodTemplateHash.of(a, null)).matches("[bcdfghjklmnpqrstvwxz2456789]{1,10}");
    assertThat(PodTemplateHash.of(a, 1)).isNotEqualTo(PodTemplateHash.of(a, null));
    assertThat(PodTemplateHash.of(template("nginx:1.28"), null))
        .isNotEqualTo(PodTemplateHash.of(template("nginx:1.27"), null));
  }

  @Test
  void aRestartAnnotationOnTheTemplateMakesANewReplicaSet() {
    Cluster cluster = Cluster.rolledOut(deployment(2, "nginx:1.27"));
    PodTemplateSpec restarted = template("nginx:1.27");
    restarted.getMetadata().setAnnotations(Map.of("kubectl.kubernetes.io/restartedAt", "now"));
    cluster.setTemplate(restarted);

    Decision decision = cluster.reconcile(T0.plusSeconds(60));

    assertThat(decision.intents()).extracting(Intent::verb).contains(CommandVerb.CREATE);
  }

  // ---------------------------------------------------------------- fixtures

  private static Deployment deployment(int replicas, String image) {
    return Deployment.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("Deployment")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("web")
                .setNamespace("default")
                .setUid(UID)
                .setResourceVersion("1")
                .setGeneration(1L)
                .build())
        .setSpec(
            DeploymentSpec.newBuilder()
                .setReplicas(replicas)
                .setSelector(
                    LabelSelector.newBuilder().setMatchLabels(Map.of("app", "web")).build())
                .setTemplate(template(image))
                .setStrategy(
                    DeploymentStrategy.newBuilder()
                        .setType("RollingUpdate")
                        .setRollingUpdate(
                            RollingUpdateDeployment.newBuilder()
                                .setMaxSurge("25%")
                                .setMaxUnavailable("25%")
                                .build())
                        .build())
                .setRevisionHistoryLimit(10)
                .setProgressDeadlineSeconds(600)
                .build())
        .build();
  }

  private static PodTemplateSpec template(String image) {
    return PodTemplateSpec.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setLabels(new TreeMap<>(Map.of("app", "web"))).build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(
                    List.of(Container.newBuilder().setName("app").setImage(image).build()))
                .build())
        .build();
  }

  private static Deployment with(Deployment deployment, Consumer<DeploymentSpec> change) {
    Deployment copy = KubeObjects.copy(deployment);
    change.accept(copy.getSpec());
    return copy;
  }

  private static DeploymentCondition condition(
      String type,
      String status,
      String reason,
      String message,
      Instant lastUpdate,
      Instant lastTransition) {
    return DeploymentCondition.newBuilder()
        .setType(type)
        .setStatus(status)
        .setReason(reason)
        .setMessage(message)
        .setLastUpdateTime(lastUpdate)
        .setLastTransitionTime(lastTransition)
        .build();
  }

  /** Avro's equals cannot compare the Instant fields of these records; their text can. */
  private static String text(Object record) {
    return String.valueOf(record);
  }

  private static DeploymentCondition progressing(DeploymentStatus status) {
    return DeploymentReconciler.findCondition(status.getConditions(), "Progressing");
  }

  /**
   * A Deployment and its ReplicaSets as the store would hold them: decisions are applied with the
   * store's checks (updates must carry the current resourceVersion, deletes the uid), and pods come
   * up only when a test says so.
   */
  private static final class Cluster {

    Deployment deployment;
    final Map<String, ReplicaSet> replicaSets = new TreeMap<>();
    final List<String> deleted = new ArrayList<>();
    Intent lastDelete;
    private int version = 100;
    private int created;

    Cluster(Deployment deployment) {
      this.deployment = deployment;
    }

    /** The Deployment fully rolled out at T0: one ReplicaSet, all pods available. */
    static Cluster rolledOut(Deployment deployment) {
      Cluster cluster = new Cluster(deployment);
      cluster.rollOut(T0);
      return cluster;
    }

    Decision reconcile(Instant now) {
      return DeploymentReconciler.reconcile(deployment, List.copyOf(replicaSets.values()), now);
    }

    void step(Instant now) {
      apply(reconcile(now));
      podsUp();
    }

    /** Reconcile and bring pods up until nothing changes any more. */
    void rollOut(Instant now) {
      for (int i = 0; i < 50; i++) {
        Decision decision = reconcile(now);
        if (decision.intents().isEmpty()
            && podsMatchSpecs()
            && text(decision.status()).equals(text(deployment.getStatus()))) {
          return;
        }
        apply(decision);
        podsUp();
      }
      throw new AssertionError("the rollout did not settle");
    }

    void apply(Decision decision) {
      for (Intent intent : decision.intents()) {
        switch (intent.verb()) {
          case CREATE -> {
            ReplicaSet rs = KubeObjects.copy((ReplicaSet) intent.object());
            assertThat(replicaSets).doesNotContainKey(intent.name());
            rs.getMetadata().setUid("uid-" + intent.name());
            rs.getMetadata().setResourceVersion(Integer.toString(++version));
            rs.getMetadata().setGeneration(1L);
            rs.getMetadata().setCreationTimestamp(T0.plusSeconds(++created));
            rs.setStatus(ReplicaSetStatus.newBuilder().setReplicas(0).build());
            replicaSets.put(intent.name(), rs);
          }
          case UPDATE -> {
            ReplicaSet current = replicaSets.get(intent.name());
            ReplicaSet rs = KubeObjects.copy((ReplicaSet) intent.object());
            assertThat(rs.getMetadata().getResourceVersion())
                .as("an update carries the resourceVersion it was decided on")
                .isEqualTo(current.getMetadata().getResourceVersion());
            assertThat(text(rs)).as("an update changes something").isNotEqualTo(text(current));
            rs.getMetadata().setResourceVersion(Integer.toString(++version));
            rs.getMetadata().setGeneration(current.getMetadata().getGeneration() + 1);
            rs.setStatus(current.getStatus());
            replicaSets.put(intent.name(), rs);
          }
          case DELETE -> {
            ReplicaSet current = replicaSets.remove(intent.name());
            assertThat(intent.preconditions().getUid()).isEqualTo(current.getMetadata().getUid());
            deleted.add(intent.name());
            lastDelete = intent;
          }
          default -> throw new AssertionError("unexpected " + intent);
        }
      }
      Deployment next = KubeObjects.copy(deployment);
      next.setStatus(decision.status());
      next.getMetadata().setResourceVersion(Integer.toString(++version));
      deployment = next;
    }

    /** Every ReplicaSet reaches its spec.replicas with every pod available. */
    void podsUp() {
      for (String name : List.copyOf(replicaSets.keySet())) {
        ReplicaSet rs = KubeObjects.copy(replicaSets.get(name));
        int replicas = rs.getSpec().getReplicas();
        rs.setStatus(
            ReplicaSetStatus.newBuilder()
                .setReplicas(replicas)
                .setFullyLabeledReplicas(replicas)
                .setReadyReplicas(replicas)
                .setAvailableReplicas(replicas)
                .setObservedGeneration(rs.getMetadata().getGeneration())
                .build());
        replicaSets.put(name, rs);
      }
    }

    /** The ReplicaSet's status reports {@code count} pods (not being deleted), all available. */
    void setStatusReplicas(String nameOrRevision, int count) {
      ReplicaSet rs = KubeObjects.copy(find(nameOrRevision));
      rs.setStatus(
          ReplicaSetStatus.newBuilder(rs.getStatus())
              .setReplicas(count)
              .setReadyReplicas(count)
              .setAvailableReplicas(count)
              .build());
      replicaSets.put(rs.getMetadata().getName(), rs);
    }

    /** The ReplicaSet reports {@code count} pods being deleted that have not finished yet. */
    void setTerminating(String name, int count) {
      ReplicaSet rs = KubeObjects.copy(replicaSets.get(name));
      rs.setStatus(
          ReplicaSetStatus.newBuilder(rs.getStatus()).setTerminatingReplicas(count).build());
      replicaSets.put(name, rs);
    }

    boolean podsMatchSpecs() {
      return replicaSets.values().stream()
          .allMatch(
              rs ->
                  rs.getStatus() != null
                      && rs.getSpec().getReplicas().equals(rs.getStatus().getReplicas())
                      && rs.getSpec().getReplicas().equals(rs.getStatus().getAvailableReplicas()));
    }

    /** A ReplicaSet (by name or revision) runs its spec.replicas, {@code available} of them. */
    void setAvailable(String nameOrRevision, int available) {
      ReplicaSet rs = KubeObjects.copy(find(nameOrRevision));
      rs.setStatus(
          ReplicaSetStatus.newBuilder()
              .setReplicas(rs.getSpec().getReplicas())
              .setReadyReplicas(available)
              .setAvailableReplicas(available)
              .setObservedGeneration(rs.getMetadata().getGeneration())
              .build());
      replicaSets.put(rs.getMetadata().getName(), rs);
    }

    private ReplicaSet find(String nameOrRevision) {
      return replicaSets.values().stream()
          .filter(
              rs ->
                  rs.getMetadata().getName().equals(nameOrRevision)
                      || nameOrRevision.equals(rs.getMetadata().getAnnotations().get(REVISION)))
          .findFirst()
          .orElseThrow();
    }

    void update(Consumer<DeploymentSpec> change) {
      Deployment next = with(deployment, change);
      next.getMetadata().setGeneration(deployment.getMetadata().getGeneration() + 1);
      next.getMetadata().setResourceVersion(Integer.toString(++version));
      deployment = next;
    }

    void setTemplate(PodTemplateSpec template) {
      update(s -> s.setTemplate(template));
    }

    void setReplicas(int replicas) {
      update(s -> s.setReplicas(replicas));
    }

    ReplicaSet only() {
      assertThat(replicaSets).hasSize(1);
      return replicaSets.values().iterator().next();
    }

    Map<String, Integer> replicasByRevision() {
      Map<String, Integer> byRevision = new TreeMap<>();
      replicaSets
          .values()
          .forEach(
              rs ->
                  byRevision.put(
                      rs.getMetadata().getAnnotations().get(REVISION), rs.getSpec().getReplicas()));
      return byRevision;
    }

    int totalSpecReplicas() {
      return replicaSets.values().stream().mapToInt(rs -> rs.getSpec().getReplicas()).sum();
    }

    /** Available pods if scale-downs removed available pods and no new pod has started yet. */
    int availableAfterScaleDown() {
      return replicaSets.values().stream()
          .mapToInt(
              rs ->
                  Math.min(
                      rs.getStatus().getAvailableReplicas() == null
                          ? 0
                          : rs.getStatus().getAvailableReplicas(),
                      rs.getSpec().getReplicas()))
          .sum();
    }
  }
}
