package io.streamplane.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentSpec;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.Endpoints;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.Namespace;
import io.streamplane.api.NamespaceSpec;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicaSetSpec;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.api.ServiceSpec;
import io.streamplane.controller.deployment.DeploymentReconciler;
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

/** Given these events, the controllers send these commands. */
class ControllersTopologyTest {

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final Map<String, String> LABELS = Map.of("tier", "frontend");

  private final Topics topics =
      new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());
  private TopologyTestDriver driver;
  private TestInputTopic<String, ResourceEvent> events;
  private TestOutputTopic<String, ResourceCommand> commands;
  private long offset;

  @BeforeEach
  void start() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "controllers-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir") + "/controllers-test-" + UUID.randomUUID());
    driver =
        new TopologyTestDriver(
            ControllersTopology.buildTopology(
                topics,
                io.streamplane.controller.nodelifecycle.NodeLifecycleConfig.defaults(),
                topics.controllerRequests(),
                ControllerManager.IN_MEMORY),
            props,
            T0);
    events = eventsAdvancing(Duration.ofSeconds(1));
    commands =
        driver.createOutputTopic(
            topics.controllerRequests().name(),
            Serdes.String().deserializer(),
            topics.controllerRequests().valueSerde().deserializer());
  }

  /** The events topic, its records stamped from {@link #T0} on, {@code advance} apart. */
  private TestInputTopic<String, ResourceEvent> eventsAdvancing(Duration advance) {
    return driver.createInputTopic(
        topics.events().name(),
        Serdes.String().serializer(),
        topics.events().valueSerde().serializer(),
        T0,
        advance);
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void aReplicaSetsPodsGetTheDefaultServiceAccountAndItsTokenVolumeAsAdmissionGivesThem() {
    send(EventType.ADDED, "replicasets", "apps", replicaSet(1));

    Pod pod =
        (Pod)
            KindObjects.of(
                commands.readValuesToList().stream()
                    .filter(c -> c.getVerb() == CommandVerb.CREATE)
                    .findFirst()
                    .orElseThrow());
    String suffix = pod.getMetadata().getName().substring("frontend-".length());
    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("default");
    assertThat(pod.getSpec().getVolumes())
        .singleElement()
        .satisfies(
            volume -> {
              assertThat(volume.getName()).isEqualTo("kube-api-access-" + suffix);
              assertThat(volume.getProjected().getSources()).hasSize(3);
              assertThat(
                      volume
                          .getProjected()
                          .getSources()
                          .get(0)
                          .getServiceAccountToken()
                          .getExpirationSeconds())
                  .isEqualTo(3607L);
            });
    assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts())
        .singleElement()
        .satisfies(
            mount -> {
              assertThat(mount.getMountPath())
                  .isEqualTo("/var/run/secrets/kubernetes.io/serviceaccount");
              assertThat(mount.getReadOnly()).isTrue();
            });
  }

  @Test
  void aNewReplicaSetGetsItsPodsWithControllerReferences() {
    ReplicaSet rs = replicaSet(3);

    send(EventType.ADDED, "replicasets", "apps", rs);

    List<ResourceCommand> sent = commands.readValuesToList();
    List<ResourceCommand> creates =
        sent.stream().filter(c -> c.getVerb() == CommandVerb.CREATE).toList();
    assertThat(creates).hasSize(3).allSatisfy(c -> assertThat(c.getResource()).isEqualTo("pods"));
    assertThat(creates)
        .extracting(ResourceCommand::getName)
        .doesNotHaveDuplicates()
        .allSatisfy(name -> assertThat(name).matches("frontend-[bcdfghjklmnpqrstvwxz2456789]{5}"));
    Pod pod = (Pod) KindObjects.of(creates.get(0));
    assertThat(pod.getMetadata().getLabels()).isEqualTo(LABELS);
    OwnerReference owner = pod.getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getUid()).isEqualTo("rs-uid");
    assertThat(owner.getController()).isTrue();
    assertThat(creates.get(0).getActor().getUsername())
        .isEqualTo("system:serviceaccount:kube-system:replicaset-controller");
  }

  @Test
  void aReplicaSetsStatusCountsThePodsItIsCreatingUntilTheyAreSeen() {
    send(EventType.ADDED, "replicasets", "apps", replicaSet(2));
    ReplicaSet withStatus = statusWritten(commands.readValuesToList());

    // Sent with the creates: the two pods are counted before any of them is seen, so a Deployment
    // controller reading this status knows they may be running.
    assertThat(withStatus.getStatus().getReplicas()).isEqualTo(2);
    assertThat(withStatus.getStatus().getObservedGeneration()).isEqualTo(1L);

    // The ReplicaSet is scaled down while the creates are pending: its new status still counts
    // them, since its controller cannot delete what it has not seen yet.
    ReplicaSet scaledDown = replicaSet(1);
    scaledDown.getMetadata().setGeneration(2L);
    scaledDown.setStatus(withStatus.getStatus());
    send(EventType.MODIFIED, "replicasets", "apps", scaledDown);
    ReplicaSet later = statusWritten(commands.readValuesToList());
    assertThat(later.getStatus().getReplicas()).isEqualTo(2);
    assertThat(later.getStatus().getObservedGeneration()).isEqualTo(2L);
  }

  private static ReplicaSet statusWritten(List<ResourceCommand> sent) {
    return sent.stream()
        .filter(c -> c.getVerb() == CommandVerb.UPDATE_STATUS)
        .map(c -> (ReplicaSet) KindObjects.of(c))
        .reduce((first, second) -> second)
        .orElseThrow(() -> new AssertionError("no status written among " + sent));
  }

  @Test
  void aCreateSentIsNotSentAgainUntilItExpiresThenUnderTheSameNames() {
    send(EventType.ADDED, "replicasets", "apps", replicaSet(2));
    List<String> first = createdNames();
    send(EventType.MODIFIED, "replicasets", "apps", replicaSet(2));

    assertThat(createdNames()).as("pending creates are not sent again").isEmpty();

    driver.advanceWallClockTime(Expectations.TIMEOUT.plusSeconds(1));

    assertThat(createdNames()).isEqualTo(first);
  }

  @Test
  void aDeploymentCarriesTheRevisionOfItsNewReplicaSetWrittenWithItsStatus() {
    LoopbackStore store = new LoopbackStore();
    store.apply(List.of(command(CommandVerb.CREATE, "namespaces", "", namespace(false))));
    store.apply(List.of(command(CommandVerb.CREATE, "deployments", "apps", deployment())));
    store.converge();

    Deployment deployment = store.objects(Deployment.class).get(0);
    ReplicaSet rs = store.objects(ReplicaSet.class).get(0);
    assertThat(rs.getMetadata().getAnnotations()).containsEntry(DeploymentReconciler.REVISION, "1");
    assertThat(deployment.getMetadata().getAnnotations())
        .containsEntry(DeploymentReconciler.REVISION, "1");
    assertThat(deployment.getStatus()).isNotNull();
  }

  @Test
  void aConvergedClusterSendsNoCommandOverAMinuteOfPunctuations() {
    LoopbackStore store = new LoopbackStore();
    store.apply(List.of(command(CommandVerb.CREATE, "namespaces", "", namespace(false))));
    store.apply(List.of(command(CommandVerb.CREATE, "deployments", "apps", deployment())));
    store.converge();
    assertThat(store.count(Pod.class)).isEqualTo(1);

    for (int second = 0; second < 60; second++) {
      driver.advanceWallClockTime(Duration.ofSeconds(1));
    }

    assertThat(commands.readValuesToList()).isEmpty();
  }

  @Test
  void aServiceSelectingReadyPodsGetsItsEndpointsAndOneEndpointSliceThenNothingMore() {
    LoopbackStore store = new LoopbackStore();
    Service service =
        Service.newBuilder()
            .setApiVersion("v1")
            .setKind("Service")
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("frontend")
                    .setNamespace("default")
                    .setUid("svc-uid")
                    .setResourceVersion("1")
                    .build())
            .setSpec(
                ServiceSpec.newBuilder()
                    .setSelector(LABELS)
                    .setClusterIP("127.96.0.10")
                    .setIpFamilies(List.of("IPv4"))
                    .setPorts(
                        List.of(
                            ServicePort.newBuilder()
                                .setPort(80)
                                .setProtocol("TCP")
                                .setTargetPort(8080)
                                .build()))
                    .build())
            .build();
    store.apply(List.of(command(CommandVerb.CREATE, "services", "", service)));
    store.apply(List.of(command(CommandVerb.CREATE, "replicasets", "apps", replicaSet(3))));
    store.converge();

    EndpointSlice slice = store.objects(EndpointSlice.class).get(0);
    assertThat(store.count(EndpointSlice.class)).isEqualTo(1);
    assertThat(slice.getMetadata().getName()).matches("frontend-[a-z0-9]{5}");
    assertThat(slice.getEndpoints())
        .hasSize(3)
        .allSatisfy(e -> assertThat(e.getConditions().getReady()).isTrue());
    assertThat(slice.getPorts().get(0).getPort()).isEqualTo(8080);
    assertThat(store.count(Endpoints.class)).isEqualTo(1);
    for (int second = 0; second < 60; second++) {
      driver.advanceWallClockTime(Duration.ofSeconds(1));
    }
    assertThat(commands.readValuesToList()).isEmpty();
  }

  @Test
  void aPodEventCostsTheWorkOfItsReplicaSetWhateverTheSizeOfItsNamespace() {
    LoopbackStore store = new LoopbackStore();
    ReplicaSet big = replicaSet(300);
    big.getMetadata().setName("big");
    big.getMetadata().setUid("big-uid");
    ReplicaSet small = replicaSet(2);
    small.getSpec().getSelector().setMatchLabels(Map.of("tier", "small"));
    small.getSpec().getTemplate().getMetadata().setLabels(Map.of("tier", "small"));
    store.apply(
        List.of(
            command(CommandVerb.CREATE, "replicasets", "apps", big),
            command(CommandVerb.CREATE, "replicasets", "apps", small)));
    store.converge();
    assertThat(store.count(Pod.class)).isEqualTo(302);
    Pod smallPod =
        store.objects(Pod.class).stream()
            .filter(p -> p.getMetadata().getName().startsWith("frontend-"))
            .findFirst()
            .orElseThrow();
    double before = objectsRead();

    Pod relabelled = Pod.newBuilder(smallPod).build();
    relabelled.getMetadata().setAnnotations(Map.of("touched", "yes"));
    store.apply(List.of(command(CommandVerb.UPDATE, "pods", "", relabelled)));

    assertThat(objectsRead() - before)
        .as("the small ReplicaSet and its two pods, not the namespace's 302 pods")
        .isEqualTo(3.0);
  }

  @Test
  void aJobRunsItsPodsAndAPodEventCostsTheWorkOfItsJobWhateverTheSizeOfItsNamespace() {
    LoopbackStore store = new LoopbackStore();
    ReplicaSet big = replicaSet(300);
    big.getMetadata().setName("big");
    store.apply(
        List.of(
            command(CommandVerb.CREATE, "replicasets", "apps", big),
            command(CommandVerb.CREATE, "jobs", "batch", job(2))));
    store.converge();
    List<Pod> jobPods =
        store.objects(Pod.class).stream()
            .filter(p -> p.getMetadata().getName().startsWith("pi-"))
            .toList();
    assertThat(jobPods).hasSize(2);
    assertThat(jobPods.get(0).getMetadata().getFinalizers())
        .containsExactly("batch.kubernetes.io/job-tracking");
    io.streamplane.api.Job job = store.objects(io.streamplane.api.Job.class).get(0);
    assertThat(job.getStatus().getActive()).isEqualTo(2);
    assertThat(job.getStatus().getReady()).isEqualTo(2);
    double before = objectsRead();

    Pod touched = Pod.newBuilder(jobPods.get(0)).build();
    touched.getMetadata().setAnnotations(Map.of("touched", "yes"));
    store.apply(List.of(command(CommandVerb.UPDATE, "pods", "", touched)));

    assertThat(objectsRead() - before)
        .as(
            "the Job and its two pods, read by the job controller, and the two pods read by the"
                + " garbage collector at the Job's owner key, not the namespace's 302 pods")
        .isEqualTo(5.0);
    for (int second = 0; second < 60; second++) {
      driver.advanceWallClockTime(Duration.ofSeconds(1));
    }
    assertThat(commands.readValuesToList()).as("a converged Job writes nothing").isEmpty();
  }

  @Test
  void aStatefulSetComesUpInOrderAndAPodEventCostsTheWorkOfItsSetWhateverTheSizeOfItsNamespace() {
    LoopbackStore store = new LoopbackStore();
    ReplicaSet big = replicaSet(300);
    big.getMetadata().setName("big");
    store.apply(
        List.of(
            command(CommandVerb.CREATE, "replicasets", "apps", big),
            command(CommandVerb.CREATE, "statefulsets", "apps", statefulSet(3))));
    store.converge();
    List<Pod> setPods =
        store.objects(Pod.class).stream()
            .filter(p -> p.getMetadata().getName().startsWith("web-"))
            .toList();
    assertThat(setPods)
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("web-0", "web-1", "web-2");
    assertThat(store.creates).containsSubsequence("pods/web-0", "pods/web-1", "pods/web-2");
    io.streamplane.api.StatefulSet set = store.objects(io.streamplane.api.StatefulSet.class).get(0);
    assertThat(set.getStatus().getReadyReplicas()).isEqualTo(3);
    assertThat(set.getStatus().getCurrentRevision()).isEqualTo(set.getStatus().getUpdateRevision());
    double before = objectsRead();

    Pod touched = Pod.newBuilder(setPods.get(1)).build();
    touched.getMetadata().setAnnotations(Map.of("touched", "yes"));
    store.apply(List.of(command(CommandVerb.UPDATE, "pods", "", touched)));

    assertThat(objectsRead() - before)
        .as(
            "the set, its three pods and its revision, read by the StatefulSet controller, and"
                + " the pods and revision read by the garbage collector at the set's owner key,"
                + " not the namespace's 303 pods")
        .isEqualTo(9.0);
    for (int second = 0; second < 60; second++) {
      driver.advanceWallClockTime(Duration.ofSeconds(1));
    }
    assertThat(commands.readValuesToList()).as("a converged StatefulSet writes nothing").isEmpty();
  }

  @Test
  void aStatefulSetCreatedAgainAdoptsThePodsAndRevisionItsPredecessorOrphanedAndCreatesNothing() {
    LoopbackStore store = new LoopbackStore();
    store.apply(List.of(command(CommandVerb.CREATE, "statefulsets", "apps", statefulSet(3))));
    store.converge();
    io.streamplane.api.StatefulSet old = store.objects(io.streamplane.api.StatefulSet.class).get(0);
    // kubectl delete sts web --cascade=orphan: the store marks it with the orphan finalizer, the
    // garbage collector takes its references off the pods and revision, then the finalizer.
    io.streamplane.api.StatefulSet orphaning = KubeObjects.copy(old);
    orphaning.getMetadata().setDeletionTimestamp(T0);
    orphaning
        .getMetadata()
        .setFinalizers(List.of(io.streamplane.controller.gc.GarbageCollector.ORPHAN));
    store.apply(List.of(command(CommandVerb.UPDATE, "statefulsets", "apps", orphaning)));
    store.converge();
    io.streamplane.api.StatefulSet released =
        store.objects(io.streamplane.api.StatefulSet.class).get(0);
    assertThat(released.getMetadata().getFinalizers()).isNullOrEmpty();
    store.apply(List.of(command(CommandVerb.DELETE, "statefulsets", "apps", released)));
    store.converge();
    assertThat(store.deletes).isEmpty();
    assertThat(store.objects(Pod.class)).hasSize(3);
    int created = store.creates.size();

    store.apply(List.of(command(CommandVerb.CREATE, "statefulsets", "apps", statefulSet(3))));
    store.converge();

    String uid = store.objects(io.streamplane.api.StatefulSet.class).get(0).getMetadata().getUid();
    assertThat(store.objects(Pod.class))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("web-0", "web-1", "web-2");
    assertThat(store.objects(Pod.class))
        .allSatisfy(p -> assertThat(Owners.controlledBy(p.getMetadata(), uid)).isTrue());
    assertThat(store.objects(io.streamplane.api.ControllerRevision.class))
        .singleElement()
        .satisfies(r -> assertThat(Owners.controlledBy(r.getMetadata(), uid)).isTrue());
    // Events aside: a create the new set sent before the adoptions landed records its Event.
    assertThat(store.creates.subList(created, store.creates.size()))
        .as("nothing made again")
        .filteredOn(name -> !name.startsWith("events/"))
        .containsExactly("statefulsets/web");
    io.streamplane.api.StatefulSet set = store.objects(io.streamplane.api.StatefulSet.class).get(0);
    assertThat(set.getStatus().getReadyReplicas()).isEqualTo(3);
    for (int second = 0; second < 60; second++) {
      driver.advanceWallClockTime(Duration.ofSeconds(1));
    }
    assertThat(commands.readValuesToList()).as("the set has converged").isEmpty();
  }

  @Test
  void aReplicationControllerAdoptsAndRunsItsPodsAsAReplicaSetDoesAndIsScaled() {
    LoopbackStore store = new LoopbackStore();
    store.apply(
        List.of(
            command(CommandVerb.CREATE, "replicationcontrollers", "", replicationController(2))));
    store.converge();

    List<Pod> pods = store.objects(Pod.class);
    assertThat(pods).hasSize(2);
    for (Pod pod : pods) {
      OwnerReference ref = pod.getMetadata().getOwnerReferences().get(0);
      assertThat(ref.getApiVersion()).isEqualTo("v1");
      assertThat(ref.getKind()).isEqualTo("ReplicationController");
      assertThat(ref.getController()).isTrue();
      assertThat(pod.getMetadata().getName()).startsWith("nginx-");
    }
    io.streamplane.api.ReplicationController rc =
        store.objects(io.streamplane.api.ReplicationController.class).get(0);
    assertThat(rc.getStatus().getReplicas()).isEqualTo(2);
    assertThat(rc.getStatus().getFullyLabeledReplicas()).isEqualTo(2);
    assertThat(rc.getStatus().getReadyReplicas()).isEqualTo(2);
    assertThat(rc.getStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(rc.getStatus().getObservedGeneration()).isEqualTo(1L);
    for (int second = 0; second < 60; second++) {
      driver.advanceWallClockTime(Duration.ofSeconds(1));
    }
    assertThat(commands.readValuesToList()).as("a converged RC writes nothing").isEmpty();

    Pod orphan = orphan("by-hand", Map.of("app", "nginx"));
    orphan.getMetadata().setUid(null);
    store.apply(List.of(command(CommandVerb.CREATE, "pods", "", orphan)));
    List<ResourceCommand> adoption = commands.readValuesToList();
    assertThat(adoption)
        .anySatisfy(
            c -> {
              assertThat(c.getName()).isEqualTo("by-hand");
              assertThat(c.getVerb()).isEqualTo(CommandVerb.UPDATE);
              OwnerReference ref =
                  ((Pod) KindObjects.of(c)).getMetadata().getOwnerReferences().get(0);
              assertThat(ref.getKind()).isEqualTo("ReplicationController");
            });
    store.apply(adoption);
    store.converge();
    assertThat(store.count(Pod.class)).as("the adopted pod counts, one is deleted").isEqualTo(2);

    io.streamplane.api.ReplicationController scaled =
        io.streamplane.api.ReplicationController.newBuilder(
                store.objects(io.streamplane.api.ReplicationController.class).get(0))
            .build();
    scaled.getSpec().setReplicas(1);
    scaled.getMetadata().setGeneration(2L);
    store.apply(List.of(command(CommandVerb.UPDATE, "replicationcontrollers", "", scaled)));
    store.converge();
    assertThat(store.count(Pod.class)).isEqualTo(1);
  }

  @Test
  void podsOfADeletedOwnerAreDeletedInTheBackground() {
    ReplicaSet rs = replicaSet(1);
    send(EventType.ADDED, "replicasets", "apps", rs);
    Pod pod =
        (Pod)
            KindObjects.of(
                commands.readValuesToList().stream()
                    .filter(c -> c.getVerb() == CommandVerb.CREATE)
                    .findFirst()
                    .orElseThrow());
    pod.getMetadata().setUid("pod-uid");
    send(EventType.ADDED, "pods", "", pod);
    commands.readValuesToList();

    send(EventType.DELETED, "replicasets", "apps", rs);

    assertThat(commands.readValuesToList())
        .filteredOn(c -> c.getVerb() == CommandVerb.DELETE)
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getName()).isEqualTo(pod.getMetadata().getName());
              assertThat(c.getPreconditions().getUid()).isEqualTo("pod-uid");
              assertThat(c.getActor().getUsername()).endsWith("generic-garbage-collector");
            });
  }

  @Test
  void aPodStuckTerminatingOnADeadNodeIsReplaced() {
    send(EventType.ADDED, "replicasets", "apps", replicaSet(1));
    Pod pod =
        (Pod)
            KindObjects.of(
                commands.readValuesToList().stream()
                    .filter(c -> c.getVerb() == CommandVerb.CREATE)
                    .findFirst()
                    .orElseThrow());
    pod.getMetadata().setUid("pod-uid");
    pod.getSpec().setNodeName("dead-node");
    send(EventType.ADDED, "pods", "", pod);
    assertThat(commands.readValuesToList())
        .filteredOn(c -> c.getVerb() == CommandVerb.CREATE)
        .isEmpty();

    // Evicted from an unreachable node: the store marks it, and no kubelet ever finishes it.
    Pod terminating = Pod.newBuilder(pod).build();
    terminating.getMetadata().setDeletionTimestamp(T0.plusSeconds(30));
    terminating.getMetadata().setDeletionGracePeriodSeconds(30L);
    send(EventType.MODIFIED, "pods", "", terminating);

    assertThat(commands.readValuesToList())
        .filteredOn(c -> c.getVerb() == CommandVerb.CREATE)
        .extracting(ResourceCommand::getName)
        .singleElement()
        .isNotEqualTo(pod.getMetadata().getName());
  }

  @Test
  void aDependentArrivingAfterItsOwnersDeletionIsStillCollected() {
    ReplicaSet rs = replicaSet(0);
    send(EventType.ADDED, "replicasets", "apps", rs);
    send(EventType.DELETED, "replicasets", "apps", rs);
    commands.readValuesToList();
    Pod late =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("frontend-late")
                    .setNamespace("default")
                    .setUid("late-uid")
                    .setOwnerReferences(
                        List.of(
                            OwnerReference.newBuilder()
                                .setApiVersion("apps/v1")
                                .setKind("ReplicaSet")
                                .setName("frontend")
                                .setUid("rs-uid")
                                .setController(true)
                                .build()))
                    .build())
            .setSpec(rs.getSpec().getTemplate().getSpec())
            .build();

    send(EventType.ADDED, "pods", "", late);

    assertThat(commands.readValuesToList())
        .filteredOn(c -> c.getVerb() == CommandVerb.DELETE)
        .extracting(ResourceCommand::getName)
        .containsExactly("frontend-late");
  }

  @Test
  void aPodDeletedInTheForegroundWithNoDependentsLosesItsFinalizer() {
    send(EventType.ADDED, "replicasets", "apps", replicaSet(0));
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("frontend-abcde")
                    .setNamespace("default")
                    .setUid("pod-uid")
                    .setDeletionTimestamp(T0)
                    .setFinalizers(List.of("foregroundDeletion"))
                    .build())
            .setSpec(replicaSet(0).getSpec().getTemplate().getSpec())
            .build();
    commands.readValuesToList();

    send(EventType.MODIFIED, "pods", "", pod);

    assertThat(commands.readValuesToList())
        .filteredOn(c -> c.getResource().equals("pods") && c.getVerb() == CommandVerb.UPDATE)
        .singleElement()
        .satisfies(
            c -> assertThat(((Pod) KindObjects.of(c)).getMetadata().getFinalizers()).isEmpty());
  }

  @Test
  void anOrphanPodIsAdoptedByTheFirstMatchingReplicaSetInNameOrder() {
    ReplicaSet second = replicaSet(0);
    ReplicaSet first = replicaSet(0);
    first.getMetadata().setName("aaa");
    first.getMetadata().setUid("aaa-uid");
    send(EventType.ADDED, "replicasets", "apps", second);
    send(EventType.ADDED, "replicasets", "apps", first);
    commands.readValuesToList();

    send(EventType.ADDED, "pods", "", orphan("loose", LABELS));

    assertThat(adoptions())
        .containsExactly(org.assertj.core.groups.Tuple.tuple("loose", "aaa-uid"));
  }

  @Test
  void aNewReplicaSetAdoptsTheMatchingOrphansOnce() {
    send(EventType.ADDED, "pods", "", orphan("a", LABELS));
    send(EventType.ADDED, "pods", "", orphan("b", LABELS));
    send(EventType.ADDED, "pods", "", orphan("other", Map.of("tier", "backend")));
    assertThat(adoptions()).isEmpty();

    send(EventType.ADDED, "replicasets", "apps", replicaSet(0));
    assertThat(adoptions())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("a", "rs-uid"),
            org.assertj.core.groups.Tuple.tuple("b", "rs-uid"));

    send(EventType.ADDED, "pods", "", orphan("c", LABELS));
    assertThat(adoptions())
        .as("a and b are pending")
        .containsExactly(org.assertj.core.groups.Tuple.tuple("c", "rs-uid"));
  }

  @Test
  void aPodCreatedByHandThatNoReplicaSetMatchesIsNeverReconciled() {
    send(EventType.ADDED, "namespaces", "", namespace(false));
    send(EventType.ADDED, "replicasets", "apps", replicaSet(0));
    send(EventType.ADDED, "pods", "", orphan("by-hand", Map.of("tier", "backend")));
    commands.readValuesToList();
    double before = objectsRead();

    for (int i = 0; i < 10; i++) {
      send(EventType.MODIFIED, "pods", "", orphan("by-hand", Map.of("tier", "backend")));
    }

    assertThat(objectsRead() - before).as("no view built for its namespace").isZero();
    assertThat(adoptions()).isEmpty();
  }

  @Test
  void aPodThatChangesWhileItsAdoptionIsInFlightIsAdoptedAgainAtItsNewVersion() {
    send(EventType.ADDED, "replicasets", "apps", replicaSet(0));
    send(EventType.ADDED, "pods", "", orphan("a", LABELS));
    List<ResourceCommand> first = adoptionCommands();
    assertThat(first).hasSize(1);

    send(EventType.MODIFIED, "pods", "", orphan("a", LABELS));

    List<ResourceCommand> second = adoptionCommands();
    assertThat(second).as("the first one would be a Conflict").hasSize(1);
    assertThat(((Pod) KindObjects.of(second.get(0))).getMetadata().getResourceVersion())
        .isNotEqualTo(((Pod) KindObjects.of(first.get(0))).getMetadata().getResourceVersion());
  }

  @Test
  void anAdoptionNeverSeenIsTriedAgainWhenThePodNextChangesNotBefore() {
    // Events stamped a minute apart: the pod's next change comes after the adoption expired.
    events = eventsAdvancing(Expectations.TIMEOUT.plusSeconds(1));
    send(EventType.ADDED, "replicasets", "apps", replicaSet(0));
    send(EventType.ADDED, "pods", "", orphan("a", LABELS));
    assertThat(adoptions()).hasSize(1);

    driver.advanceWallClockTime(Expectations.TIMEOUT.multipliedBy(2).plusSeconds(10));
    assertThat(adoptions()).isEmpty();

    send(EventType.MODIFIED, "pods", "", orphan("a", LABELS));
    assertThat(adoptions()).containsExactly(org.assertj.core.groups.Tuple.tuple("a", "rs-uid"));
  }

  /** The pods updated with a controller reference since the last call: (pod, owner uid). */
  private List<org.assertj.core.groups.Tuple> adoptions() {
    return adoptionCommands().stream()
        .map(c -> ((Pod) KindObjects.of(c)).getMetadata())
        .map(
            meta ->
                org.assertj.core.groups.Tuple.tuple(
                    meta.getName(), Owners.controllerOf(meta).getUid()))
        .toList();
  }

  private List<ResourceCommand> adoptionCommands() {
    return commands.readValuesToList().stream()
        .filter(c -> c.getResource().equals("pods") && c.getVerb() == CommandVerb.UPDATE)
        .toList();
  }

  private static Pod orphan(String name, Map<String, String> labels) {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid("uid-" + name)
                .setLabels(labels)
                .build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(
                    List.of(Container.newBuilder().setName("c").setImage("nginx").build()))
                .build())
        .build();
  }

  @Test
  void aTerminatingNamespaceIsEmptiedThenFinalized() {
    Namespace namespace = namespace(false);
    send(EventType.ADDED, "namespaces", "", namespace);
    send(EventType.ADDED, "replicasets", "apps", replicaSet(0));
    commands.readValuesToList();

    send(EventType.MODIFIED, "namespaces", "", namespace(true));
    assertThat(commands.readValuesToList())
        .filteredOn(c -> c.getVerb() == CommandVerb.DELETE)
        .extracting(ResourceCommand::getName)
        .containsExactly("frontend");

    send(EventType.DELETED, "replicasets", "apps", replicaSet(0));
    ResourceCommand finalize =
        commands.readValuesToList().stream()
            .filter(c -> c.getResource().equals("namespaces"))
            .findFirst()
            .orElseThrow();
    assertThat(finalize.getVerb()).isEqualTo(CommandVerb.UPDATE);
    assertThat(((Namespace) KindObjects.of(finalize)).getSpec().getFinalizers()).isEmpty();
  }

  @Test
  void aNamespaceOfManyObjectsIsEmptiedAFewHundredDeletesAtATime() {
    // Events a millisecond apart, so that no pending delete expires in the course of the test.
    events = eventsAdvancing(Duration.ofMillis(1));
    send(EventType.ADDED, "namespaces", "", namespace(false));
    int objects = Expectations.MAX_PENDING * 2 + 100;
    for (int i = 0; i < objects; i++) {
      send(EventType.ADDED, "configmaps", "", configMap("cm-" + i));
    }
    commands.readValuesToList();

    send(EventType.MODIFIED, "namespaces", "", namespace(true));
    List<ResourceCommand> first = commands.readValuesToList();
    assertThat(first).hasSize(Expectations.MAX_PENDING);

    for (ResourceCommand delete : first) {
      send(EventType.DELETED, "configmaps", "", configMap(delete.getName()));
    }
    List<ResourceCommand> second = commands.readValuesToList();
    assertThat(second).hasSize(Expectations.MAX_PENDING);
    assertThat(second)
        .extracting(ResourceCommand::getName)
        .doesNotContainAnyElementsOf(first.stream().map(ResourceCommand::getName).toList());
  }

  @Test
  void aTerminatingNamespacesEventsAreDeletedOnceUntilTheirDeletionIsSeen() {
    events = eventsAdvancing(Duration.ofMillis(1));
    send(EventType.ADDED, "namespaces", "", namespace(false));
    send(EventType.ADDED, "events", "", coreEvent("e-1"));
    send(EventType.ADDED, "configmaps", "", configMap("cm-1"));
    send(EventType.ADDED, "configmaps", "", configMap("cm-2"));
    commands.readValuesToList();

    send(EventType.MODIFIED, "namespaces", "", namespace(true));
    assertThat(commands.readValuesToList())
        .extracting(ResourceCommand::getName)
        .containsExactlyInAnyOrder("e-1", "cm-1", "cm-2");

    // Each deletion seen queues the namespace again: what is still pending is not sent again.
    send(EventType.DELETED, "configmaps", "", configMap("cm-1"));
    send(EventType.DELETED, "configmaps", "", configMap("cm-2"));
    assertThat(commands.readValuesToList()).as("nothing sent twice").isEmpty();

    send(EventType.DELETED, "events", "", coreEvent("e-1"));
    assertThat(commands.readValuesToList())
        .extracting(ResourceCommand::getResource)
        .containsExactly("namespaces");
  }

  @Test
  void aStalledRolloutIsMarkedProgressDeadlineExceededByTheWallClock() {
    Deployment deployment = deployment();
    send(EventType.ADDED, "deployments", "apps", deployment);
    List<ResourceCommand> first = commands.readValuesToList();
    ReplicaSet rs =
        (ReplicaSet)
            KindObjects.of(
                first.stream()
                    .filter(c -> c.getVerb() == CommandVerb.CREATE)
                    .findFirst()
                    .orElseThrow());
    rs.getMetadata().setUid("new-rs-uid");
    rs.getMetadata().setResourceVersion("7");
    Deployment withStatus =
        (Deployment)
            KindObjects.of(
                first.stream()
                    .filter(c -> c.getVerb() == CommandVerb.UPDATE_STATUS)
                    .findFirst()
                    .orElseThrow());
    send(EventType.ADDED, "replicasets", "apps", rs);
    send(EventType.MODIFIED, "deployments", "apps", withStatus);
    commands.readValuesToList();

    driver.advanceWallClockTime(Duration.ofSeconds(30));

    assertThat(commands.readValuesToList())
        .filteredOn(
            c -> c.getVerb() == CommandVerb.UPDATE_STATUS && c.getResource().equals("deployments"))
        .singleElement()
        .satisfies(
            c ->
                assertThat(((Deployment) KindObjects.of(c)).getStatus().getConditions())
                    .anySatisfy(
                        condition -> {
                          assertThat(condition.getType()).isEqualTo("Progressing");
                          assertThat(condition.getReason()).isEqualTo("ProgressDeadlineExceeded");
                        }));
  }

  @Test
  void aDeploymentIsNotDecidedAgainUntilItsLastReplicaSetWritesAreSeen() {
    send(EventType.ADDED, "deployments", "apps", deployment());
    assertThat(commands.readValuesToList())
        .filteredOn(c -> c.getResource().equals("replicasets"))
        .hasSize(1);

    Deployment changed = deployment();
    changed.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("nginx:2");
    send(EventType.MODIFIED, "deployments", "apps", changed);

    assertThat(commands.readValuesToList())
        .as("no decision while the created ReplicaSet is not in view")
        .filteredOn(c -> c.getResource().equals("replicasets"))
        .isEmpty();
  }

  private static Deployment deployment() {
    return Deployment.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("Deployment")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("web")
                .setNamespace("default")
                .setUid("deploy-uid")
                .setResourceVersion("3")
                .setGeneration(1L)
                .build())
        .setSpec(
            DeploymentSpec.newBuilder()
                .setReplicas(1)
                .setProgressDeadlineSeconds(10)
                .setSelector(LabelSelector.newBuilder().setMatchLabels(LABELS).build())
                .setTemplate(replicaSet(1).getSpec().getTemplate())
                .build())
        .build();
  }

  private List<String> createdNames() {
    return commands.readValuesToList().stream()
        .filter(c -> c.getVerb() == CommandVerb.CREATE)
        .map(ResourceCommand::getName)
        .toList();
  }

  private double objectsRead() {
    return driver.metrics().entrySet().stream()
        .filter(e -> e.getKey().name().equals(ControllerStores.OBJECTS_READ))
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
        .sum();
  }

  private static ResourceCommand command(
      CommandVerb verb, String resource, String group, SpecificRecord object) {
    return ResourceCommand.newBuilder(
            Intent.create(resource, group, object)
                .toCommand("test", UserInfo.newBuilder().setUsername("test").build()))
        .setVerb(verb)
        .build();
  }

  /**
   * The store's part, enough for the controllers to converge: each command becomes the event the
   * store would write (uids and resourceVersions assigned, creates refused when the name is taken,
   * updates when the resourceVersion is stale), and pods start at once, Ready.
   */
  private final class LoopbackStore {
    private final Map<String, SpecificRecord> objects = new java.util.TreeMap<>();
    private final List<String> creates = new java.util.ArrayList<>();
    private final List<String> deletes = new java.util.ArrayList<>();
    private int uids;

    void converge() {
      for (int round = 0; round < 50; round++) {
        List<ResourceCommand> sent = commands.readValuesToList();
        if (sent.isEmpty()) {
          return;
        }
        apply(sent);
      }
      throw new AssertionError("the controllers did not converge in 50 rounds");
    }

    void apply(List<ResourceCommand> sent) {
      for (ResourceCommand command : sent) {
        String key = command.getResource() + "/" + command.getName();
        SpecificRecord current = objects.get(key);
        SpecificRecord object = (SpecificRecord) KindObjects.of(command);
        switch (command.getVerb()) {
          case CREATE -> {
            if (current == null) {
              ObjectMeta meta = KubeObjects.meta(object);
              meta.setUid("uid-" + ++uids);
              meta.setCreationTimestamp(T0);
              if (object instanceof Pod pod) {
                pod.getSpec().setNodeName("node-1");
                pod.setStatus(runningAndReady());
                pod.getStatus().setPodIP("127.1.0." + uids);
              }
              creates.add(command.getResource() + "/" + command.getName());
              store(EventType.ADDED, command, object);
            }
          }
          case UPDATE, UPDATE_STATUS -> {
            if (current != null
                && KubeObjects.meta(current)
                    .getResourceVersion()
                    .equals(KubeObjects.meta(object).getResourceVersion())) {
              List<OwnerReference> before = KubeObjects.meta(current).getOwnerReferences();
              objects.put(command.getResource() + "/" + command.getName(), object);
              send(
                  EventType.MODIFIED,
                  command.getResource(),
                  command.getGroup(),
                  object,
                  java.util.Objects.equals(before, KubeObjects.meta(object).getOwnerReferences())
                      ? null
                      : (before == null ? List.of() : before));
            }
          }
          case DELETE -> {
            if (current != null) {
              if (!command.getActor().getUsername().equals("test")) {
                deletes.add(key + " by " + command.getActor().getUsername());
              }
              objects.remove(key);
              send(EventType.DELETED, command.getResource(), command.getGroup(), current);
            }
          }
          default -> throw new AssertionError("unexpected " + command.getVerb());
        }
      }
    }

    private void store(EventType type, ResourceCommand command, SpecificRecord object) {
      objects.put(command.getResource() + "/" + command.getName(), object);
      send(type, command.getResource(), command.getGroup(), object);
    }

    int count(Class<? extends SpecificRecord> type) {
      return objects(type).size();
    }

    <T extends SpecificRecord> List<T> objects(Class<T> type) {
      return objects.values().stream().filter(type::isInstance).map(type::cast).toList();
    }
  }

  private static io.streamplane.api.PodStatus runningAndReady() {
    return io.streamplane.api.PodStatus.newBuilder()
        .setPhase("Running")
        .setConditions(
            List.of(
                io.streamplane.api.PodCondition.newBuilder()
                    .setType("Ready")
                    .setStatus("True")
                    .setLastTransitionTime(T0)
                    .build()))
        .build();
  }

  /**
   * Sends the event the store would write for {@code object} (its resourceVersion becomes the
   * event's), then lets the wall clock run the controllers' work queues, past the spacing of two
   * reconciles of a key.
   */
  private void send(EventType type, String resource, String group, SpecificRecord object) {
    send(type, resource, group, object, null);
  }

  /** As {@link #send}, with the owner references the object had before this change, if changed. */
  private void send(
      EventType type,
      String resource,
      String group,
      SpecificRecord object,
      List<OwnerReference> ownersBefore) {
    ObjectMeta meta = (ObjectMeta) object.get(object.getSchema().getField("metadata").pos());
    if (type != EventType.DELETED) {
      meta.setResourceVersion(Long.toString(offset + 1));
    }
    ResourceEvent event =
        ResourceEvent.newBuilder()
            .setType(type)
            .setResource(resource)
            .setGroup(group)
            .setNamespace(object instanceof Namespace ? null : "default")
            .setName(meta.getName())
            .setEncodedObject(KindObjects.encode(object))
            .setResourceVersion(++offset)
            .setCommandId("c" + offset)
            .setActor(UserInfo.newBuilder().setUsername("test").build())
            .setOwnersBefore(ownersBefore)
            .build();
    events.pipeInput(resource + "." + group + "/default/" + meta.getName(), event);
    driver.advanceWallClockTime(Duration.ofMillis(WorkQueue.SPACING));
  }

  private static io.streamplane.api.ConfigMap configMap(String name) {
    return io.streamplane.api.ConfigMap.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid("uid-" + name)
                .setResourceVersion("1")
                .build())
        .build();
  }

  private static io.streamplane.api.Event coreEvent(String name) {
    return io.streamplane.api.Event.newBuilder()
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(name)
                .setNamespace("default")
                .setUid("uid-" + name)
                .setResourceVersion("1")
                .build())
        .setReason("Created")
        .build();
  }

  private static Namespace namespace(boolean terminating) {
    return Namespace.newBuilder()
        .setApiVersion("v1")
        .setKind("Namespace")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("default")
                .setUid("ns-uid")
                .setResourceVersion("1")
                .setDeletionTimestamp(terminating ? T0 : null)
                .build())
        .setSpec(NamespaceSpec.newBuilder().setFinalizers(List.of("kubernetes")).build())
        .build();
  }

  private static io.streamplane.api.Job job(int parallelism) {
    Map<String, String> labels = Map.of("batch.kubernetes.io/controller-uid", "job-uid");
    return io.streamplane.api.Job.newBuilder()
        .setApiVersion("batch/v1")
        .setKind("Job")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("pi")
                .setNamespace("default")
                .setResourceVersion("1")
                .setGeneration(1L)
                .build())
        .setSpec(
            io.streamplane.api.JobSpec.newBuilder()
                .setCompletions(parallelism)
                .setParallelism(parallelism)
                .setBackoffLimit(6)
                .setCompletionMode("NonIndexed")
                .setSuspend(false)
                .setSelector(LabelSelector.newBuilder().setMatchLabels(labels).build())
                .setTemplate(
                    PodTemplateSpec.newBuilder()
                        .setMetadata(ObjectMeta.newBuilder().setLabels(labels).build())
                        .setSpec(
                            PodSpec.newBuilder()
                                .setRestartPolicy("Never")
                                .setContainers(
                                    List.of(
                                        Container.newBuilder()
                                            .setName("pi")
                                            .setImage("busybox")
                                            .build()))
                                .build())
                        .build())
                .build())
        .build();
  }

  private static io.streamplane.api.StatefulSet statefulSet(int replicas) {
    Map<String, String> labels = Map.of("app", "web");
    return io.streamplane.api.StatefulSet.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("StatefulSet")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("web")
                .setNamespace("default")
                .setResourceVersion("1")
                .setGeneration(1L)
                .build())
        .setSpec(
            io.streamplane.api.StatefulSetSpec.newBuilder()
                .setReplicas(replicas)
                .setServiceName("web")
                .setPodManagementPolicy("OrderedReady")
                .setUpdateStrategy(
                    io.streamplane.api.StatefulSetUpdateStrategy.newBuilder()
                        .setType("RollingUpdate")
                        .build())
                .setSelector(LabelSelector.newBuilder().setMatchLabels(labels).build())
                .setTemplate(
                    PodTemplateSpec.newBuilder()
                        .setMetadata(ObjectMeta.newBuilder().setLabels(labels).build())
                        .setSpec(
                            PodSpec.newBuilder()
                                .setContainers(
                                    List.of(
                                        Container.newBuilder()
                                            .setName("nginx")
                                            .setImage("nginx")
                                            .build()))
                                .build())
                        .build())
                .build())
        .build();
  }

  private static io.streamplane.api.ReplicationController replicationController(int replicas) {
    Map<String, String> labels = Map.of("app", "nginx");
    return io.streamplane.api.ReplicationController.newBuilder()
        .setApiVersion("v1")
        .setKind("ReplicationController")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("nginx")
                .setNamespace("default")
                .setResourceVersion("1")
                .setGeneration(1L)
                .build())
        .setSpec(
            io.streamplane.api.ReplicationControllerSpec.newBuilder()
                .setReplicas(replicas)
                .setSelector(labels)
                .setTemplate(
                    PodTemplateSpec.newBuilder()
                        .setMetadata(ObjectMeta.newBuilder().setLabels(labels).build())
                        .setSpec(
                            PodSpec.newBuilder()
                                .setContainers(
                                    List.of(
                                        Container.newBuilder()
                                            .setName("nginx")
                                            .setImage("nginx")
                                            .build()))
                                .build())
                        .build())
                .build())
        .build();
  }

  private static ReplicaSet replicaSet(int replicas) {
    return ReplicaSet.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("ReplicaSet")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("frontend")
                .setNamespace("default")
                .setUid("rs-uid")
                .setResourceVersion("1")
                .setGeneration(1L)
                .build())
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
                                            .setName("c")
                                            .setImage("nginx")
                                            .build()))
                                .build())
                        .build())
                .build())
        .build();
  }
}
