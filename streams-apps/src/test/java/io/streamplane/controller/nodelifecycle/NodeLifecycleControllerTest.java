package io.streamplane.controller.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.streamplane.api.Lease;
import io.streamplane.api.LeaseSpec;
import io.streamplane.api.Node;
import io.streamplane.api.NodeCondition;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import io.streamplane.controller.ControllersTopology;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Given these Nodes, Leases and pods, and this much wall-clock time, the node lifecycle controller
 * sends these commands. The test plays the store: it feeds the controller's writes back as events.
 */
class NodeLifecycleControllerTest {

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final String UNREACHABLE = "node.kubernetes.io/unreachable";

  private final Topics topics =
      new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());
  private TopologyTestDriver driver;
  private TestInputTopic<String, ResourceEvent> events;
  private TestOutputTopic<String, ResourceCommand> commands;
  private final Map<String, Pod> pods = new HashMap<>();
  private Instant clock = T0;
  private long version = 1;

  @BeforeEach
  void start() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "node-lifecycle-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir") + "/node-lifecycle-test-" + UUID.randomUUID());
    driver =
        new TopologyTestDriver(
            ControllersTopology.buildTopology(topics, NodeLifecycleConfig.defaults()), props, T0);
    events =
        driver.createInputTopic(
            topics.events().name(),
            Serdes.String().serializer(),
            topics.events().valueSerde().serializer());
    commands =
        driver.createOutputTopic(
            topics.controllerRequests().name(),
            Serdes.String().deserializer(),
            topics.controllerRequests().valueSerde().deserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void aNodeWhoseLeaseExpiresGoesUnknownThenIsTaintedUnreachable() {
    send(EventType.ADDED, "nodes", null, readyNode("n1", T0));
    send(EventType.ADDED, "leases", "kube-node-lease", lease("n1", T0));

    advanceTo(T0.plusSeconds(40));
    assertThat(commands.readValuesToList()).as("within the grace period").isEmpty();

    advanceTo(T0.plusSeconds(41));
    ResourceCommand status = single(commands.readValuesToList());
    assertThat(status.getVerb()).isEqualTo(CommandVerb.UPDATE_STATUS);
    assertThat(status.getActor().getUsername())
        .isEqualTo("system:serviceaccount:kube-system:node-controller");
    Node marked = (Node) KindObjects.of(status);
    assertThat(marked.getMetadata().getResourceVersion()).as("the precondition").isEqualTo("1");
    assertThat(marked.getStatus().getConditions())
        .extracting(
            NodeCondition::getType,
            NodeCondition::getStatus,
            NodeCondition::getReason,
            NodeCondition::getMessage,
            NodeCondition::getLastHeartbeatTime,
            NodeCondition::getLastTransitionTime)
        .containsExactlyInAnyOrder(
            unknown("Ready", T0.plusSeconds(41)),
            unknown("MemoryPressure", T0.plusSeconds(41)),
            unknown("DiskPressure", T0.plusSeconds(41)),
            unknown("PIDPressure", T0.plusSeconds(41)));

    storeApplies(marked);
    advanceTo(T0.plusSeconds(42));
    ResourceCommand tainting = single(commands.readValuesToList());
    assertThat(tainting.getVerb()).isEqualTo(CommandVerb.UPDATE);
    Node tainted = (Node) KindObjects.of(tainting);
    assertThat(tainted.getMetadata().getResourceVersion()).isEqualTo(Long.toString(version));
    assertThat(tainted.getSpec().getTaints())
        .extracting(Taint::getKey, Taint::getEffect, Taint::getTimeAdded)
        .containsExactlyInAnyOrder(
            tuple(UNREACHABLE, "NoExecute", T0.plusSeconds(42)),
            tuple(UNREACHABLE, "NoSchedule", null));

    storeApplies(tainted);
    advanceTo(T0.plusSeconds(60));
    assertThat(commands.readValuesToList()).as("nothing more to do").isEmpty();
  }

  @Test
  void aNodeThatRenewsItsLeaseIsLeftAloneAlthoughItsHeartbeatIsOld() {
    send(EventType.ADDED, "nodes", null, readyNode("n1", T0));
    send(EventType.ADDED, "leases", "kube-node-lease", lease("n1", T0));
    advanceTo(T0.plusSeconds(30));
    send(EventType.MODIFIED, "leases", "kube-node-lease", lease("n1", T0.plusSeconds(30)));

    advanceTo(T0.plusSeconds(65));

    assertThat(commands.readValuesToList()).isEmpty();
  }

  @Test
  void aNodeBackWithARenewedLeaseAndReadyTrueLosesTheUnreachableTaints() {
    Node down = tainted(unknownNode("n1"), T0);
    send(EventType.ADDED, "nodes", null, down);
    send(EventType.ADDED, "leases", "kube-node-lease", lease("n1", T0.minusSeconds(120)));
    advanceTo(T0.plusSeconds(5));
    assertThat(commands.readValuesToList()).as("still unreachable").isEmpty();

    send(EventType.MODIFIED, "leases", "kube-node-lease", lease("n1", T0.plusSeconds(6)));
    advanceTo(T0.plusSeconds(7));
    assertThat(commands.readValuesToList())
        .as("the lease alone does not clear the taints: Ready is still Unknown")
        .isEmpty();

    Node back =
        Node.newBuilder(down).setStatus(readyNode("n1", T0.plusSeconds(8)).getStatus()).build();
    storeApplies(back);
    advanceTo(T0.plusSeconds(9));

    ResourceCommand untainting = single(commands.readValuesToList());
    assertThat(untainting.getVerb()).isEqualTo(CommandVerb.UPDATE);
    assertThat(((Node) KindObjects.of(untainting)).getSpec().getTaints())
        .extracting(Taint::getKey)
        .containsExactly("dedicated");
  }

  @Test
  void podsOnATaintedNodeAreEvictedWhenTheirTolerationsRunOut() {
    Instant tainted = T0;
    send(EventType.ADDED, "nodes", null, tainted(unknownNode("n1"), tainted));
    Pod noTolerations = pod("no-tolerations");
    Pod tolerates60 = pod("tolerates-60", toleration(UNREACHABLE, "Exists", "NoExecute", 60L));
    Pod tolerates60ForOtherTaint =
        pod("tolerates-60-other", toleration("other", "Exists", "NoExecute", 60L));
    Pod toleratesForever = pod("tolerates-forever", toleration(UNREACHABLE, "Exists", null, null));
    Pod toleratesEverything = pod("tolerates-everything", toleration(null, "Exists", null, null));
    for (Pod pod :
        List.of(
            noTolerations,
            tolerates60,
            tolerates60ForOtherTaint,
            toleratesForever,
            toleratesEverything)) {
      send(EventType.ADDED, "pods", "default", pod);
    }

    advanceTo(tainted.plusSeconds(59));
    assertThat(evicted()).isEmpty();
    advanceTo(tainted.plusSeconds(60));
    assertThat(evicted()).containsExactly("tolerates-60");
    advanceTo(tainted.plusSeconds(299));
    assertThat(evicted()).isEmpty();
    advanceTo(tainted.plusSeconds(300));
    assertThat(evicted())
        .as("no toleration of unreachable: the default 300 s one")
        .containsExactlyInAnyOrder("no-tolerations", "tolerates-60-other");
    advanceTo(tainted.plusSeconds(86_400));
    assertThat(evicted()).as("tolerationSeconds unset: never").isEmpty();
  }

  @Test
  void anEvictionDeletesThePodByUidAndRecordsTaintManagerEviction() {
    send(EventType.ADDED, "nodes", null, tainted(unknownNode("n1"), T0));
    send(EventType.ADDED, "pods", "default", pod("web"));

    advanceTo(T0.plusSeconds(300));

    List<ResourceCommand> sent = commands.readValuesToList();
    assertThat(sent)
        .extracting(ResourceCommand::getVerb, ResourceCommand::getResource)
        .containsExactly(tuple(CommandVerb.DELETE, "pods"), tuple(CommandVerb.CREATE, "events"));
    assertThat(sent.get(0).getPreconditions().getUid()).isEqualTo("uid-web");
    assertThat(sent.get(0).getActor().getUsername())
        .isEqualTo("system:serviceaccount:kube-system:taint-eviction-controller");
    io.streamplane.api.Event event = (io.streamplane.api.Event) KindObjects.of(sent.get(1));
    assertThat(event.getReason()).isEqualTo("TaintManagerEviction");
    assertThat(event.getMessage()).isEqualTo("Marking for deletion Pod default/web");
    assertThat(event.getInvolvedObject().getUid()).isEqualTo("uid-web");
  }

  @Test
  void aTaintAddedByHandWithoutTimeAddedCountsFromWhenItWasSeen() {
    Node node = readyNode("n1", T0);
    send(EventType.ADDED, "nodes", null, node);
    send(EventType.ADDED, "leases", "kube-node-lease", lease("n1", T0));
    send(EventType.ADDED, "pods", "default", pod("intolerant"));
    send(
        EventType.ADDED,
        "pods",
        "default",
        pod("tolerates-20", toleration("maintenance", "Exists", "NoExecute", 20L)));
    advanceTo(T0.plusSeconds(10));
    send(EventType.ADDED, "leases", "kube-node-lease", lease("n1", T0.plusSeconds(10)));
    Node byHand =
        Node.newBuilder(node)
            .setSpec(
                NodeSpec.newBuilder()
                    .setTaints(
                        List.of(
                            Taint.newBuilder()
                                .setKey("maintenance")
                                .setEffect("NoExecute")
                                .build()))
                    .build())
            .build();
    storeApplies(byHand);

    advanceTo(T0.plusSeconds(11));
    assertThat(evicted()).as("untolerated: at once").containsExactly("intolerant");
    advanceTo(T0.plusSeconds(29));
    assertThat(evicted()).isEmpty();
    advanceTo(T0.plusSeconds(30));
    assertThat(evicted()).containsExactly("tolerates-20");
  }

  @Test
  void aNodeIsQueuedForTheMomentItsGracePeriodRunsOutNotLookedAtEverySecond() {
    send(EventType.ADDED, "nodes", null, readyNode("n1", T0));
    send(EventType.ADDED, "leases", "kube-node-lease", lease("n1", T0));
    advanceTo(T0.plusSeconds(1));
    // and the task's start, which looks at every node once more
    advanceTo(T0.plusSeconds(2));

    assertThat(driver.getKeyValueStore("node-lifecycle-queue").get("n1"))
        .as("the node's due time, as state")
        .asString()
        .startsWith(T0.plusSeconds(40).plusMillis(1).toEpochMilli() + "|");

    advanceTo(T0.plusSeconds(30));
    send(EventType.MODIFIED, "leases", "kube-node-lease", lease("n1", T0.plusSeconds(30)));
    advanceTo(T0.plusSeconds(31));

    assertThat(driver.getKeyValueStore("node-lifecycle-queue").get("n1"))
        .as("a renewal moves it")
        .asString()
        .startsWith(T0.plusSeconds(70).plusMillis(1).toEpochMilli() + "|");
  }

  @Test
  void aNodeWriteNeverSeenInTheEventsIsSentAgainTenSecondsLater() {
    send(EventType.ADDED, "nodes", null, readyNode("n1", T0));
    send(EventType.ADDED, "leases", "kube-node-lease", lease("n1", T0));
    advanceTo(T0.plusSeconds(41));
    assertThat(single(commands.readValuesToList()).getVerb()).isEqualTo(CommandVerb.UPDATE_STATUS);

    advanceTo(T0.plusSeconds(50));
    assertThat(commands.readValuesToList()).as("pending").isEmpty();
    advanceTo(T0.plusSeconds(52));

    assertThat(single(commands.readValuesToList()).getVerb()).isEqualTo(CommandVerb.UPDATE_STATUS);
  }

  // ------------------------------------------------------------------------------ fixtures

  /** The pods deleted since the last call; the store marks each terminating, as it would. */
  private List<String> evicted() {
    List<String> names = new ArrayList<>();
    for (ResourceCommand command : commands.readValuesToList()) {
      if (command.getVerb() == CommandVerb.DELETE && command.getResource().equals("pods")) {
        names.add(command.getName());
        Pod pod = pods.get(command.getName());
        send(
            EventType.MODIFIED,
            "pods",
            "default",
            KubeObjects.withMeta(
                pod,
                ObjectMeta.newBuilder(pod.getMetadata())
                    .setDeletionTimestamp(clock.plusSeconds(30))
                    .setResourceVersion(Long.toString(++version))
                    .build()));
      }
    }
    return names;
  }

  private void advanceTo(Instant when) {
    driver.advanceWallClockTime(Duration.between(clock, when));
    clock = when;
  }

  /** What the store would emit after accepting a write of {@code node}. */
  private void storeApplies(Node node) {
    Node stored =
        KubeObjects.withMeta(
            node,
            ObjectMeta.newBuilder(node.getMetadata())
                .setResourceVersion(Long.toString(++version))
                .build());
    send(EventType.MODIFIED, "nodes", null, stored);
  }

  private void send(EventType type, String resource, String namespace, SpecificRecord object) {
    String group = resource.equals("leases") ? "coordination.k8s.io" : "";
    ObjectMeta meta = KubeObjects.meta(object);
    ResourceEvent event =
        ResourceEvent.newBuilder()
            .setType(type)
            .setResource(resource)
            .setGroup(group)
            .setNamespace(namespace)
            .setName(meta.getName())
            .setEncodedObject(KindObjects.encode(object))
            .setResourceVersion(Long.parseLong(meta.getResourceVersion()))
            .setCommandId(UUID.randomUUID().toString())
            .setActor(UserInfo.newBuilder().setUsername("test").build())
            .build();
    events.pipeInput(
        resource + "." + group + "/" + (namespace == null ? "" : namespace) + "/" + meta.getName(),
        event,
        clock);
  }

  private static org.assertj.core.groups.Tuple unknown(String type, Instant transition) {
    return tuple(
        type,
        "Unknown",
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
        T0,
        transition);
  }

  private Node readyNode(String name, Instant heartbeat) {
    List<NodeCondition> conditions = new ArrayList<>();
    for (String type : List.of("MemoryPressure", "DiskPressure", "PIDPressure")) {
      conditions.add(condition(type, "False", heartbeat));
    }
    conditions.add(condition("Ready", "True", heartbeat));
    return Node.newBuilder()
        .setApiVersion("v1")
        .setKind("Node")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setUid("uid-" + name)
                .setResourceVersion(Long.toString(version))
                .setCreationTimestamp(T0.minusSeconds(3600))
                .build())
        .setSpec(NodeSpec.newBuilder().build())
        .setStatus(NodeStatus.newBuilder().setConditions(conditions).build())
        .build();
  }

  private Node unknownNode(String name) {
    Node ready = readyNode(name, T0.minusSeconds(120));
    return Node.newBuilder(ready)
        .setStatus(NodeLifecycleReconciler.unknownStatus(ready, T0.minusSeconds(60)))
        .build();
  }

  /** The node with the unreachable taints added at {@code at} and a foreign NoSchedule one. */
  private static Node tainted(Node node, Instant at) {
    return Node.newBuilder(node)
        .setSpec(
            NodeSpec.newBuilder()
                .setTaints(
                    List.of(
                        Taint.newBuilder()
                            .setKey("dedicated")
                            .setValue("gpu")
                            .setEffect("NoSchedule")
                            .build(),
                        Taint.newBuilder()
                            .setKey(UNREACHABLE)
                            .setEffect("NoExecute")
                            .setTimeAdded(at)
                            .build(),
                        Taint.newBuilder().setKey(UNREACHABLE).setEffect("NoSchedule").build()))
                .build())
        .build();
  }

  private static NodeCondition condition(String type, String status, Instant heartbeat) {
    return NodeCondition.newBuilder()
        .setType(type)
        .setStatus(status)
        .setReason("Kubelet")
        .setMessage("kubelet says so")
        .setLastHeartbeatTime(heartbeat)
        .setLastTransitionTime(T0.minusSeconds(3600))
        .build();
  }

  private Lease lease(String node, Instant renewed) {
    return Lease.newBuilder()
        .setApiVersion("coordination.k8s.io/v1")
        .setKind("Lease")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(node)
                .setNamespace("kube-node-lease")
                .setResourceVersion(Long.toString(++version))
                .build())
        .setSpec(
            LeaseSpec.newBuilder()
                .setHolderIdentity(node)
                .setLeaseDurationSeconds(40)
                .setRenewTime(renewed)
                .build())
        .build();
  }

  private Pod pod(String name, Toleration... tolerations) {
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName(name)
                    .setNamespace("default")
                    .setUid("uid-" + name)
                    .setResourceVersion(Long.toString(++version))
                    .build())
            .setSpec(
                PodSpec.newBuilder()
                    .setNodeName("n1")
                    .setTolerations(tolerations.length == 0 ? null : List.of(tolerations))
                    .build())
            .setStatus(PodStatus.newBuilder().setPhase("Running").build())
            .build();
    pods.put(name, pod);
    return pod;
  }

  private static Toleration toleration(
      String key, String operator, String effect, Long tolerationSeconds) {
    return Toleration.newBuilder()
        .setKey(key)
        .setOperator(operator)
        .setEffect(effect)
        .setTolerationSeconds(tolerationSeconds)
        .build();
  }

  private static ResourceCommand single(List<ResourceCommand> sent) {
    assertThat(sent).hasSize(1);
    return sent.get(0);
  }
}
