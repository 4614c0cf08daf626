package io.streamplane.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentSpec;
import io.streamplane.api.DeploymentStatus;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.ManagedFieldsEntry;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.log.CommandResult;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.DeleteOptions;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Given commands on the input topic, expect these events, results and bindings. */
class StoreTopologyTest {

  private static final String POD_KEY = "pods./default/web";
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  private final Topics topics =
      new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());
  private TopologyTestDriver driver;
  private TestInputTopic<String, ResourceCommand> commands;
  private TestOutputTopic<String, ResourceEvent> events;
  private TestOutputTopic<String, CommandResult> results;
  private TestOutputTopic<String, Pod> bindings;

  @BeforeEach
  void start() {
    driver = newDriver();
    commands =
        driver.createInputTopic(
            topics.commands().name(),
            Serdes.String().serializer(),
            topics.commands().valueSerde().serializer(),
            T0,
            java.time.Duration.ofSeconds(1));
    events =
        driver.createOutputTopic(
            topics.events().name(),
            Serdes.String().deserializer(),
            topics.events().valueSerde().deserializer());
    results =
        driver.createOutputTopic(
            topics.results().name(),
            Serdes.String().deserializer(),
            topics.results().valueSerde().deserializer());
    bindings =
        driver.createOutputTopic(
            topics.bindings().name(),
            Serdes.String().deserializer(),
            topics.bindings().valueSerde().deserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void aCreateStampsUidTimestampVersionAndGenerationFromTheLog() {
    CommandResult result = send(create(pod("web")));

    assertThat(result.getCode()).isEqualTo(201);
    Pod stored = (Pod) KindObjects.of(result);
    assertThat(stored.getMetadata().getResourceVersion())
        .as("the first command of a partition is at offset 0; \"0\" is reserved")
        .isEqualTo("1");
    assertThat(stored.getMetadata().getGeneration()).as("pods have none in 1.32").isNull();
    assertThat(stored.getMetadata().getCreationTimestamp()).isEqualTo(T0);
    assertThat(stored.getMetadata().getUid()).isNotBlank();
    ResourceEvent event = events.readValue();
    assertThat(event.getType()).isEqualTo(EventType.ADDED);
    assertThat(KindObjects.of(event)).isEqualTo(stored);
    assertThat(event.getActor().getUsername()).isEqualTo("alice");
  }

  @Test
  void creatingAnExistingObjectIsAlreadyExistsAndChangesNothing() {
    send(create(pod("web")));
    events.readValue();

    CommandResult again = send(create(pod("web")));

    assertThat(again.getCode()).isEqualTo(409);
    assertThat(again.getReason()).isEqualTo("AlreadyExists");
    assertThat(again.getMessage()).isEqualTo("pods \"web\" already exists");
    assertThat(events.isEmpty()).isTrue();
  }

  @Test
  void anUpdateWithAStaleResourceVersionIsAConflict() {
    send(create(pod("web")));
    Pod changed = pod("web");
    changed.getSpec().getContainers().get(0).setImage("nginx:1.16.1");
    changed.getMetadata().setResourceVersion("1");
    assertThat(send(command(CommandVerb.UPDATE, changed)).getCode()).isEqualTo(200);

    Pod stale = pod("web");
    stale.getMetadata().setResourceVersion("1");
    CommandResult conflict = send(command(CommandVerb.UPDATE, stale));

    assertThat(conflict.getCode()).isEqualTo(409);
    assertThat(conflict.getReason()).isEqualTo("Conflict");
    assertThat(conflict.getMessage())
        .startsWith("Operation cannot be fulfilled on pods \"web\": the object has been modified");
  }

  @Test
  void anUpdateOfTheMainResourceKeepsTheStatus() {
    send(create(pod("web")));
    Pod statusDone = pod("web");
    statusDone.setStatus(PodStatus.newBuilder().setPhase("Running").build());
    send(command(CommandVerb.UPDATE_STATUS, statusDone));

    Pod labelled = pod("web");
    labelled.getMetadata().setLabels(Map.of("tier", "front"));
    labelled.setStatus(PodStatus.newBuilder().setPhase("Failed").build());
    Pod afterLabel = (Pod) KindObjects.of(send(command(CommandVerb.UPDATE, labelled)));

    assertThat(afterLabel.getStatus().getPhase()).isEqualTo("Running");
    assertThat(afterLabel.getMetadata().getLabels()).containsEntry("tier", "front");
  }

  @Test
  void managedFieldsAreTakenWhenSentAndKeptWhenAWriterSendsNone() {
    Pod created = pod("web");
    created.getMetadata().setManagedFields(List.of(entry("kubectl-create", "{\"f:spec\":{}}")));
    send(create(created));

    Pod fromController = pod("web");
    fromController.getMetadata().setLabels(Map.of("tier", "front"));
    Pod kept = (Pod) KindObjects.of(send(command(CommandVerb.UPDATE, fromController)));
    Pod statusWrite = pod("web");
    statusWrite.setStatus(PodStatus.newBuilder().setPhase("Running").build());
    statusWrite
        .getMetadata()
        .setManagedFields(List.of(entry("streamplane-node", "{\"f:status\":{}}")));
    Pod taken = (Pod) KindObjects.of(send(command(CommandVerb.UPDATE_STATUS, statusWrite)));
    Pod reset = pod("web");
    reset.getMetadata().setManagedFields(List.of());
    Pod emptied = (Pod) KindObjects.of(send(command(CommandVerb.UPDATE, reset)));

    assertThat(kept.getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .containsExactly("kubectl-create");
    assertThat(taken.getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .containsExactly("streamplane-node");
    assertThat(emptied.getMetadata().getManagedFields()).isEmpty();
  }

  private static ManagedFieldsEntry entry(String manager, String fields) {
    return ManagedFieldsEntry.newBuilder()
        .setManager(manager)
        .setOperation("Update")
        .setApiVersion("v1")
        .setFieldsType("FieldsV1")
        .setFieldsV1(fields)
        .build();
  }

  @Test
  void aDeploymentsGenerationMovesWithItsSpecOnly() {
    Deployment created =
        (Deployment) KindObjects.of(sendDeployment(CommandVerb.CREATE, deployment(2, null)));
    Deployment labelled =
        (Deployment)
            KindObjects.of(sendDeployment(CommandVerb.UPDATE, deployment(2, Map.of("a", "b"))));
    Deployment scaled =
        (Deployment)
            KindObjects.of(sendDeployment(CommandVerb.UPDATE, deployment(5, Map.of("a", "b"))));

    assertThat(created.getMetadata().getGeneration()).isEqualTo(1L);
    assertThat(labelled.getMetadata().getGeneration()).isEqualTo(1L);
    assertThat(scaled.getMetadata().getGeneration()).isEqualTo(2L);
  }

  @Test
  void aDeploymentStatusUpdateAlsoWritesAnnotationsAsKubernetesDeploymentStatusStrategyDoes() {
    sendDeployment(CommandVerb.CREATE, deployment(2, null));
    Deployment withRevision = deployment(2, null);
    withRevision.getMetadata().setAnnotations(Map.of("deployment.kubernetes.io/revision", "1"));
    withRevision.getMetadata().setLabels(Map.of("changed", "by-status"));
    withRevision.setStatus(DeploymentStatus.newBuilder().setReplicas(2).build());

    Deployment after =
        (Deployment) KindObjects.of(sendDeployment(CommandVerb.UPDATE_STATUS, withRevision));

    assertThat(after.getMetadata().getAnnotations())
        .containsEntry("deployment.kubernetes.io/revision", "1");
    assertThat(after.getMetadata().getLabels()).as("labels stay as stored").isNull();
    assertThat(after.getStatus().getReplicas()).isEqualTo(2);
  }

  @Test
  void aPodStatusUpdateLeavesTheAnnotationsAlone() {
    send(create(pod("web")));
    Pod annotated = pod("web");
    annotated.getMetadata().setAnnotations(Map.of("a", "b"));
    annotated.setStatus(PodStatus.newBuilder().setPhase("Running").build());

    Pod after = (Pod) KindObjects.of(send(command(CommandVerb.UPDATE_STATUS, annotated)));

    assertThat(after.getMetadata().getAnnotations()).isNull();
  }

  @Test
  void aStatusUpdateLeavesTheSpecUntouched() {
    send(create(pod("web")));
    Pod other = pod("web");
    other.getSpec().getContainers().get(0).setImage("evil:latest");
    other.setStatus(PodStatus.newBuilder().setPhase("Running").build());

    Pod after = (Pod) KindObjects.of(send(command(CommandVerb.UPDATE_STATUS, other)));

    assertThat(after.getStatus().getPhase()).isEqualTo("Running");
    assertThat(after.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.14.2");
  }

  @Test
  void anUpdateThatChangesNothingKeepsTheResourceVersionAndEmitsNoEvent() {
    send(create(pod("web")));
    events.readValue();

    CommandResult same = send(command(CommandVerb.UPDATE, pod("web")));

    assertThat(same.getCode()).isEqualTo(200);
    assertThat(((Pod) KindObjects.of(same)).getMetadata().getResourceVersion()).isEqualTo("1");
    assertThat(events.isEmpty()).isTrue();
  }

  @Test
  void resourceVersionsStayIncreasingPastTheFirstOffset() {
    Pod first = (Pod) KindObjects.of(send(create(pod("web"))));
    Pod labelled = pod("web");
    labelled.getMetadata().setLabels(Map.of("tier", "front"));
    Pod second = (Pod) KindObjects.of(send(command(CommandVerb.UPDATE, labelled)));

    assertThat(Long.parseLong(second.getMetadata().getResourceVersion()))
        .isGreaterThan(Long.parseLong(first.getMetadata().getResourceVersion()));
  }

  @Test
  void anUpdateCarryingResourceVersionZeroIsUnconditional() {
    send(create(pod("web")));
    Pod first = pod("web");
    first.getMetadata().setLabels(Map.of("rev", "1"));
    send(command(CommandVerb.UPDATE, first));

    Pod unset = pod("web");
    unset.getMetadata().setLabels(Map.of("rev", "2"));
    unset.getMetadata().setResourceVersion("0");
    CommandResult answer = send(command(CommandVerb.UPDATE, unset));

    assertThat(answer.getCode()).isEqualTo(200);
    assertThat(((Pod) KindObjects.of(answer)).getMetadata().getLabels()).containsEntry("rev", "2");
    assertThat(((Pod) KindObjects.of(answer)).getMetadata().getResourceVersion()).isNotEqualTo("0");
  }

  @Test
  void anObjectWithFinalizersIsMarkedThenRemovedWhenTheyAreCleared() {
    Pod guarded = pod("web");
    guarded.getMetadata().setFinalizers(List.of("example.com/guard"));
    send(create(guarded));

    CommandResult deleting = send(command(CommandVerb.DELETE, null));
    Pod marked = (Pod) KindObjects.of(deleting);
    assertThat(marked.getMetadata().getDeletionTimestamp()).isNotNull();

    Pod released = pod("web");
    released.getMetadata().setFinalizers(List.of());
    send(command(CommandVerb.UPDATE, released));

    assertThat(events.readValuesToList())
        .extracting(ResourceEvent::getType)
        .containsExactly(EventType.ADDED, EventType.MODIFIED, EventType.DELETED);
    assertThat(send(command(CommandVerb.DELETE, null)).getCode()).isEqualTo(404);
  }

  @Test
  void orphanAndForegroundDeletionsAddTheirFinalizers() {
    send(create(pod("web")));
    ResourceCommand delete = command(CommandVerb.DELETE, null);
    delete.setDeleteOptions(DeleteOptions.newBuilder().setPropagationPolicy("Foreground").build());

    Pod marked = (Pod) KindObjects.of(send(delete));

    assertThat(marked.getMetadata().getFinalizers()).containsExactly("foregroundDeletion");
  }

  @Test
  void aBoundPodIsProjectedToItsNodeAndTombstonedWhenDeleted() {
    send(create(pod("web")));
    ResourceCommand bind = command(CommandVerb.BIND, null);
    bind.setNodeName("node-1");
    CommandResult bound = send(bind);
    assertThat(bound.getCode()).isEqualTo(201);
    assertThat(((Pod) KindObjects.of(bound)).getSpec().getNodeName()).isEqualTo("node-1");

    ResourceCommand kill = command(CommandVerb.DELETE, null);
    kill.setDeleteOptions(DeleteOptions.newBuilder().setGracePeriodSeconds(0L).build());
    send(kill);

    List<KeyValue<String, Pod>> projected = bindings.readKeyValuesToList();
    assertThat(projected).extracting(kv -> kv.key).containsOnly("node-1/" + POD_KEY);
    assertThat(projected.get(0).value.getSpec().getNodeName()).isEqualTo("node-1");
    assertThat(projected.get(projected.size() - 1).value).as("tombstone").isNull();
  }

  @Test
  void aBoundPodIsDeletedGracefully() {
    send(create(pod("web")));
    ResourceCommand bind = command(CommandVerb.BIND, null);
    bind.setNodeName("node-1");
    send(bind);

    Pod terminating = (Pod) KindObjects.of(send(command(CommandVerb.DELETE, null)));

    assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);
    assertThat(terminating.getMetadata().getDeletionTimestamp()).isAfter(T0);
  }

  @Test
  void anInvalidObjectIsRefusedWith422NamingTheField() {
    Pod bad = pod("Bad_Name");
    bad.getSpec().getContainers().get(0).setImage(null);
    ResourceCommand create = create(bad);
    create.setName("Bad_Name");

    CommandResult result = send(create);

    assertThat(result.getCode()).isEqualTo(422);
    assertThat(result.getReason()).isEqualTo("Invalid");
    assertThat(result.getCauses())
        .extracting(c -> c.getField())
        .containsExactly("metadata.name", "spec.containers[0].image");
    assertThat(result.getMessage()).startsWith("Pod \"Bad_Name\" is invalid: [metadata.name:");
    assertThat(events.isEmpty()).isTrue();
  }

  @Test
  void aDryRunAnswersButChangesNothing() {
    ResourceCommand dry = create(pod("web"));
    dry.setDryRun(true);

    assertThat(send(dry).getCode()).isEqualTo(201);
    assertThat(events.isEmpty()).isTrue();
    assertThat(send(create(pod("web"))).getCode()).isEqualTo(201);
  }

  @Test
  void replayingTheSameCommandsRebuildsIdenticalEvents() {
    List<ResourceCommand> script =
        List.of(
            create(pod("web")),
            command(CommandVerb.UPDATE, pod("web")),
            command(CommandVerb.DELETE, null));
    script.forEach(this::send);
    List<ResourceEvent> first = events.readValuesToList();

    stop();
    start();
    script.forEach(this::send);

    assertThat(events.readValuesToList()).isEqualTo(first);
  }

  private TopologyTestDriver newDriver() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "store-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir") + "/store-test-" + UUID.randomUUID());
    return new TopologyTestDriver(StoreTopology.buildTopology(topics), props);
  }

  private CommandResult send(ResourceCommand command) {
    commands.pipeInput(POD_KEY, command);
    return results.readValue();
  }

  private CommandResult sendDeployment(CommandVerb verb, Deployment deployment) {
    ResourceCommand command =
        ResourceCommand.newBuilder(command(verb, null))
            .setResource("deployments")
            .setGroup("apps")
            .setName("nginx")
            .setEncodedObject(KindObjects.encode(deployment))
            .build();
    commands.pipeInput("deployments.apps/default/nginx", command);
    return results.readValue();
  }

  private static Deployment deployment(int replicas, Map<String, String> labels) {
    Map<String, String> app = Map.of("app", "nginx");
    return Deployment.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("Deployment")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("nginx")
                .setNamespace("default")
                .setLabels(labels)
                .build())
        .setSpec(
            DeploymentSpec.newBuilder()
                .setReplicas(replicas)
                .setSelector(LabelSelector.newBuilder().setMatchLabels(app).build())
                .setTemplate(
                    PodTemplateSpec.newBuilder()
                        .setMetadata(ObjectMeta.newBuilder().setLabels(app).build())
                        .setSpec(pod("x").getSpec())
                        .build())
                .build())
        .build();
  }

  private static ResourceCommand create(Pod pod) {
    return command(CommandVerb.CREATE, pod);
  }

  private static ResourceCommand command(CommandVerb verb, Pod pod) {
    return ResourceCommand.newBuilder()
        .setId(UUID.randomUUID().toString())
        .setVerb(verb)
        .setResource("pods")
        .setNamespace("default")
        .setName("web")
        .setEncodedObject(KindObjects.encode(pod))
        .setActor(UserInfo.newBuilder().setUsername("alice").build())
        .setReplyPartition(0)
        .build();
  }

  private static Pod pod(String name) {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(ObjectMeta.newBuilder().setName(name).setNamespace("default").build())
        .setSpec(
            PodSpec.newBuilder()
                .setContainers(
                    List.of(
                        Container.newBuilder().setName("nginx").setImage("nginx:1.14.2").build()))
                .build())
        .build();
  }
}
