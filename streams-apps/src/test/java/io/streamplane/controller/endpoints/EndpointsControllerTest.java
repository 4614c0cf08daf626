package io.streamplane.controller.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.EndpointSlice;
import io.streamplane.api.EndpointSubset;
import io.streamplane.api.Endpoints;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.Service;
import io.streamplane.controller.ControllersTopology;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 * The subsets of a selecting Service's Endpoints, and, through the controllers' topology with the
 * test playing the store, the mirroring of a selector-less Service's Endpoints into EndpointSlices.
 */
class EndpointsControllerTest {

  private static final KubeJson JSON = new KubeJson();
  private static final String MIRRORING =
      "system:serviceaccount:kube-system:endpointslicemirroring-controller";
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  private final Topics topics =
      new Topics(TopicLayout.singleBroker("t"), new InMemorySchemaCatalog());
  private TopologyTestDriver driver;
  private TestInputTopic<String, ResourceEvent> events;
  private TestOutputTopic<String, ResourceCommand> commands;
  private long version = 1;

  @BeforeEach
  void start() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "endpoints-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir") + "/endpoints-test-" + UUID.randomUUID());
    driver = new TopologyTestDriver(ControllersTopology.buildTopology(topics), props, T0);
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

  private static <T extends org.apache.avro.specific.SpecificRecord> T avro(
      String json, Class<T> type) {
    return JSON.toAvro(
            (com.fasterxml.jackson.databind.node.ObjectNode)
                KubeJson.parseJson(json.replace('\'', '"')),
            type)
        .record();
  }

  private static Pod pod(String name, String ip, boolean ready, String extra) {
    return avro(
        "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'"
            + name
            + "','namespace':'default','uid':'u-"
            + name
            + "','labels':{'app':'web'}"
            + extra
            + "},'spec':{'nodeName':'node-0','containers':[{'name':'c','image':'nginx',"
            + "'ports':[{'name':'http','containerPort':8080}]}]},"
            + "'status':{'phase':'Running','podIP':'"
            + ip
            + "','conditions':[{'type':'Ready','status':'"
            + (ready ? "True" : "False")
            + "'}]}}",
        Pod.class);
  }

  private static Service service(String extra) {
    return avro(
        "{'apiVersion':'v1','kind':'Service','metadata':{'name':'web','namespace':'default'},"
            + "'spec':{'selector':{'app':'web'},'ports':[{'name':'http','port':80,"
            + "'protocol':'TCP','targetPort':'http'}]"
            + extra
            + "}}",
        Service.class);
  }

  @Test
  void readyPodsAreAddressesTheOthersNotReadyAtTheNamedTargetPortSortedByIp() {
    List<EndpointSubset> subsets =
        EndpointsController.subsets(
            service(""),
            List.of(
                pod("b", "127.1.0.3", true, ""),
                pod("a", "127.1.0.2", true, ""),
                pod("c", "127.1.0.4", false, ""),
                pod("gone", "127.1.0.5", true, ",'deletionTimestamp':'2024-05-01T10:00:00Z'")));

    assertThat(subsets).hasSize(1);
    EndpointSubset subset = subsets.get(0);
    assertThat(subset.getAddresses())
        .extracting(a -> a.getIp())
        .containsExactly("127.1.0.2", "127.1.0.3");
    assertThat(subset.getNotReadyAddresses())
        .extracting(a -> a.getIp())
        .containsExactly("127.1.0.4");
    assertThat(subset.getPorts().get(0).getPort()).isEqualTo(8080);
    assertThat(subset.getPorts().get(0).getName()).isEqualTo("http");
    assertThat(subset.getAddresses().get(0).getTargetRef().getName()).isEqualTo("a");
  }

  @Test
  void publishNotReadyAddressesMakesEveryPodAnAddress() {
    List<EndpointSubset> subsets =
        EndpointsController.subsets(
            service(",'publishNotReadyAddresses':true"), List.of(pod("a", "127.1.0.2", false, "")));

    assertThat(subsets.get(0).getAddresses())
        .extracting(a -> a.getIp())
        .containsExactly("127.1.0.2");
    assertThat(subsets.get(0).getNotReadyAddresses()).isNull();
  }

  @Test
  void theEndpointsOfAServiceWithoutASelectorAreMirroredOnceAndTheirSlicesGoWithThem() {
    Endpoints endpoints = kubernetesEndpoints();
    send(EventType.ADDED, "services", "", kubernetesService(""));
    send(EventType.ADDED, "endpoints", "", endpoints);

    ResourceCommand create = single(sent());
    assertThat(create.getVerb()).isEqualTo(CommandVerb.CREATE);
    assertThat(create.getResource()).isEqualTo("endpointslices");
    assertThat(create.getActor().getUsername()).isEqualTo(MIRRORING);
    EndpointSlice slice = (EndpointSlice) KindObjects.of(create);
    assertThat(slice.getMetadata().getLabels())
        .containsEntry("kubernetes.io/service-name", "kubernetes")
        .containsEntry(
            "endpointslice.kubernetes.io/managed-by", "endpointslicemirroring-controller.k8s.io");
    assertThat(slice.getEndpoints())
        .extracting(e -> e.getAddresses().get(0))
        .containsExactly("127.0.0.1");

    EndpointSlice stored = stored(slice);
    send(EventType.ADDED, "endpointslices", "discovery.k8s.io", stored);
    send(EventType.MODIFIED, "endpoints", "", stored(endpoints));
    assertThat(sent()).as("converged: nothing rewritten").isEmpty();

    // The garbage collector deletes it too, the Endpoints being its owner, as in Kubernetes.
    send(EventType.DELETED, "endpoints", "", endpoints);
    assertThat(sent())
        .extracting(c -> c.getVerb() + " " + c.getName() + " " + c.getActor().getUsername())
        .contains("DELETE " + stored.getMetadata().getName() + " " + MIRRORING);
  }

  @Test
  void aServiceWithASelectorIsNotMirroredAndOneThatGainsASelectorLosesItsMirroredSlices() {
    send(EventType.ADDED, "services", "", kubernetesService(",'selector':{'app':'api'}"));
    send(EventType.ADDED, "endpoints", "", kubernetesEndpoints());
    assertThat(sent()).noneMatch(c -> c.getActor().getUsername().equals(MIRRORING));

    send(EventType.MODIFIED, "services", "", kubernetesService(""));
    EndpointSlice mirrored = (EndpointSlice) KindObjects.of(single(sent()));
    send(EventType.ADDED, "endpointslices", "discovery.k8s.io", stored(mirrored));
    assertThat(sent()).isEmpty();

    send(EventType.MODIFIED, "services", "", kubernetesService(",'selector':{'app':'api'}"));
    assertThat(sent())
        .filteredOn(c -> c.getActor().getUsername().equals(MIRRORING))
        .singleElement()
        .satisfies(c -> assertThat(c.getVerb()).isEqualTo(CommandVerb.DELETE))
        .satisfies(c -> assertThat(c.getName()).isEqualTo(mirrored.getMetadata().getName()));
  }

  @Test
  void aDeletedServiceLosesItsMirroredSlicesAndItsEndpoints() {
    send(EventType.ADDED, "services", "", kubernetesService(""));
    send(EventType.ADDED, "endpoints", "", kubernetesEndpoints());
    EndpointSlice mirrored = (EndpointSlice) KindObjects.of(single(sent()));
    send(EventType.ADDED, "endpointslices", "discovery.k8s.io", stored(mirrored));

    send(EventType.DELETED, "services", "", kubernetesService(""));
    assertThat(sent())
        .extracting(c -> c.getVerb() + " " + c.getResource() + "/" + c.getName())
        .containsExactlyInAnyOrder(
            "DELETE endpoints/kubernetes",
            "DELETE endpointslices/" + mirrored.getMetadata().getName());
  }

  private static Service kubernetesService(String selector) {
    return avro(
        "{'apiVersion':'v1','kind':'Service','metadata':{'name':'kubernetes',"
            + "'namespace':'default','uid':'svc-uid','resourceVersion':'1'},'spec':{"
            + "'clusterIP':'127.96.0.1','ports':[{'name':'https','port':443,'protocol':'TCP',"
            + "'targetPort':6443}]"
            + selector
            + "}}",
        Service.class);
  }

  private static Endpoints kubernetesEndpoints() {
    return avro(
        "{'apiVersion':'v1','kind':'Endpoints','metadata':{'name':'kubernetes',"
            + "'namespace':'default','uid':'ep-uid','resourceVersion':'1'},'subsets':[{"
            + "'addresses':[{'ip':'127.0.0.1'}],"
            + "'ports':[{'name':'https','port':6443,'protocol':'TCP'}]}]}",
        Endpoints.class);
  }

  /** What the store would emit after accepting a write of {@code object}. */
  private <T extends SpecificRecord> T stored(T object) {
    ObjectMeta meta = KubeObjects.meta(object);
    return KubeObjects.withMeta(
        object,
        ObjectMeta.newBuilder(meta)
            .setUid(meta.getUid() == null ? "uid-" + meta.getName() : meta.getUid())
            .setResourceVersion(Long.toString(++version))
            .build());
  }

  private void send(EventType type, String resource, String group, SpecificRecord object) {
    ObjectMeta meta = KubeObjects.meta(object);
    ResourceEvent event =
        ResourceEvent.newBuilder()
            .setType(type)
            .setResource(resource)
            .setGroup(group)
            .setNamespace("default")
            .setName(meta.getName())
            .setEncodedObject(KindObjects.encode(object))
            .setResourceVersion(++version)
            .setCommandId(UUID.randomUUID().toString())
            .setActor(UserInfo.newBuilder().setUsername("test").build())
            .build();
    events.pipeInput(resource + "." + group + "/default/" + meta.getName(), event, T0);
    driver.advanceWallClockTime(Duration.ofSeconds(1));
  }

  private List<ResourceCommand> sent() {
    return commands.readValuesToList();
  }

  private static ResourceCommand single(List<ResourceCommand> sent) {
    assertThat(sent).hasSize(1);
    return sent.get(0);
  }
}
