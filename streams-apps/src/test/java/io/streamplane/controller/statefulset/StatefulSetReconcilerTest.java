package io.streamplane.controller.statefulset;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ControllerRevision;
import io.streamplane.api.Event;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodStatus;
import io.streamplane.api.StatefulSet;
import io.streamplane.api.StatefulSetStatus;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The StatefulSet controller's decision for one set, its pods and revisions, as a function. */
class StatefulSetReconcilerTest {

  private static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");
  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_SINGLE_QUOTES).build();
  private static final KubeJson KUBE_JSON = new KubeJson();

  private static <T extends SpecificRecord> T avro(String singleQuoted, Class<T> type) {
    try {
      return KUBE_JSON.toAvro((ObjectNode) MAPPER.readTree(singleQuoted), type).record();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A set {@code web} of {@code replicas} pods labelled app=web, with {@code spec} additions. */
  private static StatefulSet set(int replicas, String spec) {
    return avro(
        "{'apiVersion':'apps/v1','kind':'StatefulSet','metadata':{'name':'web','namespace':"
            + "'default','uid':'sts-uid','generation':1,'resourceVersion':'7'},'spec':{"
            + spec
            + "'replicas':"
            + replicas
            + ",'serviceName':'nginx','selector':{'matchLabels':{'app':'web'}},"
            + "'template':{'metadata':{'labels':{'app':'web'}},'spec':{"
            + "'containers':[{'name':'nginx','image':'nginx:1'}]}}}}",
        StatefulSet.class);
  }

  /** A namespace the decisions are carried out in: pods appear Running, and go when deleted. */
  private static final class World {
    StatefulSet set;
    final Map<String, Pod> pods = new TreeMap<>();
    final Map<String, ControllerRevision> revisions = new TreeMap<>();
    final List<String> createdInOrder = new ArrayList<>();
    final List<String> deletedInOrder = new ArrayList<>();
    final List<String> writes = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    final Map<String, io.streamplane.api.PersistentVolumeClaim> claims = new TreeMap<>();
    Instant now = NOW;
    int uids;

    World(StatefulSet set) {
      this.set = set;
    }

    List<Intent> decide() {
      return StatefulSetReconciler.reconcile(
              set, new ArrayList<>(pods.values()), new ArrayList<>(revisions.values()), true, now)
          .intents();
    }

    /** Carries out the intents; new pods are Running, not yet Ready; deleted ones go at once. */
    List<Intent> step() {
      List<Intent> intents = decide();
      for (Intent intent : intents) {
        if (intent.resource().equals("events")) {
          events.add(((Event) intent.object()).getMessage());
          continue;
        }
        writes.add(intent.resource() + " " + intent.verb() + " " + intent.name());
        switch (intent.resource() + " " + intent.verb()) {
          case "persistentvolumeclaims CREATE" ->
              claims.putIfAbsent(
                  intent.name(), (io.streamplane.api.PersistentVolumeClaim) intent.object());
          case "persistentvolumeclaims DELETE" -> claims.remove(intent.name());
          case "pods CREATE" -> {
            Pod pod = KubeObjects.copy((Pod) intent.object());
            pod.getMetadata().setUid("pod-" + ++uids);
            pod.getMetadata().setCreationTimestamp(now);
            pod.setStatus(PodStatus.newBuilder().setPhase("Running").build());
            pods.put(pod.getMetadata().getName(), pod);
            createdInOrder.add(pod.getMetadata().getName());
          }
          case "pods UPDATE" -> pods.put(intent.name(), (Pod) intent.object());
          case "pods DELETE" -> {
            pods.remove(intent.name());
            deletedInOrder.add(intent.name());
          }
          case "controllerrevisions CREATE", "controllerrevisions UPDATE" ->
              revisions.put(intent.name(), (ControllerRevision) intent.object());
          case "controllerrevisions DELETE" -> revisions.remove(intent.name());
          case "statefulsets UPDATE_STATUS" -> set = (StatefulSet) intent.object();
          default -> throw new AssertionError("unexpected " + intent);
        }
      }
      now = now.plusSeconds(1);
      return intents;
    }

    void allReady() {
      pods.values().forEach(StatefulSetReconcilerTest::makeReady);
    }

    void converge() {
      for (int i = 0; i < 60; i++) {
        List<Intent> intents = step();
        allReady();
        if (intents.isEmpty()) {
          return;
        }
      }
      throw new AssertionError("did not converge");
    }

    void scale(int replicas) {
      StatefulSet changed = KubeObjects.copy(set);
      changed.getSpec().setReplicas(replicas);
      changed.getMetadata().setGeneration(set.getMetadata().getGeneration() + 1);
      set = changed;
    }

    void setImage(String image) {
      StatefulSet changed = KubeObjects.copy(set);
      changed.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(image);
      changed.getMetadata().setGeneration(set.getMetadata().getGeneration() + 1);
      set = changed;
    }

    String image(String pod) {
      return pods.get(pod).getSpec().getContainers().get(0).getImage();
    }
  }

  private static void makeReady(Pod pod) {
    if (pod.getStatus().getConditions() == null) {
      pod.getStatus()
          .setConditions(
              List.of(
                  PodCondition.newBuilder()
                      .setType("Ready")
                      .setStatus("True")
                      .setLastTransitionTime(NOW)
                      .build()));
    }
  }

  private static List<String> podCreates(List<Intent> intents) {
    return intents.stream()
        .filter(i -> i.verb() == CommandVerb.CREATE && i.resource().equals("pods"))
        .map(Intent::name)
        .toList();
  }

  @Test
  void orderedReadyCreatesEachOrdinalOnlyOnceTheLowerOnesAreRunningAndReady() {
    World world = new World(set(3, ""));

    assertThat(podCreates(world.step())).containsExactly("web-0");
    assertThat(podCreates(world.step())).as("web-0 is Running, not Ready").isEmpty();
    world.allReady();
    assertThat(podCreates(world.step())).containsExactly("web-1");
    world.allReady();
    assertThat(podCreates(world.step())).containsExactly("web-2");
    world.allReady();
    world.converge();

    assertThat(world.createdInOrder).containsExactly("web-0", "web-1", "web-2");
    StatefulSetStatus status = world.set.getStatus();
    assertThat(status.getReplicas()).isEqualTo(3);
    assertThat(status.getReadyReplicas()).isEqualTo(3);
    assertThat(status.getAvailableReplicas()).isEqualTo(3);
    assertThat(status.getCurrentReplicas()).isEqualTo(3);
    assertThat(status.getUpdatedReplicas()).isEqualTo(3);
    assertThat(status.getCurrentRevision()).isEqualTo(status.getUpdateRevision());
    assertThat(status.getCollisionCount()).isZero();
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
  }

  @Test
  void aPodHasItsIdentityAndTheRevisionItRuns() {
    World world = new World(set(1, ""));
    world.converge();

    Pod pod = world.pods.get("web-0");
    assertThat(pod.getSpec().getHostname()).isEqualTo("web-0");
    assertThat(pod.getSpec().getSubdomain()).isEqualTo("nginx");
    assertThat(pod.getMetadata().getLabels())
        .containsEntry("app", "web")
        .containsEntry("statefulset.kubernetes.io/pod-name", "web-0")
        .containsEntry("apps.kubernetes.io/pod-index", "0")
        .containsEntry("controller-revision-hash", world.set.getStatus().getUpdateRevision());
    assertThat(pod.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("StatefulSet");
    assertThat(pod.getMetadata().getOwnerReferences().get(0).getController()).isTrue();
    ControllerRevision revision = world.revisions.get(world.set.getStatus().getUpdateRevision());
    assertThat(revision.getRevision()).isEqualTo(1L);
    assertThat(revision.getData()).contains("\"$patch\":\"replace\"").contains("nginx:1");
  }

  @Test
  void aConvergedSetWritesNothing() {
    World world = new World(set(3, ""));
    world.converge();

    assertThat(world.decide()).isEmpty();
  }

  @Test
  void aDeletedPodIsMadeAgainUnderItsName() {
    World world = new World(set(3, ""));
    world.converge();
    world.pods.remove("web-1");

    assertThat(podCreates(world.step())).containsExactly("web-1");
  }

  @Test
  void aFailedPodIsDeletedThenMadeAgain() {
    World world = new World(set(2, ""));
    world.converge();
    world.pods.get("web-1").getStatus().setPhase("Failed");

    List<Intent> intents = world.step();
    assertThat(intents).anyMatch(i -> i.verb() == CommandVerb.DELETE && i.name().equals("web-1"));
    assertThat(podCreates(world.step())).containsExactly("web-1");
  }

  @Test
  void scalingDownRemovesTheHighestOrdinalOneAtATime() {
    World world = new World(set(3, ""));
    world.converge();
    world.deletedInOrder.clear();
    world.scale(1);

    world.converge();

    assertThat(world.deletedInOrder).containsExactly("web-2", "web-1");
    assertThat(world.pods).containsOnlyKeys("web-0");
    assertThat(world.events)
        .containsExactly(
            "create Pod web-0 in StatefulSet web successful",
            "create Pod web-1 in StatefulSet web successful",
            "create Pod web-2 in StatefulSet web successful",
            "delete Pod web-2 in StatefulSet web successful",
            "delete Pod web-1 in StatefulSet web successful");
  }

  @Test
  void orderedReadyWaitsForAnUnhealthyPodBeforeScalingDown() {
    World world = new World(set(3, ""));
    world.converge();
    world.pods.get("web-0").getStatus().setConditions(null);
    world.scale(1);

    assertThat(world.step()).noneMatch(i -> i.verb() == CommandVerb.DELETE);
  }

  @Test
  void parallelCreatesAndDeletesAllAtOnce() {
    World world = new World(set(3, "'podManagementPolicy':'Parallel',"));

    assertThat(podCreates(world.step())).containsExactly("web-0", "web-1", "web-2");
    world.scale(0);
    assertThat(world.step())
        .filteredOn(i -> i.verb() == CommandVerb.DELETE)
        .extracting(Intent::name)
        .containsExactly("web-2", "web-1", "web-0");
  }

  @Test
  void aRollingUpdateReplacesPodsFromTheHighestOrdinalOneAtATime() {
    World world = new World(set(3, ""));
    world.converge();
    String first = world.set.getStatus().getCurrentRevision();
    world.deletedInOrder.clear();
    world.setImage("nginx:2");

    List<Intent> intents = world.step();
    assertThat(intents)
        .filteredOn(i -> i.verb() == CommandVerb.DELETE)
        .extracting(Intent::name)
        .containsExactly("web-2");
    assertThat(world.set.getStatus().getCurrentRevision()).isEqualTo(first);
    assertThat(world.set.getStatus().getUpdateRevision()).isNotEqualTo(first);
    world.converge();

    assertThat(world.deletedInOrder).containsExactly("web-2", "web-1", "web-0");
    assertThat(world.pods.keySet()).allMatch(p -> world.image(p).equals("nginx:2"));
    StatefulSetStatus status = world.set.getStatus();
    assertThat(status.getCurrentRevision()).isEqualTo(status.getUpdateRevision());
    assertThat(status.getUpdatedReplicas()).isEqualTo(3);
    assertThat(status.getCurrentReplicas()).isEqualTo(3);
    assertThat(world.revisions).hasSize(2);
    assertThat(world.revisions.get(status.getUpdateRevision()).getRevision()).isEqualTo(2L);
  }

  @Test
  void aPartitionKeepsTheLowerOrdinalsAtTheCurrentRevisionEvenWhenRemade() {
    World world =
        new World(
            set(3, "'updateStrategy':{'type':'RollingUpdate','rollingUpdate':{'partition':2}},"));
    world.converge();
    world.setImage("nginx:2");
    world.converge();

    assertThat(world.image("web-2")).isEqualTo("nginx:2");
    assertThat(world.image("web-1")).isEqualTo("nginx:1");
    assertThat(world.image("web-0")).isEqualTo("nginx:1");
    assertThat(world.set.getStatus().getUpdatedReplicas()).isEqualTo(1);
    assertThat(world.set.getStatus().getCurrentReplicas()).isEqualTo(2);

    world.pods.remove("web-0");
    world.converge();
    assertThat(world.image("web-0")).as("remade from the current revision").isEqualTo("nginx:1");
  }

  @Test
  void maxUnavailableReplacesThatManyPodsAtOnce() {
    World world =
        new World(
            set(
                4,
                "'podManagementPolicy':'Parallel','updateStrategy':{'type':'RollingUpdate',"
                    + "'rollingUpdate':{'partition':0,'maxUnavailable':2}},"));
    world.converge();
    world.setImage("nginx:2");

    assertThat(world.step())
        .filteredOn(i -> i.verb() == CommandVerb.DELETE)
        .extracting(Intent::name)
        .containsExactly("web-3", "web-2");
  }

  @Test
  void onDeleteReplacesNothingUntilAPodIsDeleted() {
    World world = new World(set(2, "'updateStrategy':{'type':'OnDelete'},"));
    world.converge();
    world.setImage("nginx:2");
    world.converge();
    assertThat(world.image("web-1")).isEqualTo("nginx:1");

    world.pods.remove("web-1");
    world.converge();
    assertThat(world.image("web-1")).isEqualTo("nginx:2");
    assertThat(world.image("web-0")).isEqualTo("nginx:1");
  }

  private static final String CLAIM_TEMPLATE =
      "'volumeClaimTemplates':[{'metadata':{'name':'www','labels':{'tier':'data'}},'spec':{"
          + "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}],";

  @Test
  void eachPodGetsItsClaimsMadeBeforeItAndMountedInPlaceOfTheTemplatesVolume() {
    World world = new World(set(2, CLAIM_TEMPLATE));
    world.converge();

    assertThat(world.claims).containsOnlyKeys("www-web-0", "www-web-1");
    assertThat(world.writes)
        .containsSubsequence(
            "persistentvolumeclaims CREATE www-web-0",
            "pods CREATE web-0",
            "persistentvolumeclaims CREATE www-web-1",
            "pods CREATE web-1");
    var claim = world.claims.get("www-web-0");
    assertThat(claim.getMetadata().getLabels())
        .containsEntry("app", "web")
        .containsEntry("tier", "data");
    assertThat(claim.getMetadata().getOwnerReferences()).as("Retain: no owner").isNull();
    var volume = world.pods.get("web-1").getSpec().getVolumes().get(0);
    assertThat(volume.getName()).isEqualTo("www");
    assertThat(volume.getPersistentVolumeClaim().getClaimName()).isEqualTo("www-web-1");
  }

  @Test
  void claimsAreKeptOnScaleDownUnlessWhenScaledIsDeleteAndOwnedByTheSetWhenWhenDeletedIsDelete() {
    World retained = new World(set(2, CLAIM_TEMPLATE));
    retained.converge();
    retained.scale(1);
    retained.converge();
    assertThat(retained.claims).containsOnlyKeys("www-web-0", "www-web-1");

    World deleted =
        new World(
            set(
                2,
                CLAIM_TEMPLATE
                    + "'persistentVolumeClaimRetentionPolicy':{'whenDeleted':'Delete',"
                    + "'whenScaled':'Delete'},"));
    deleted.converge();
    var owner = deleted.claims.get("www-web-0").getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getKind()).isEqualTo("StatefulSet");
    assertThat(owner.getUid()).isEqualTo("sts-uid");
    deleted.scale(1);
    deleted.converge();
    assertThat(deleted.claims).containsOnlyKeys("www-web-0");
    assertThat(deleted.writes)
        .containsSubsequence("pods DELETE web-1", "persistentvolumeclaims DELETE www-web-1");
    assertThat(deleted.events)
        .as("a claim's create is recorded, its delete by a scale-down is not")
        .contains("create Claim www-web-1 Pod web-1 in StatefulSet web success")
        .doesNotContainNull()
        .hasSize(5);
  }

  @Test
  void podsPendingAWriteAreNotManaged() {
    World world = new World(set(3, "'podManagementPolicy':'Parallel',"));

    List<Intent> intents =
        StatefulSetReconciler.reconcile(world.set, List.of(), List.of(), false, NOW).intents();

    assertThat(podCreates(intents)).isEmpty();
  }

  @Test
  void aSetBeingDeletedDecidesNothing() {
    World world = new World(set(3, ""));
    world.converge();
    world.set.getMetadata().setDeletionTimestamp(NOW);
    world.scale(0);

    assertThat(world.decide()).isEmpty();
  }

  @Test
  void aPodWhoseLabelsNoLongerMatchIsReleasedAndNoLongerCounted() {
    World world = new World(set(3, ""));
    world.converge();
    world.pods.get("web-1").getMetadata().setLabels(Map.of("app", "debug"));

    List<Intent> intents = world.step();

    // The set then makes web-1 again, which the released pod's name refuses, as in Kubernetes.
    assertThat(intents)
        .filteredOn(i -> i.resource().equals("pods") && i.verb() == CommandVerb.UPDATE)
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.name()).isEqualTo("web-1");
              assertThat(((Pod) i.object()).getMetadata().getOwnerReferences()).isNull();
            });
  }

  @Test
  void aSetCreatedAgainOverItsOrphanedPodsAndRevisionWritesOnlyItsStatus() {
    World world = new World(set(3, ""));
    world.converge();
    StatefulSet again = set(3, "");
    again.getMetadata().setUid("sts-uid-2");
    ControllerRefManager.OwnerKind kind =
        new ControllerRefManager.OwnerKind("apps/v1", "StatefulSet");
    world.set = again;
    world.pods.replaceAll(
        (name, pod) ->
            ControllerRefManager.adopt(
                ControllerRefManager.release(pod, "sts-uid"), again.getMetadata(), kind));
    world.revisions.replaceAll(
        (name, revision) ->
            ControllerRefManager.adopt(
                ControllerRefManager.release(revision, "sts-uid"), again.getMetadata(), kind));

    List<Intent> first = world.step();
    List<Intent> second = world.step();

    assertThat(first)
        .extracting(i -> i.resource() + " " + i.verb())
        .containsExactly("statefulsets UPDATE_STATUS");
    assertThat(world.set.getStatus().getReadyReplicas()).isEqualTo(3);
    assertThat(second).isEmpty();
    assertThat(world.createdInOrder).containsExactly("web-0", "web-1", "web-2");
    assertThat(world.deletedInOrder).isEmpty();
  }

  @Test
  void aPodWhoseNameIsNotTheSetsIsReleased() {
    World world = new World(set(1, ""));
    world.converge();
    Pod stray = KubeObjects.copy(world.pods.get("web-0"));
    stray.getMetadata().setName("web-x");
    stray.getMetadata().setUid("stray");
    world.pods.put("web-x", stray);

    assertThat(world.decide())
        .filteredOn(i -> i.resource().equals("pods"))
        .extracting(i -> i.verb() + " " + i.name())
        .containsExactly("UPDATE web-x");
  }
}
