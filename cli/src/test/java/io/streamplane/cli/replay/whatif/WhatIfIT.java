package io.streamplane.cli.replay.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.Node;
import io.streamplane.api.NodeSpec;
import io.streamplane.api.NodeStatus;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.ResourceRequirements;
import io.streamplane.cli.Streamplane;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The what-if command against a real broker: six 4-cpu nodes, then twelve 1-cpu pods created and
 * bound two per node (as a spreading scheduler does), written with the real serde across three
 * partitions; replayed through a MostAllocated profile, the report shows them on three nodes.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WhatIfIT {

  private static final int PARTITIONS = 3;
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final String MOST_ALLOCATED =
      """
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: KubeSchedulerConfiguration
      profiles:
      - schedulerName: default-scheduler
        pluginConfig:
        - name: NodeResourcesFit
          args:
            scoringStrategy:
              type: MostAllocated
      """;

  @TempDir Path dir;
  private String bootstrap;
  private String cluster;

  @BeforeAll
  void writeEvents(EmbeddedKafkaBroker broker) throws Exception {
    bootstrap = broker.bootstrapServers();
    cluster = KafkaBrokerExtension.uniqueName("whatif");
    TopicLayout layout = new TopicLayout(cluster, PARTITIONS, 1, 1, (short) 1);
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        ClusterTopics ready = ClusterTopics.ensure(admin, bootstrap, layout)) {
      Topics topics = ready.topics();
      try (KafkaProducer<String, ResourceEvent> producer =
          new KafkaProducer<>(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
              new StringSerializer(),
              topics.events().valueSerde().serializer())) {
        List<ResourceEvent> events = new ArrayList<>();
        for (int n = 0; n < 6; n++) {
          events.add(event(EventType.ADDED, "nodes", null, "node-" + n, node("node-" + n)));
        }
        for (int p = 0; p < 12; p++) {
          Pod pending = pod("web-" + p, null);
          events.add(event(EventType.ADDED, "pods", "default", "web-" + p, pending));
          Pod bound = pod("web-" + p, "node-" + (p % 6));
          events.add(event(EventType.MODIFIED, "pods", "default", "web-" + p, bound));
        }
        String topic = topics.events().name();
        for (int i = 0; i < events.size(); i++) {
          ResourceEvent e = events.get(i);
          String key =
              new ResourceKey(e.getResource(), e.getGroup(), e.getNamespace(), e.getName())
                  .toString();
          long time = T0.plusSeconds(i).toEpochMilli();
          producer.send(new ProducerRecord<>(topic, null, time, key, e)).get();
        }
      }
    }
  }

  @Test
  void aMostAllocatedProfilePacksTheWindowsPodsOnHalfTheNodes() throws Exception {
    Path config = Files.writeString(dir.resolve("most-allocated.yaml"), MOST_ALLOCATED);

    Run run = whatIf(config, "packed");

    assertThat(run.exit).as(run.err).isZero();
    String md = Files.readString(dir.resolve("packed.md"));
    assertThat(md)
        .contains("- Pods scheduled in the window: 12 (0 more")
        .contains("- Nodes used at the end: 6 really, 3 in the what-if, of 6")
        .contains("- Unschedulable: 0 really (pending at the end), 0 in the what-if")
        .contains("NodeResourcesFit scoringStrategy: MostAllocated over cpu 1, memory 1")
        .contains("| cpu, real | 6 | 50.0 % | 50.0 % | 50.0 % | 50.0 % | 50.0 % | 0 | 0 |")
        .contains("| cpu, what-if | 6 | 50.0 % | 0.0 % | 0.0 % | 100.0 % | 100.0 % | 3 | 3 |")
        .contains("decisions/s");
    assertThat(Files.readString(dir.resolve("packed.svg"))).startsWith("<svg").contains("what-if");
    assertThat(run.out).contains("3 in the what-if").contains("wrote ");
  }

  @Test
  void twoRunsOverTheSameLogWriteTheSameChartAndFigures() throws Exception {
    Path config = Files.writeString(dir.resolve("again.yaml"), MOST_ALLOCATED);

    assertThat(whatIf(config, "first").exit).isZero();
    assertThat(whatIf(config, "second").exit).isZero();

    assertThat(Files.readString(dir.resolve("second.svg")))
        .isEqualTo(Files.readString(dir.resolve("first.svg")));
    assertThat(figures(dir.resolve("second.md")).replace("(second.svg)", "(first.svg)"))
        .isEqualTo(figures(dir.resolve("first.md")));
  }

  @Test
  void aWindowStartingAfterTheBindingsHasNothingToReplay() throws Exception {
    Path config = Files.writeString(dir.resolve("late.yaml"), MOST_ALLOCATED);

    Run run = whatIf(config, "late", T0.plusSeconds(3000));

    assertThat(run.exit).as(run.err).isZero();
    assertThat(Files.readString(dir.resolve("late.md")))
        .contains("- Pods scheduled in the window: 0")
        .contains("- Nodes used at the end: 6 really, 6 in the what-if, of 6");
  }

  private record Run(int exit, String out, String err) {}

  private Run whatIf(Path config, String name) {
    return whatIf(config, name, T0.plusSeconds(5));
  }

  private Run whatIf(Path config, String name, Instant from) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(new Streamplane());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    List<String> args =
        new ArrayList<>(
            List.of(
                "replay",
                "--scheduler-config",
                config.toString(),
                "--from",
                from.toString(),
                "--until",
                T0.plusSeconds(3600).toString(),
                "--report-dir",
                dir.toString(),
                "--name",
                name,
                "--bootstrap-server",
                bootstrap,
                "--cluster",
                cluster));
    int exit = cmd.execute(args.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  /** The report up to the section that holds the timing. */
  private static String figures(Path md) throws Exception {
    String text = Files.readString(md);
    return text.substring(0, text.indexOf("## How it was run"));
  }

  private static Node node(String name) {
    return Node.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(name).setLabels(new HashMap<>()).build())
        .setSpec(NodeSpec.newBuilder().build())
        .setStatus(
            NodeStatus.newBuilder()
                .setAllocatable(Map.of("cpu", "4", "memory", "8Gi", "pods", "110"))
                .build())
        .build();
  }

  private static Pod pod(String name, String node) {
    Container c =
        Container.newBuilder()
            .setName("web")
            .setImage("nginx")
            .setResources(
                ResourceRequirements.newBuilder()
                    .setRequests(Map.of("cpu", "1", "memory", "1Gi"))
                    .build())
            .build();
    return Pod.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(name).setNamespace("default").build())
        .setSpec(PodSpec.newBuilder().setContainers(List.of(c)).setNodeName(node).build())
        .build();
  }

  private static ResourceEvent event(
      EventType type, String resource, String namespace, String name, SpecificRecord object) {
    return ResourceEvent.newBuilder()
        .setType(type)
        .setResource(resource)
        .setGroup("")
        .setNamespace(namespace)
        .setName(name)
        .setEncodedObject(KindObjects.encode(object))
        .setResourceVersion(1)
        .setCommandId("cmd-" + resource + "-" + name + "-" + type)
        .setActor(UserInfo.newBuilder().setUsername("test").setGroups(List.of()).build())
        .build();
  }
}
