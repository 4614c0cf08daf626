package io.streamplane.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.Container;
import io.streamplane.api.Deployment;
import io.streamplane.api.DeploymentSpec;
import io.streamplane.api.DeploymentStatus;
import io.streamplane.api.Job;
import io.streamplane.api.JobSpec;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.Namespace;
import io.streamplane.api.NamespaceSpec;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.DeleteOptions;
import io.streamplane.log.EventType;
import io.streamplane.log.Preconditions;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * The store's decision as the pure function it is: given a command, its position and the key's
 * state, expect this result, event and state.
 */
class StoreLogicTest {

  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  private long offset = 10;

  private CommandPosition next() {
    offset++;
    return new CommandPosition(0, offset, T0.plusSeconds(offset));
  }

  private static ResourceCommand command(
      CommandVerb verb, String resource, String group, String namespace, SpecificRecord object) {
    return ResourceCommand.newBuilder()
        .setId("c-" + verb + "-" + System.nanoTime())
        .setVerb(verb)
        .setResource(resource)
        .setGroup(group)
        .setNamespace(namespace)
        .setName(KubeObjects.meta(object).getName())
        .setEncodedObject(KindObjects.encode(object))
        .setActor(UserInfo.newBuilder().setUsername("alice").build())
        .build();
  }

  private static ConfigMap configMap(String name, Map<String, String> data) {
    return ConfigMap.newBuilder()
        .setApiVersion("v1")
        .setKind("ConfigMap")
        .setMetadata(ObjectMeta.newBuilder().setName(name).setNamespace("default").build())
        .setData(data)
        .build();
  }

  private static Deployment deployment(int replicas) {
    Map<String, String> labels = Map.of("app", "web");
    return Deployment.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("Deployment")
        .setMetadata(ObjectMeta.newBuilder().setName("web").setNamespace("default").build())
        .setSpec(
            DeploymentSpec.newBuilder()
                .setReplicas(replicas)
                .setSelector(LabelSelector.newBuilder().setMatchLabels(labels).build())
                .setTemplate(
                    PodTemplateSpec.newBuilder()
                        .setMetadata(ObjectMeta.newBuilder().setLabels(labels).build())
                        .setSpec(
                            PodSpec.newBuilder()
                                .setContainers(
                                    List.of(
                                        Container.newBuilder()
                                            .setName("web")
                                            .setImage("nginx")
                                            .build()))
                                .build())
                        .build())
                .build())
        .build();
  }

  @Test
  void aCreateGetsUidVersionAndTimestampFromItsPositionAndASecondCreateIsAlreadyExists() {
    CommandPosition at = next();
    Outcome created =
        StoreLogic.apply(
            command(CommandVerb.CREATE, "configmaps", "", "default", configMap("a", Map.of())),
            at,
            null);

    assertThat(created.result().getCode()).isEqualTo(201);
    assertThat(created.event().getType()).isEqualTo(EventType.ADDED);
    ObjectMeta meta = KubeObjects.meta(KindObjects.of(created.state()));
    assertThat(meta.getResourceVersion()).isEqualTo(at.resourceVersion());
    assertThat(meta.getCreationTimestamp()).isEqualTo(at.timestamp());
    assertThat(meta.getUid()).isNotBlank();
    Outcome again =
        StoreLogic.apply(
            command(CommandVerb.CREATE, "configmaps", "", "default", configMap("a", Map.of())),
            at,
            null);
    assertThat(KubeObjects.meta(KindObjects.of(again.state())).getUid())
        .as("the same command at the same position: the same object, as a replay needs")
        .isEqualTo(meta.getUid());

    Outcome duplicate =
        StoreLogic.apply(
            command(CommandVerb.CREATE, "configmaps", "", "default", configMap("a", Map.of())),
            next(),
            created.state());
    assertThat(duplicate.changed()).isFalse();
    assertThat(duplicate.result().getCode()).isEqualTo(409);
    assertThat(duplicate.result().getReason()).isEqualTo("AlreadyExists");
  }

  @Test
  void aCreatedJobGetsTheSelectorAndLabelsGeneratedFromTheUidTheStoreGivesIt() {
    Deployment template = deployment(1);
    template.getSpec().getTemplate().getMetadata().setLabels(null);
    template.getSpec().getTemplate().getSpec().setRestartPolicy("Never");
    Job job =
        Job.newBuilder()
            .setApiVersion("batch/v1")
            .setKind("Job")
            .setMetadata(ObjectMeta.newBuilder().setName("pi").setNamespace("default").build())
            .setSpec(
                JobSpec.newBuilder()
                    .setManualSelector(false)
                    .setTemplate(template.getSpec().getTemplate())
                    .build())
            .build();

    Outcome created =
        StoreLogic.apply(
            command(CommandVerb.CREATE, "jobs", "batch", "default", job), next(), null);

    assertThat(created.result().getCode()).isEqualTo(201);
    Job stored = (Job) KindObjects.of(created.state());
    String uid = stored.getMetadata().getUid();
    assertThat(stored.getSpec().getSelector().getMatchLabels())
        .isEqualTo(Map.of("batch.kubernetes.io/controller-uid", uid));
    assertThat(stored.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("controller-uid", uid)
        .containsEntry("job-name", "pi");
  }

  @Test
  void anUpdateWithAStaleResourceVersionIsAConflictAndChangesNothing() {
    ResourceEvent state = create(configMap("a", Map.of("k", "1")), "configmaps", "");
    ConfigMap stale = configMap("a", Map.of("k", "2"));
    stale.getMetadata().setResourceVersion("1");

    Outcome outcome =
        StoreLogic.apply(
            command(CommandVerb.UPDATE, "configmaps", "", "default", stale), next(), state);

    assertThat(outcome.changed()).isFalse();
    assertThat(outcome.result().getCode()).isEqualTo(409);
    assertThat(outcome.result().getReason()).isEqualTo("Conflict");
  }

  @Test
  void anUpdateThatChangesNothingWritesNoEvent() {
    ResourceEvent state = create(configMap("a", Map.of("k", "1")), "configmaps", "");

    Outcome outcome =
        StoreLogic.apply(
            command(
                CommandVerb.UPDATE, "configmaps", "", "default", configMap("a", Map.of("k", "1"))),
            next(),
            state);

    assertThat(outcome.result().getCode()).isEqualTo(200);
    assertThat(outcome.changed()).isFalse();
  }

  @Test
  void aSpecChangeRaisesTheGenerationOfAKindThatKeepsOneAndTheMainResourceKeepsTheStatus() {
    ResourceEvent state = create(deployment(1), "deployments", "apps");
    assertThat(((Deployment) KindObjects.of(state)).getMetadata().getGeneration()).isEqualTo(1L);
    Deployment scaled = deployment(3);
    scaled.setStatus(DeploymentStatus.newBuilder().setReplicas(99).build());

    Outcome outcome =
        StoreLogic.apply(
            command(CommandVerb.UPDATE, "deployments", "apps", "default", scaled), next(), state);

    Deployment stored = (Deployment) KindObjects.of(outcome.state());
    assertThat(stored.getMetadata().getGeneration()).isEqualTo(2L);
    assertThat(stored.getSpec().getReplicas()).isEqualTo(3);
    assertThat(stored.getStatus()).as("status is the status subresource's").isNull();
  }

  @Test
  void anInvalidObjectIsRefusedWithTheKindsCauses() {
    Deployment invalid = deployment(-1);

    Outcome outcome =
        StoreLogic.apply(
            command(CommandVerb.CREATE, "deployments", "apps", "default", invalid), next(), null);

    assertThat(outcome.changed()).isFalse();
    assertThat(outcome.result().getCode()).isEqualTo(422);
    assertThat(outcome.result().getMessage())
        .isEqualTo(
            "Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater"
                + " than or equal to 0");
  }

  @Test
  void aPreconditionOnUidThatDoesNotMatchRefusesADelete() {
    ResourceEvent state = create(configMap("a", Map.of()), "configmaps", "");
    ResourceCommand delete =
        ResourceCommand.newBuilder(
                command(CommandVerb.DELETE, "configmaps", "", "default", configMap("a", Map.of())))
            .setEncodedObject(null)
            .setPreconditions(Preconditions.newBuilder().setUid("another").build())
            .build();

    Outcome outcome = StoreLogic.apply(delete, next(), state);

    assertThat(outcome.changed()).isFalse();
    assertThat(outcome.result().getCode()).isEqualTo(409);
  }

  @Test
  void aNamespaceBeingDeletedTerminatesAndStaysUntilItsFinalizerIsRemoved() {
    Namespace namespace =
        Namespace.newBuilder()
            .setApiVersion("v1")
            .setKind("Namespace")
            .setMetadata(ObjectMeta.newBuilder().setName("team").build())
            .setSpec(NamespaceSpec.newBuilder().setFinalizers(List.of("kubernetes")).build())
            .build();
    ResourceEvent state = create(namespace, "namespaces", "", null);
    ResourceCommand delete =
        ResourceCommand.newBuilder(command(CommandVerb.DELETE, "namespaces", "", null, namespace))
            .setEncodedObject(null)
            .build();

    Outcome outcome = StoreLogic.apply(delete, next(), state);

    Namespace terminating = (Namespace) KindObjects.of(outcome.state());
    assertThat(outcome.event().getType()).isEqualTo(EventType.MODIFIED);
    assertThat(terminating.getStatus().getPhase()).isEqualTo("Terminating");
    assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
  }

  @Test
  void aPodBoundToANodeIsDeletedGracefullyAndAnUnboundOneAtOnce() {
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(ObjectMeta.newBuilder().setName("p").setNamespace("default").build())
            .setSpec(
                PodSpec.newBuilder()
                    .setContainers(
                        List.of(Container.newBuilder().setName("c").setImage("busybox").build()))
                    .build())
            .build();
    ResourceEvent unbound = create(pod, "pods", "");
    ResourceCommand delete =
        ResourceCommand.newBuilder(command(CommandVerb.DELETE, "pods", "", "default", pod))
            .setEncodedObject(null)
            .setDeleteOptions(DeleteOptions.newBuilder().build())
            .build();

    Outcome gone = StoreLogic.apply(delete, next(), unbound);
    assertThat(gone.event().getType()).isEqualTo(EventType.DELETED);
    assertThat(gone.state()).isNull();

    ResourceCommand bind =
        ResourceCommand.newBuilder(command(CommandVerb.BIND, "pods", "", "default", pod))
            .setEncodedObject(null)
            .setNodeName("node-0")
            .build();
    ResourceEvent bound = StoreLogic.apply(bind, next(), unbound).state();
    CommandPosition at = next();
    Outcome graceful = StoreLogic.apply(delete, at, bound);
    Pod terminating = (Pod) KindObjects.of(graceful.state());
    assertThat(graceful.event().getType()).isEqualTo(EventType.MODIFIED);
    assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);
    assertThat(terminating.getMetadata().getDeletionTimestamp())
        .isEqualTo(at.timestamp().plusSeconds(30));
  }

  private ResourceEvent create(SpecificRecord object, String resource, String group) {
    return create(object, resource, group, "default");
  }

  private ResourceEvent create(
      SpecificRecord object, String resource, String group, String namespace) {
    Outcome outcome =
        StoreLogic.apply(
            command(CommandVerb.CREATE, resource, group, namespace, object), next(), null);
    assertThat(outcome.result().getCode()).as(outcome.result().getMessage()).isEqualTo(201);
    return outcome.state();
  }

  private static io.streamplane.log.CustomObject cronTab(String content, String status) {
    return io.streamplane.log.CustomObject.newBuilder()
        .setApiVersion("stable.example.com/v1")
        .setKind("CronTab")
        .setMetadata(ObjectMeta.newBuilder().setName("c").build())
        .setContent(content)
        .setStatus(status)
        .build();
  }

  @Test
  void aCustomObjectKeepsGenerationStatusAndFinalizersAsEveryKind() {
    Outcome created =
        StoreLogic.apply(
            command(
                CommandVerb.CREATE,
                "crontabs",
                "stable.example.com",
                "default",
                cronTab("{\"spec\":{\"replicas\":1}}", null)),
            next(),
            null);
    assertThat(created.result().getCode()).isEqualTo(201);
    io.streamplane.log.CustomObject stored =
        (io.streamplane.log.CustomObject) KindObjects.of(created.state());
    assertThat(stored.getMetadata().getGeneration()).isEqualTo(1L);
    assertThat(stored.getMetadata().getUid()).isNotNull();

    Outcome status =
        StoreLogic.apply(
            command(
                CommandVerb.UPDATE_STATUS,
                "crontabs",
                "stable.example.com",
                "default",
                cronTab("{\"spec\":{\"replicas\":1}}", "{\"replicas\":1}")),
            next(),
            created.state());
    io.streamplane.log.CustomObject withStatus =
        (io.streamplane.log.CustomObject) KindObjects.of(status.state());
    assertThat(withStatus.getStatus()).isEqualTo("{\"replicas\":1}");
    assertThat(withStatus.getMetadata().getGeneration()).as("a status write").isEqualTo(1L);

    Outcome spec =
        StoreLogic.apply(
            command(
                CommandVerb.UPDATE,
                "crontabs",
                "stable.example.com",
                "default",
                cronTab("{\"spec\":{\"replicas\":2}}", "{\"replicas\":7}")),
            next(),
            status.state());
    io.streamplane.log.CustomObject scaled =
        (io.streamplane.log.CustomObject) KindObjects.of(spec.state());
    assertThat(scaled.getMetadata().getGeneration()).isEqualTo(2L);
    assertThat(scaled.getStatus())
        .as("the main resource does not write status")
        .isEqualTo("{\"replicas\":1}");
  }
}
