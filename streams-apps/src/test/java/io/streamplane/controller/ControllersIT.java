package io.streamplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamplane.api.Container;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.api.ServiceSpec;
import io.streamplane.api.StorageClass;
import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.controller.volume.VolumeFixtures;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.testing.LogTaps;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Controllers scale by partitions, not leader election: a second instance with the same application
 * id takes a share of the partitions, and all of them when the first stops. And their writes reach
 * the store through the log: a Service's EndpointSlice, from the pods it selects.
 */
@ExtendWith(KafkaBrokerExtension.class)
class ControllersIT {

  @Test
  void aSecondInstanceSharesThePartitionsAndTakesThemAllWhenTheFirstStops(
      EmbeddedKafkaBroker broker, @TempDir Path state) throws Exception {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("ctl").replaceAll("[^a-zA-Z0-9_-]", "-"));
    try (Admin admin = Admin.create(broker.clientProperties());
        KafkaSchemaCatalog catalog =
            new KafkaSchemaCatalog(broker.bootstrapServers(), ensureSchemasTopic(admin, layout))) {
      Topics topics = new Topics(layout, catalog);
      new TopicInitializer(admin).ensure(topics.all());
      // the events source, the by-owner, by-namespace, endpoints, by-node, daemonset, job,
      // cronjob, disruption, statefulset, persistentvolume, volumeclaims and attachments
      // repartitions
      int total = 13 * layout.logPartitions();

      try (StreamsApp first =
          ControllersApp.start(
              topics,
              NodeLifecycleConfig.defaults(),
              topics.commands(),
              broker.bootstrapServers(),
              state.resolve("a"))) {
        await("the first instance to run every task")
            .atMost(Duration.ofSeconds(90))
            .until(
                () -> first.state() == KafkaStreams.State.RUNNING && first.activeTasks() == total);
        StreamsApp second =
            ControllersApp.start(
                topics,
                NodeLifecycleConfig.defaults(),
                topics.commands(),
                broker.bootstrapServers(),
                state.resolve("b"));
        try {
          await("the two instances to share the tasks")
              .atMost(Duration.ofSeconds(90))
              .until(
                  () ->
                      first.activeTasks() > 0
                          && second.activeTasks() > 0
                          && first.activeTasks() + second.activeTasks() == total);

          first.close();

          await("the second instance to take over every task")
              .atMost(Duration.ofSeconds(90))
              .until(() -> second.activeTasks() == total);
        } finally {
          second.close();
        }
      }
    }
  }

  @Test
  void aServiceWithAReadyPodGetsAnEndpointSliceOfItsAddressWrittenThroughTheStore(
      EmbeddedKafkaBroker broker, @TempDir Path state) throws Exception {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("eps").replaceAll("[^a-zA-Z0-9_-]", "-"));
    Map<String, EndpointSlice> slices = new ConcurrentHashMap<>();
    try (Admin admin = Admin.create(broker.clientProperties());
        KafkaSchemaCatalog catalog =
            new KafkaSchemaCatalog(broker.bootstrapServers(), ensureSchemasTopic(admin, layout))) {
      Topics topics = new Topics(layout, catalog);
      new TopicInitializer(admin).ensure(topics.all());
      String bootstrap = broker.bootstrapServers();
      Thread follower =
          LogTaps.followEvents(
              bootstrap,
              topics,
              "slices",
              record -> {
                if (KindObjects.of(record.value()) instanceof EndpointSlice slice) {
                  slices.put(slice.getMetadata().getName(), slice);
                }
              });
      try (StreamsApp store = StoreApp.start(topics, bootstrap, state.resolve("store"));
          StreamsApp controllers =
              ControllersApp.start(
                  topics,
                  NodeLifecycleConfig.defaults(),
                  topics.commands(),
                  bootstrap,
                  state.resolve("controllers"));
          KafkaProducer<String, ResourceCommand> producer = LogTaps.commands(bootstrap, topics)) {
        LogTaps.create(producer, topics, "services", "", "default", "web", service());
        LogTaps.create(producer, topics, "pods", "", "default", "web-0", readyPod());
        producer.flush();

        await("the EndpointSlice of web to hold its ready pod")
            .atMost(Duration.ofSeconds(90))
            .until(
                () ->
                    slices.values().stream()
                        .anyMatch(
                            slice ->
                                slice.getEndpoints() != null
                                    && slice.getEndpoints().size() == 1
                                    && slice
                                        .getEndpoints()
                                        .get(0)
                                        .getAddresses()
                                        .equals(List.of("127.1.0.2"))
                                    && slice.getEndpoints().get(0).getConditions().getReady()));
      } finally {
        follower.interrupt();
      }
    }
    EndpointSlice slice = slices.values().iterator().next();
    assertThat(slices).hasSize(1);
    assertThat(slice.getMetadata().getName()).startsWith("web-");
    assertThat(slice.getMetadata().getLabels())
        .containsEntry("kubernetes.io/service-name", "web")
        .containsEntry("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io");
    assertThat(slice.getPorts().get(0).getPort()).isEqualTo(8080);
  }

  @Test
  void aClaimIsBoundToTheVolumeThatMatchesItAndTheVolumeIsReleasedWhenTheClaimGoes(
      EmbeddedKafkaBroker broker, @TempDir Path state) throws Exception {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("pv").replaceAll("[^a-zA-Z0-9_-]", "-"));
    Map<String, SpecificRecord> latest = new ConcurrentHashMap<>();
    try (Admin admin = Admin.create(broker.clientProperties());
        KafkaSchemaCatalog catalog =
            new KafkaSchemaCatalog(broker.bootstrapServers(), ensureSchemasTopic(admin, layout))) {
      Topics topics = new Topics(layout, catalog);
      new TopicInitializer(admin).ensure(topics.all());
      String bootstrap = broker.bootstrapServers();
      Thread follower =
          LogTaps.followEvents(
              bootstrap,
              topics,
              "volumes",
              record -> {
                SpecificRecord object = (SpecificRecord) KindObjects.of(record.value());
                String key = record.value().getResource() + "/" + record.value().getName();
                if (record.value().getType() == EventType.DELETED) {
                  latest.remove(key);
                } else {
                  latest.put(key, object);
                }
              });
      try (StreamsApp store = StoreApp.start(topics, bootstrap, state.resolve("store"));
          StreamsApp controllers =
              ControllersApp.start(
                  topics,
                  NodeLifecycleConfig.defaults(),
                  topics.commands(),
                  bootstrap,
                  state.resolve("controllers"));
          KafkaProducer<String, ResourceCommand> producer = LogTaps.commands(bootstrap, topics)) {
        LogTaps.create(
            producer,
            topics,
            "storageclasses",
            "storage.k8s.io",
            null,
            "manual",
            VolumeFixtures.avro(
                "{'metadata': {'name': 'manual'}, 'provisioner': 'kubernetes.io/no-provisioner',"
                    + " 'reclaimPolicy': 'Retain', 'volumeBindingMode': 'Immediate'}",
                StorageClass.class));
        LogTaps.create(
            producer, topics, "persistentvolumes", "", null, "small", volume("small", "512Mi"));
        LogTaps.create(
            producer, topics, "persistentvolumes", "", null, "big", volume("big", "2Gi"));
        LogTaps.create(
            producer,
            topics,
            "persistentvolumeclaims",
            "",
            "default",
            "data",
            VolumeFixtures.avro(
                "{'metadata': {'name': 'data', 'namespace': 'default'}, 'spec': {"
                    + "'accessModes': ['ReadWriteOnce'], 'storageClassName': 'manual',"
                    + " 'volumeMode': 'Filesystem', 'resources': {'requests': {'storage':"
                    + " '1Gi'}}}}",
                PersistentVolumeClaim.class));
        producer.flush();

        await("the claim Bound to the one volume big enough")
            .atMost(Duration.ofSeconds(90))
            .until(
                () ->
                    latest.get("persistentvolumeclaims/data") instanceof PersistentVolumeClaim c
                        && c.getStatus() != null
                        && "Bound".equals(c.getStatus().getPhase())
                        && "big".equals(c.getSpec().getVolumeName())
                        && latest.get("persistentvolumes/big") instanceof PersistentVolume v
                        && "Bound".equals(v.getStatus().getPhase())
                        && "data".equals(v.getSpec().getClaimRef().getName()));
        assertThat(
                ((PersistentVolume) latest.get("persistentvolumes/small")).getStatus().getPhase())
            .isEqualTo("Available");

        LogTaps.delete(producer, topics, "persistentvolumeclaims", "", "default", "data");
        producer.flush();
        await("the volume Released, kept by its Retain policy")
            .atMost(Duration.ofSeconds(90))
            .until(
                () ->
                    latest.get("persistentvolumes/big") instanceof PersistentVolume v
                        && "Released".equals(v.getStatus().getPhase()));
      } finally {
        follower.interrupt();
      }
    }
  }

  private static PersistentVolume volume(String name, String size) {
    return VolumeFixtures.avro(
        "{'metadata': {'name': '"
            + name
            + "'}, 'spec': {'capacity': {'storage': '"
            + size
            + "'}, 'accessModes': ['ReadWriteOnce'], 'persistentVolumeReclaimPolicy': 'Retain',"
            + " 'storageClassName': 'manual', 'volumeMode': 'Filesystem',"
            + " 'hostPath': {'path': '/tmp/"
            + name
            + "'}}}",
        PersistentVolume.class);
  }

  private static Service service() {
    return Service.newBuilder()
        .setApiVersion("v1")
        .setKind("Service")
        .setMetadata(ObjectMeta.newBuilder().setName("web").setNamespace("default").build())
        .setSpec(
            ServiceSpec.newBuilder()
                .setType("ClusterIP")
                .setSessionAffinity("None")
                .setSelector(Map.of("app", "web"))
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
  }

  private static Pod readyPod() {
    return Pod.newBuilder()
        .setApiVersion("v1")
        .setKind("Pod")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("web-0")
                .setNamespace("default")
                .setLabels(Map.of("app", "web"))
                .build())
        .setSpec(
            PodSpec.newBuilder()
                .setNodeName("node-0")
                .setContainers(
                    List.of(Container.newBuilder().setName("c").setImage("nginx").build()))
                .build())
        .setStatus(
            PodStatus.newBuilder()
                .setPhase("Running")
                .setPodIP("127.1.0.2")
                .setConditions(
                    List.of(PodCondition.newBuilder().setType("Ready").setStatus("True").build()))
                .build())
        .build();
  }

  private static String ensureSchemasTopic(Admin admin, TopicLayout layout) {
    new TopicInitializer(admin).ensure(List.of(Topics.schemasSpec(layout)));
    return layout.topicName(Topics.SCHEMAS);
  }
}
