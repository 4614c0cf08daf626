package io.streamplane.gateway.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.testing.InMemoryStore;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The registry without a broker: its writes decided by the store's own logic in memory ({@link
 * InMemoryStore}), so what is checked is what the registry sends and how it answers.
 */
class ResourceServiceTest {

  private static final ResourceRegistry KINDS = ResourceRegistry.kubernetes();
  private static final ResourceType CONFIG_MAPS = KINDS.byResource("", "configmaps").orElseThrow();
  private static final ResourceType DEPLOYMENTS =
      KINDS.byResource("apps", "deployments").orElseThrow();
  private static final ResourceType PODS = KINDS.byResource("", "pods").orElseThrow();
  private static final ResourceType CORE_EVENTS = KINDS.byResource("", "events").orElseThrow();
  private static final ResourceType EVENTS =
      KINDS.byResource("events.k8s.io", "events").orElseThrow();
  private static final ResourceType IP_ADDRESSES =
      KINDS.byResource("networking.k8s.io", "ipaddresses").orElseThrow();
  private static final WriteOptions ALICE =
      new WriteOptions(UserInfo.newBuilder().setUsername("alice").build(), false, null, "a-1");
  private static final String MERGE_PATCH = "application/merge-patch+json";

  private final InMemoryStore store = new InMemoryStore();
  private final ResourceService service =
      new ResourceService(
          store, null, store, new KubeJson(), Duration.ofSeconds(1), Admission.none());

  private static ObjectNode json(String text) {
    return (ObjectNode) KubeJson.parseJson(text);
  }

  private ObjectNode createConfigMap(String name) {
    return service
        .create(
            CONFIG_MAPS,
            "default",
            json(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
                    + name
                    + "\"},\"data\":{\"k\":\"1\"}}"),
            ALICE)
        .object();
  }

  private long patchCommands() {
    return store.commands().stream().filter(c -> c.getVerb() == CommandVerb.UPDATE).count();
  }

  @Test
  void aCreatedObjectIsDefaultedByItsKindAndReadBackAsStored() {
    ObjectNode created =
        service
            .create(
                DEPLOYMENTS,
                "default",
                json(
                    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
                        + "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{"
                        + "\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":["
                        + "{\"name\":\"web\",\"image\":\"nginx\"}]}}}}"),
                ALICE)
            .object();

    assertThat(created.path("spec").path("replicas").asInt()).isEqualTo(1);
    assertThat(created.path("spec").path("strategy").path("type").asText())
        .isEqualTo("RollingUpdate");
    assertThat(created.path("metadata").path("generation").asLong()).isEqualTo(1);
    assertThat(service.get(DEPLOYMENTS, "default", "web")).isEqualTo(created);
  }

  @Test
  void generateNameMakesADifferentNameForEachCreate() {
    ObjectNode body =
        json(
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"generateName\":\"c-\"}}");

    String first =
        service
            .create(CONFIG_MAPS, "default", body, ALICE)
            .object()
            .path("metadata")
            .path("name")
            .asText();
    String second =
        service
            .create(CONFIG_MAPS, "default", body, ALICE)
            .object()
            .path("metadata")
            .path("name")
            .asText();

    assertThat(first).startsWith("c-").hasSize(7);
    assertThat(second).startsWith("c-").isNotEqualTo(first);
  }

  @Test
  void aPatchIsWorkedOutAgainWhenAnotherWriterChangedTheObjectMeanwhile() {
    createConfigMap("settings");
    store.beforeNextCommand(
        () ->
            service.patch(
                CONFIG_MAPS,
                "default",
                "settings",
                null,
                MERGE_PATCH,
                json("{\"metadata\":{\"labels\":{\"by\":\"bob\"}}}"),
                ALICE));

    ObjectNode patched =
        service
            .patch(
                CONFIG_MAPS,
                "default",
                "settings",
                null,
                MERGE_PATCH,
                json("{\"data\":{\"k\":\"2\"}}"),
                ALICE)
            .object();

    assertThat(patched.path("data").path("k").asText()).isEqualTo("2");
    assertThat(patched.path("metadata").path("labels").path("by").asText())
        .as("the other writer's change is kept: the patch was applied to the new version")
        .isEqualTo("bob");
    assertThat(patchCommands()).as("bob's write, the conflicting try, the second try").isEqualTo(3);
  }

  @Test
  void aPatchThatNamesAVersionIsNotTriedAgainOnConflict() {
    ObjectNode created = createConfigMap("settings");
    String version = created.path("metadata").path("resourceVersion").asText();
    service.patch(
        CONFIG_MAPS,
        "default",
        "settings",
        null,
        MERGE_PATCH,
        json("{\"data\":{\"k\":\"2\"}}"),
        ALICE);

    assertThatThrownBy(
            () ->
                service.patch(
                    CONFIG_MAPS,
                    "default",
                    "settings",
                    null,
                    MERGE_PATCH,
                    json(
                        "{\"metadata\":{\"resourceVersion\":\""
                            + version
                            + "\"},\"data\":{\"k\":\"3\"}}"),
                    ALICE))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
    assertThat(patchCommands()).isEqualTo(2);
  }

  @Test
  void aPatchOfAnObjectThatDoesNotExistIsNotFoundAndSendsNothing() {
    assertThatThrownBy(
            () ->
                service.patch(
                    CONFIG_MAPS,
                    "default",
                    "missing",
                    null,
                    MERGE_PATCH,
                    json("{\"data\":{\"k\":\"2\"}}"),
                    ALICE))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(404));
    assertThat(store.commands()).isEmpty();
  }

  @Test
  void theScaleSubresourceSetsReplicasAndAnswersAScale() {
    aCreatedObjectIsDefaultedByItsKindAndReadBackAsStored();

    Written scaled =
        service.updateScale(
            DEPLOYMENTS, "default", "web", MERGE_PATCH, json("{\"spec\":{\"replicas\":4}}"), ALICE);

    assertThat(scaled.object().path("kind").asText()).isEqualTo("Scale");
    assertThat(scaled.object().path("spec").path("replicas").asInt()).isEqualTo(4);
    assertThat(service.get(DEPLOYMENTS, "default", "web").path("spec").path("replicas").asInt())
        .isEqualTo(4);
  }

  @Test
  void applyCreatesWhatIsAbsentAndRecordsItsManager() {
    WriteOptions applier =
        new WriteOptions(ALICE.actor(), false, null, "a-2", "kubectl", null, null);

    ObjectNode applied =
        service
            .apply(
                CONFIG_MAPS,
                "default",
                "applied",
                null,
                json(
                    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"applied\"},"
                        + "\"data\":{\"a\":\"b\"}}"),
                applier)
            .object();

    assertThat(applied.path("data").path("a").asText()).isEqualTo("b");
    List<String> managers =
        applied.path("metadata").path("managedFields").findValuesAsText("manager");
    assertThat(managers).containsExactly("kubectl");
    assertThat(store.commands())
        .extracting(ResourceCommand::getVerb)
        .containsExactly(CommandVerb.CREATE);
  }

  @Test
  void aDeleteRemovesTheObject() {
    createConfigMap("gone");

    service.delete(CONFIG_MAPS, "default", "gone", json("{}"), ALICE);

    assertThatThrownBy(() -> service.get(CONFIG_MAPS, "default", "gone"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(404));
  }

  @Test
  void anEventWrittenThroughEventsK8sIoIsACoreEventUnderOtherNames() {
    ObjectNode created =
        service
            .create(
                EVENTS,
                "default",
                json(
                    "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e1\"},"
                        + "\"eventTime\":\"2026-11-26T10:00:00.000000Z\",\"type\":\"Normal\","
                        + "\"reason\":\"Scheduled\",\"action\":\"Binding\",\"note\":\"assigned\","
                        + "\"reportingController\":\"default-scheduler\",\"reportingInstance\":\"s-1\","
                        + "\"regarding\":{\"kind\":\"Pod\",\"name\":\"web\",\"namespace\":\"default\"}}"),
                ALICE)
            .object();

    assertThat(created.path("apiVersion").asText()).isEqualTo("events.k8s.io/v1");
    assertThat(created.path("note").asText()).isEqualTo("assigned");
    assertThat(created.has("message")).isFalse();
    ResourceCommand command = store.commands().get(store.commands().size() - 1);
    assertThat(command.getGroup()).isEmpty();
    assertThat(command.getResource()).isEqualTo("events");
    ObjectNode core = service.get(CORE_EVENTS, "default", "e1");
    assertThat(core.path("apiVersion").asText()).isEqualTo("v1");
    assertThat(core.path("message").asText()).isEqualTo("assigned");
    assertThat(core.path("involvedObject").path("name").asText()).isEqualTo("web");
    assertThat(core.path("reportingComponent").asText()).isEqualTo("default-scheduler");

    ObjectNode patched =
        service
            .patch(EVENTS, "default", "e1", "", MERGE_PATCH, json("{\"note\":\"again\"}"), ALICE)
            .object();
    assertThat(patched.path("note").asText()).isEqualTo("again");
    assertThat(service.get(CORE_EVENTS, "default", "e1").path("message").asText())
        .isEqualTo("again");
    assertThat(
            service
                .list(
                    EVENTS,
                    "default",
                    io.streamplane.gateway.api.Selectors.parseLabels(null),
                    io.streamplane.gateway.api.Selectors.parseFields("regarding.name=web", EVENTS),
                    0,
                    null,
                    ReadAt.latest())
                .path("items"))
        .hasSize(1);
  }

  @Test
  void aCreateThroughEventsK8sIoMustSayWhoReportedWhatAndWhen() {
    assertThatThrownBy(
            () ->
                service.create(
                    EVENTS,
                    "default",
                    json(
                        "{\"metadata\":{\"name\":\"e2\"},\"type\":\"Normal\",\"reason\":\"X\","
                            + "\"deprecatedCount\":3}"),
                    ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(422);
              assertThat(e.status().path("message").asText())
                  .startsWith("Event.events.k8s.io \"e2\" is invalid: [eventTime: Required value")
                  .contains("reportingController: Required value")
                  .contains("count: Invalid value: \"\": needs to be unset");
            });
    assertThat(store.commands()).isEmpty();
  }

  @Test
  void managedFieldsAreWrittenAsAPatchSetsThemAndResetWithAnEmptyEntry() {
    createConfigMap("owned");
    String jsonPatch = "application/json-patch+json";
    ObjectNode set =
        service
            .patch(
                CONFIG_MAPS,
                "default",
                "owned",
                "",
                jsonPatch,
                KubeJson.parseJson(
                    "[{\"op\":\"replace\",\"path\":\"/metadata/managedFields\",\"value\":"
                        + "[{\"manager\":\"someone\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
                        + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{\"f:k\":{}}}}]}]"),
                ALICE)
            .object();
    assertThat(set.at("/metadata/managedFields")).hasSize(1);
    assertThat(set.at("/metadata/managedFields/0/manager").asText()).isEqualTo("someone");

    ObjectNode reset =
        service
            .patch(
                CONFIG_MAPS,
                "default",
                "owned",
                "",
                jsonPatch,
                KubeJson.parseJson(
                    "[{\"op\":\"replace\",\"path\":\"/metadata/managedFields\",\"value\":[{}]}]"),
                ALICE)
            .object();
    assertThat(reset.at("/metadata/managedFields").isMissingNode()).as(reset.toString()).isTrue();
  }

  @Test
  void kubectlsServerSideApplyTakesOverWhatClientSideApplySetAndKeepsItsAnnotation() {
    String lastApplied =
        "{\"apiVersion\":\"v1\",\"data\":{\"k\":\"1\"},\"kind\":\"ConfigMap\","
            + "\"metadata\":{\"annotations\":{},\"name\":\"csa\",\"namespace\":\"default\"}}";
    ObjectNode clientSide =
        json(
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"csa\","
                + "\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"
                + TextNode.valueOf(lastApplied).toString()
                + "}},\"data\":{\"k\":\"1\"}}");
    service.create(
        CONFIG_MAPS,
        "default",
        clientSide,
        new WriteOptions(
            ALICE.actor(), false, null, "a-3", "kubectl-client-side-apply", null, null));
    String config =
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"csa\"},"
            + "\"data\":{\"k\":\"2\"}}";

    assertThatThrownBy(
            () ->
                service.apply(
                    CONFIG_MAPS,
                    "default",
                    "csa",
                    null,
                    json(config),
                    new WriteOptions(ALICE.actor(), false, null, "a-4", "someone", null, null)))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
    ObjectNode applied =
        service
            .apply(
                CONFIG_MAPS,
                "default",
                "csa",
                null,
                json(config),
                new WriteOptions(ALICE.actor(), false, null, "a-5", "kubectl", null, null))
            .object();

    assertThat(applied.at("/data/k").asText()).isEqualTo("2");
    assertThat(
            json(applied
                    .at("/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration")
                    .asText())
                .at("/data/k")
                .asText())
        .isEqualTo("2");
  }

  @Test
  void ephemeralContainersAreAddedThroughTheirSubresourceOnlyAndNeverChanged() {
    service.create(
        PODS,
        "default",
        json(
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx\"}]}}"),
        ALICE);
    String strategic = "application/strategic-merge-patch+json";
    String debugger =
        "{\"spec\":{\"ephemeralContainers\":[{\"name\":\"debugger\",\"image\":\"busybox\","
            + "\"stdin\":true,\"tty\":true,\"targetContainerName\":\"web\"}]}}";

    ObjectNode patched =
        service
            .patch(PODS, "default", "web", "ephemeralcontainers", strategic, json(debugger), ALICE)
            .object();

    assertThat(patched.at("/spec/ephemeralContainers/0/name").asText()).isEqualTo("debugger");
    assertThat(patched.at("/spec/ephemeralContainers/0/targetContainerName").asText())
        .isEqualTo("web");
    assertThat(store.commands().get(store.commands().size() - 1).getSubresource())
        .isEqualTo("ephemeralcontainers");
    assertThatThrownBy(
            () ->
                service.patch(
                    PODS,
                    "default",
                    "web",
                    "ephemeralcontainers",
                    strategic,
                    json(debugger.replace("busybox", "alpine")),
                    ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.status().path("message").asText())
                    .contains(
                        "spec.ephemeralContainers: Forbidden: existing ephemeral containers"
                            + " \"debugger\" may not be changed"));
    assertThatThrownBy(
            () ->
                service.patch(
                    PODS,
                    "default",
                    "web",
                    "ephemeralcontainers",
                    strategic,
                    json(
                        "{\"spec\":{\"ephemeralContainers\":[{\"name\":\"web\",\"image\":\"busybox\","
                            + "\"ports\":[{\"containerPort\":80}]}]}}"),
                    ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e ->
                assertThat(e.status().path("message").asText())
                    .contains(".name: Duplicate value: \"web\"")
                    .contains(".ports: Forbidden: cannot be set for an Ephemeral Container"));
  }

  @Test
  void aStrategicMergePatchOfTheWrongShapeIsKubeApiserversInvalidPatch() {
    createConfigMap("shaped");

    assertThatThrownBy(
            () ->
                service.patch(
                    CONFIG_MAPS,
                    "default",
                    "shaped",
                    "",
                    "application/strategic-merge-patch+json",
                    json("{\"metadata\":{\"labels\":\"invalid\"}}"),
                    ALICE))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(422);
              assertThat(e.status().path("message").asText())
                  .isEqualTo(
                      " \"\" is invalid: patch: Invalid value:"
                          + " \"map[metadata:map[labels:invalid]]\": cannot restore map from string");
            });
  }

  private ObjectNode createIPAddress(String name) {
    return service
        .create(
            IP_ADDRESSES,
            null,
            json(
                "{\"apiVersion\":\"networking.k8s.io/v1beta1\",\"kind\":\"IPAddress\","
                    + "\"metadata\":{\"name\":\""
                    + name
                    + "\"},\"spec\":{\"parentRef\":{\"resource\":\"services\","
                    + "\"namespace\":\"default\",\"name\":\"web\"}}}"),
            ALICE)
        .object();
  }

  @Test
  void anIPAddressInTheLoopbackServiceRangeIsStoredOnceUnderItsAddress() {
    ObjectNode created = createIPAddress("127.96.0.5");

    assertThat(created.path("apiVersion").asText()).isEqualTo("networking.k8s.io/v1beta1");
    assertThat(created.path("metadata").has("namespace")).isFalse();
    assertThat(created.path("spec").path("parentRef").path("name").asText()).isEqualTo("web");
    assertThat(service.get(IP_ADDRESSES, null, "127.96.0.5")).isEqualTo(created);
    assertThatThrownBy(() -> createIPAddress("127.96.0.5"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(409);
              assertThat(e.reason()).isEqualTo("AlreadyExists");
              assertThat(e.status().path("message").asText())
                  .isEqualTo("ipaddresses.networking.k8s.io \"127.96.0.5\" already exists");
            });
  }

  @Test
  void anIPAddressNamedOtherwiseThanByItsCanonicalAddressIsInvalid() {
    assertThatThrownBy(() -> createIPAddress("127.096.0.5"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(422);
              assertThat(e.reason()).isEqualTo("Invalid");
              assertThat(e.status().path("message").asText())
                  .isEqualTo(
                      "IPAddress.networking.k8s.io \"127.096.0.5\" is invalid: metadata.name:"
                          + " Invalid value: \"127.096.0.5\": ParseAddr(\"127.096.0.5\"): IPv4"
                          + " field has octet with leading zero");
            });
    assertThatThrownBy(() -> createIPAddress("foo"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(422);
              assertThat(e.status().path("message").asText())
                  .isEqualTo(
                      "IPAddress.networking.k8s.io \"foo\" is invalid: metadata.name: Invalid"
                          + " value: \"foo\": ParseAddr(\"foo\"): unable to parse IP");
              assertThat(e.status().path("details").path("causes").get(0).path("field").asText())
                  .isEqualTo("metadata.name");
            });
  }
}
