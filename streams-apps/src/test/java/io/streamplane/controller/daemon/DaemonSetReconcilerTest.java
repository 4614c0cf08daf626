package io.streamplane.controller.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ControllerRevision;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.Event;
import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Toleration;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.Intent;
import io.streamplane.controller.PodReadiness;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The DaemonSet controller's decision for one DaemonSet, its nodes and pods, as a function. */
class DaemonSetReconcilerTest {

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

  /** A DaemonSet of pods labelled app=agent, with {@code spec} and {@code podSpec} additions. */
  private static DaemonSet daemonSet(String spec, String podSpec) {
    return avro(
        "{'apiVersion':'apps/v1','kind':'DaemonSet','metadata':{'name':'agent','namespace':"
            + "'kube-system','uid':'ds-uid','generation':1,'resourceVersion':'7'},'spec':{"
            + spec
            + "'selector':{'matchLabels':{'app':'agent'}},'template':{'metadata':{'labels':"
            + "{'app':'agent'}},'spec':{"
            + podSpec
            + "'containers':[{'name':'agent','image':'busybox:1'}]}}}}",
        DaemonSet.class);
  }

  private static DaemonSet rolling(String maxUnavailable, String maxSurge) {
    return daemonSet(
        "'updateStrategy':{'type':'RollingUpdate','rollingUpdate':{'maxUnavailable':"
            + maxUnavailable
            + ",'maxSurge':"
            + maxSurge
            + "}},",
        "");
  }

  private static Node node(String name, String labels, String taints) {
    return avro(
        "{'metadata':{'name':'"
            + name
            + "','labels':{"
            + labels
            + "}},'spec':{'taints':["
            + taints
            + "]}}",
        Node.class);
  }

  /** A cluster the decisions are carried out in: pods appear bound, and go when deleted. */
  private static final class World {
    DaemonSet ds;
    final SortedMap<String, Node> nodes = new TreeMap<>();
    final Map<String, Pod> pods = new TreeMap<>();
    final List<String> events = new ArrayList<>();
    final Map<String, ControllerRevision> revisions = new TreeMap<>();
    Instant now = NOW;
    int uids;

    World(DaemonSet ds, Node... nodes) {
      this.ds = ds;
      for (Node node : nodes) {
        this.nodes.put(node.getMetadata().getName(), node);
      }
    }

    List<Intent> decide() {
      return DaemonSetReconciler.reconcile(
              ds,
              nodes,
              new ArrayList<>(pods.values()),
              new ArrayList<>(revisions.values()),
              true,
              500,
              now)
          .intents();
    }

    /** Carries out the intents; new pods are bound and running, not yet Ready. */
    List<Intent> step() {
      List<Intent> intents = decide();
      for (Intent intent : intents) {
        switch (intent.resource() + " " + intent.verb()) {
          case "pods CREATE" -> {
            Pod pod = KubeObjects.copy((Pod) intent.object());
            pod.getMetadata().setUid("pod-" + ++uids);
            pod.getMetadata().setCreationTimestamp(now);
            pod.getSpec().setNodeName(DaemonPods.targetNode(pod));
            pod.setStatus(PodStatus.newBuilder().setPhase("Running").build());
            pods.put(pod.getMetadata().getName(), pod);
          }
          case "pods DELETE" -> pods.remove(intent.name());
          case "pods UPDATE" -> pods.put(intent.name(), (Pod) intent.object());
          case "controllerrevisions CREATE", "controllerrevisions UPDATE" ->
              revisions.put(intent.name(), (ControllerRevision) intent.object());
          case "controllerrevisions DELETE" -> revisions.remove(intent.name());
          case "daemonsets UPDATE_STATUS" -> ds = (DaemonSet) intent.object();
          case "events CREATE" -> events.add(((Event) intent.object()).getMessage());
          default -> throw new AssertionError("unexpected " + intent);
        }
      }
      now = now.plusSeconds(1);
      return intents;
    }

    void allReady() {
      pods.values().forEach(DaemonSetReconcilerTest::makeReady);
    }

    void converge() {
      for (int i = 0; i < 50; i++) {
        List<Intent> intents = step();
        allReady();
        if (intents.isEmpty()) {
          return;
        }
      }
      throw new AssertionError("did not converge");
    }

    /** A template change, as an update of the DaemonSet's spec. */
    void setImage(String image) {
      DaemonSet changed = KubeObjects.copy(ds);
      changed.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(image);
      changed.getMetadata().setGeneration(ds.getMetadata().getGeneration() + 1);
      ds = changed;
    }

    List<String> podNodes() {
      return pods.values().stream().map(p -> p.getSpec().getNodeName()).sorted().toList();
    }

    long availableNodes() {
      return pods.values().stream()
          .filter(PodReadiness::isReady)
          .map(p -> p.getSpec().getNodeName())
          .distinct()
          .count();
    }
  }

  private static void makeReady(Pod pod) {
    if (!PodReadiness.isReady(pod)) {
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

  private static List<String> created(List<Intent> intents) {
    return intents.stream()
        .filter(i -> i.verb() == CommandVerb.CREATE && i.resource().equals("pods"))
        .map(i -> DaemonPods.targetNode((Pod) i.object()))
        .sorted()
        .toList();
  }

  @Test
  void aPodIsCreatedOnEachNodeItsSelectorAffinityAndTaintsAdmit() {
    DaemonSet ds =
        daemonSet(
            "",
            "'nodeSelector':{'role':'edge'},'affinity':{'nodeAffinity':{"
                + "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':[{"
                + "'matchExpressions':[{'key':'zone','operator':'NotIn','values':['b']}]}]}}},");
    World world =
        new World(
            ds,
            node("edge-a", "'role':'edge','zone':'a'", ""),
            node("edge-b", "'role':'edge','zone':'b'", ""),
            node("core", "'role':'core'", ""),
            node(
                "dedicated",
                "'role':'edge'",
                "{'key':'dedicated','value':'db','effect':'NoSchedule'}"),
            node(
                "unreachable",
                "'role':'edge'",
                "{'key':'node.kubernetes.io/unreachable','effect':'NoExecute'},"
                    + "{'key':'node.kubernetes.io/unschedulable','effect':'NoSchedule'}"));

    List<Intent> intents = world.decide();

    assertThat(created(intents)).containsExactly("edge-a", "unreachable");
    Pod pod =
        (Pod) intents.stream().filter(i -> i.resource().equals("pods")).findFirst().get().object();
    String hash = DaemonSetHistory.hash(ds);
    assertThat(pod.getMetadata().getLabels())
        .containsEntry("app", "agent")
        .containsEntry("controller-revision-hash", hash);
    assertThat(pod.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("DaemonSet");
    assertThat(pod.getMetadata().getGenerateName()).isEqualTo("agent-");
    assertThat(pod.getSpec().getNodeName()).isNull();
    assertThat(
            pod.getSpec()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms())
        .singleElement()
        .satisfies(
            term -> {
              assertThat(term.getMatchExpressions()).isNull();
              assertThat(term.getMatchFields().get(0).getKey()).isEqualTo("metadata.name");
              assertThat(term.getMatchFields().get(0).getValues()).containsExactly("edge-a");
            });
    assertThat(pod.getSpec().getTolerations())
        .extracting(Toleration::getKey, Toleration::getEffect)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("node.kubernetes.io/not-ready", "NoExecute"),
            org.assertj.core.groups.Tuple.tuple("node.kubernetes.io/unreachable", "NoExecute"),
            org.assertj.core.groups.Tuple.tuple("node.kubernetes.io/disk-pressure", "NoSchedule"),
            org.assertj.core.groups.Tuple.tuple("node.kubernetes.io/memory-pressure", "NoSchedule"),
            org.assertj.core.groups.Tuple.tuple("node.kubernetes.io/pid-pressure", "NoSchedule"),
            org.assertj.core.groups.Tuple.tuple("node.kubernetes.io/unschedulable", "NoSchedule"));
    assertThat(intents)
        .filteredOn(i -> i.resource().equals("controllerrevisions"))
        .singleElement()
        .satisfies(
            i -> {
              ControllerRevision revision = (ControllerRevision) i.object();
              assertThat(revision.getMetadata().getName()).isEqualTo("agent-" + hash);
              assertThat(revision.getRevision()).isEqualTo(1L);
              assertThat(revision.getData()).startsWith("{\"spec\":{\"template\":{");
              assertThat(revision.getData()).endsWith(",\"$patch\":\"replace\"}}}");
            });
  }

  @Test
  void hostNetworkPodsAlsoTolerateAnUnavailableNetwork() {
    DaemonSet ds = daemonSet("", "'hostNetwork':true,");
    World world =
        new World(
            ds,
            node(
                "n1",
                "",
                "{'key':'node.kubernetes.io/network-unavailable','effect':'NoSchedule'}"));

    assertThat(created(world.decide())).containsExactly("n1");
    assertThat(created(new World(daemonSet("", ""), world.nodes.get("n1")).decide())).isEmpty();
  }

  @Test
  void aNodeAddedGetsAPodAndThePodOfANodeRemovedIsDeleted() {
    World world = new World(daemonSet("", ""), node("n1", "", ""), node("n2", "", ""));
    world.converge();
    assertThat(world.podNodes()).containsExactly("n1", "n2");

    world.nodes.put("n3", node("n3", "", ""));
    assertThat(created(world.step())).containsExactly("n3");

    world.nodes.remove("n1");
    List<Intent> intents = world.step();
    assertThat(intents)
        .filteredOn(i -> i.verb() == CommandVerb.DELETE)
        .extracting(Intent::name)
        .singleElement()
        .satisfies(name -> assertThat(name).startsWith("agent-"));
    world.converge();
    assertThat(world.podNodes()).containsExactly("n2", "n3");
    assertThat(world.ds.getStatus().getDesiredNumberScheduled()).isEqualTo(2);
    assertThat(world.events)
        .as("the daemon set controller's Events")
        .hasSize(4)
        .filteredOn(e -> e.startsWith("Deleted pod: agent-"))
        .hasSize(1);
    assertThat(world.events).filteredOn(e -> e.startsWith("Created pod: agent-")).hasSize(3);
  }

  @Test
  void aRelabelledNodeLosesItsPodAndANoScheduleTaintKeepsTheOneThereButCountsItMisscheduled() {
    World world =
        new World(
            daemonSet("", "'nodeSelector':{'agent':'yes'},"),
            node("n1", "'agent':'yes'", ""),
            node("n2", "'agent':'yes'", ""),
            node("n3", "'agent':'yes'", ""));
    world.converge();

    world.nodes.put("n1", node("n1", "'agent':'no'", ""));
    world.nodes.put("n2", node("n2", "'agent':'yes'", "{'key':'k','effect':'NoSchedule'}"));
    world.nodes.put("n3", node("n3", "'agent':'yes'", "{'key':'k','effect':'NoExecute'}"));
    world.converge();

    assertThat(world.podNodes()).containsExactly("n2");
    assertThat(world.ds.getStatus().getDesiredNumberScheduled()).isZero();
    assertThat(world.ds.getStatus().getNumberMisscheduled()).isEqualTo(1);
  }

  @Test
  void aRollingUpdateKeepsAtMostMaxUnavailableNodesWithoutAnAvailablePod() {
    World world =
        new World(
            rolling("2", "0"),
            node("n1", "", ""),
            node("n2", "", ""),
            node("n3", "", ""),
            node("n4", "", ""),
            node("n5", "", ""));
    world.converge();
    world.setImage("busybox:2");
    String hash = DaemonSetHistory.hash(world.ds);

    int steps = 0;
    while (world.pods.values().stream().anyMatch(p -> !hash.equals(DaemonPods.hash(p)))
        || world.availableNodes() < 5) {
      List<Intent> intents = world.step();
      assertThat(world.availableNodes())
          .as("nodes with an available pod")
          .isGreaterThanOrEqualTo(3);
      assertThat(intents.stream().filter(i -> i.verb() == CommandVerb.DELETE).count())
          .isLessThanOrEqualTo(2);
      world.allReady();
      assertThat(++steps).isLessThan(30);
    }
    world.converge();

    assertThat(world.podNodes()).containsExactly("n1", "n2", "n3", "n4", "n5");
    assertThat(world.revisions.keySet()).hasSize(2);
    var status = world.ds.getStatus();
    assertThat(status.getUpdatedNumberScheduled()).isEqualTo(5);
    assertThat(status.getNumberAvailable()).isEqualTo(5);
    assertThat(status.getObservedGeneration()).isEqualTo(2L);
  }

  @Test
  void withMaxSurgeTheNewPodStartsBesideTheOldOneWhichGoesOnceTheNewIsReady() {
    World world = new World(rolling("0", "1"), node("n1", "", ""), node("n2", "", ""));
    world.converge();
    world.setImage("busybox:2");

    List<Intent> first = world.step();
    assertThat(created(first)).hasSize(1);
    assertThat(first).noneMatch(i -> i.verb() == CommandVerb.DELETE);
    assertThat(world.pods).hasSize(3);
    assertThat(world.step()).noneMatch(i -> i.resource().equals("pods"));

    world.allReady();
    world.converge();
    assertThat(world.podNodes()).containsExactly("n1", "n2");
    assertThat(world.availableNodes()).isEqualTo(2);
  }

  @Test
  void onDeleteReplacesAPodOnlyOnceItIsDeleted() {
    World world =
        new World(
            daemonSet("'updateStrategy':{'type':'OnDelete'},", ""),
            node("n1", "", ""),
            node("n2", "", ""));
    world.converge();
    world.setImage("busybox:2");
    world.converge();
    String hash = DaemonSetHistory.hash(world.ds);
    assertThat(world.pods.values()).noneMatch(p -> hash.equals(DaemonPods.hash(p)));
    assertThat(world.ds.getStatus().getUpdatedNumberScheduled()).isNull();

    world.pods.values().removeIf(p -> p.getSpec().getNodeName().equals("n1"));
    world.converge();
    assertThat(world.pods.values()).filteredOn(p -> hash.equals(DaemonPods.hash(p))).hasSize(1);
    assertThat(world.ds.getStatus().getUpdatedNumberScheduled()).isEqualTo(1);
  }

  @Test
  void aTemplateThatComesBackTakesTheNextRevisionAndOldRevisionsBeyondTheLimitGo() {
    World world = new World(daemonSet("'revisionHistoryLimit':1,", ""), node("n1", "", ""));
    world.converge();
    String first = DaemonSetHistory.hash(world.ds);
    world.setImage("busybox:2");
    world.converge();
    world.setImage("busybox:3");
    world.converge();
    assertThat(world.revisions).hasSize(2);

    world.setImage("busybox:1");
    world.converge();

    ControllerRevision back = world.revisions.get("agent-" + first);
    assertThat(back.getRevision()).isEqualTo(4L);
    assertThat(world.revisions).hasSize(2);
  }

  @Test
  void aConvergedDaemonSetWritesNothing() {
    World world = new World(rolling("1", "0"), node("n1", "", ""), node("n2", "'x':'y'", ""));
    world.converge();

    assertThat(world.decide()).isEmpty();
    var status = world.ds.getStatus();
    assertThat(status.getDesiredNumberScheduled()).isEqualTo(2);
    assertThat(status.getCurrentNumberScheduled()).isEqualTo(2);
    assertThat(status.getNumberReady()).isEqualTo(2);
    assertThat(status.getNumberAvailable()).isEqualTo(2);
    assertThat(status.getUpdatedNumberScheduled()).isEqualTo(2);
    assertThat(status.getNumberMisscheduled()).isZero();
    assertThat(status.getNumberUnavailable()).isNull();
    assertThat(status.getObservedGeneration()).isEqualTo(1L);
  }

  @Test
  void whileItsWritesArePendingOnlyTheStatusIsRevisedAndTheGenerationNotObserved() {
    World world = new World(daemonSet("", ""), node("n1", "", ""), node("n2", "", ""));
    world.converge();
    world.setImage("busybox:2");
    world.nodes.put("n3", node("n3", "", ""));

    List<Intent> intents =
        DaemonSetReconciler.reconcile(
                world.ds,
                world.nodes,
                new ArrayList<>(world.pods.values()),
                new ArrayList<>(world.revisions.values()),
                false,
                500,
                world.now)
            .intents();

    assertThat(intents).noneMatch(i -> i.resource().equals("pods"));
    DaemonSet status =
        (DaemonSet)
            intents.stream()
                .filter(i -> i.verb() == CommandVerb.UPDATE_STATUS)
                .findFirst()
                .get()
                .object();
    assertThat(status.getStatus().getDesiredNumberScheduled()).isEqualTo(3);
    assertThat(status.getStatus().getObservedGeneration()).isEqualTo(1L);
  }

  @Test
  void aPodWhoseLabelsNoLongerMatchIsReleasedAndItsNodeGetsANewOne() {
    World world = new World(daemonSet("", ""), node("n1", "", ""), node("n2", "", ""));
    world.converge();
    Pod relabelled =
        world.pods.values().stream()
            .filter(p -> p.getSpec().getNodeName().equals("n1"))
            .findFirst()
            .orElseThrow();
    relabelled.getMetadata().setLabels(Map.of("app", "debug"));

    List<Intent> intents = world.step();

    assertThat(intents)
        .filteredOn(i -> i.verb() == CommandVerb.UPDATE && i.resource().equals("pods"))
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.name()).isEqualTo(relabelled.getMetadata().getName());
              assertThat(((Pod) i.object()).getMetadata().getOwnerReferences()).isNull();
              assertThat(((Pod) i.object()).getMetadata().getLabels())
                  .containsEntry("app", "debug");
            });
    world.converge();
    assertThat(world.podNodes()).containsExactly("n1", "n1", "n2");
    assertThat(world.ds.getStatus().getCurrentNumberScheduled()).isEqualTo(2);
  }

  @Test
  void aDaemonSetCreatedAgainOverItsOrphanedPodsAndRevisionWritesOnlyItsStatus() {
    World world = new World(daemonSet("", ""), node("n1", "", ""), node("n2", "", ""));
    world.converge();
    DaemonSet again = daemonSet("", "");
    again.getMetadata().setUid("ds-uid-2");
    ControllerRefManager.OwnerKind kind =
        new ControllerRefManager.OwnerKind("apps/v1", "DaemonSet");
    world.ds = again;
    world.pods.replaceAll(
        (name, pod) ->
            ControllerRefManager.adopt(
                ControllerRefManager.release(pod, "ds-uid"), again.getMetadata(), kind));
    world.revisions.replaceAll(
        (name, revision) ->
            ControllerRefManager.adopt(
                ControllerRefManager.release(revision, "ds-uid"), again.getMetadata(), kind));
    List<String> pods = List.copyOf(world.pods.keySet());

    List<Intent> first = world.step();
    List<Intent> second = world.step();

    assertThat(first)
        .extracting(i -> i.resource() + " " + i.verb())
        .containsExactly("daemonsets UPDATE_STATUS");
    assertThat(world.ds.getStatus().getNumberAvailable()).isEqualTo(2);
    assertThat(second).isEmpty();
    assertThat(world.pods.keySet()).containsExactlyElementsOf(pods);
  }
}
