package io.streamplane.cli.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.api.Deployment;
import io.streamplane.cli.Streamplane;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
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
 * {@code streamplane history} against a real broker: the events of one Deployment, written with
 * Kafka's default partitioner among events of other keys (some in the same partition), read back
 * through the command line.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HistoryIT {

  private static final int PARTITIONS = 3;
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  // Partition 1 of 3 but 4 of 6: a scan hashing with --partitions' default instead of the topic's
  // real count would miss it.
  private static final ResourceKey NGINX =
      new ResourceKey("deployments", "apps", "default", "nginx");

  private final KubeJson kubeJson = new KubeJson();
  private String bootstrap;
  private String cluster;

  @BeforeAll
  void writeEvents(EmbeddedKafkaBroker broker) throws Exception {
    assertThat(NGINX.partition(PARTITIONS)).isNotEqualTo(NGINX.partition(6));
    bootstrap = broker.bootstrapServers();
    cluster = KafkaBrokerExtension.uniqueName("hist");
    // Not the default of --partitions (6): the scan must hash with the topic's real count.
    TopicLayout layout = new TopicLayout(cluster, PARTITIONS, 1, 1, (short) 1);
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        ClusterTopics ready = ClusterTopics.ensure(admin, bootstrap, layout)) {
      Topics topics = ready.topics();
      try (KafkaProducer<String, ResourceEvent> producer =
          new KafkaProducer<>(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
              new StringSerializer(),
              topics.events().valueSerde().serializer())) {
        String topic = topics.events().name();
        ResourceKey neighbour = sharingPartitionWith(NGINX);
        ResourceKey otherNamespace = new ResourceKey("deployments", "apps", "other", "nginx");
        List<ResourceEvent> events = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        add(events, keys, NGINX, EventType.ADDED, 1, "uid-1", 1, "alice", "devs");
        add(events, keys, neighbour, EventType.ADDED, 2, "uid-n", 1, "alice", "devs");
        add(events, keys, otherNamespace, EventType.ADDED, 3, "uid-o", 1, "alice", "devs");
        add(events, keys, NGINX, EventType.MODIFIED, 4, "uid-1", 3, "bob", "ops");
        add(events, keys, neighbour, EventType.MODIFIED, 5, "uid-n", 9, "bob", "ops");
        add(
            events,
            keys,
            NGINX,
            EventType.MODIFIED,
            6,
            "uid-1",
            5,
            "system:serviceaccount:kube-system:deployment-controller",
            "system:serviceaccounts");
        add(events, keys, NGINX, EventType.DELETED, 7, "uid-1", 5, "carol", "admins");
        add(events, keys, NGINX, EventType.ADDED, 8, "uid-2", 2, "dave", "devs");
        for (int i = 0; i < events.size(); i++) {
          long time = T0.plusSeconds(60L * i).toEpochMilli();
          producer.send(new ProducerRecord<>(topic, null, time, keys.get(i), events.get(i))).get();
        }
      }
    }
  }

  @Test
  void jsonOutputListsEveryVersionOldestFirstWithActorsAndTheNewUid() throws Exception {
    Run run = history("deploy/nginx", "-o", "json");

    assertThat(run.exit).as(run.err).isZero();
    JsonNode versions = new ObjectMapper().readTree(run.out);
    assertThat(field(versions, "type"))
        .containsExactly("ADDED", "MODIFIED", "MODIFIED", "DELETED", "ADDED");
    assertThat(field(versions, "resourceVersion")).containsExactly("2", "5", "7", "8", "9");
    assertThat(field(versions, "uid")).containsExactly("uid-1", "uid-1", "uid-1", "uid-1", "uid-2");
    assertThat(versions.get(1).path("actor").path("username").asText()).isEqualTo("bob");
    assertThat(versions.get(1).path("actor").path("groups").get(0).asText()).isEqualTo("ops");
    assertThat(versions.get(2).path("actor").path("username").asText())
        .isEqualTo("system:serviceaccount:kube-system:deployment-controller");
    assertThat(versions.get(0).path("time").asText()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(versions.get(1).path("object").path("spec").path("replicas").asInt()).isEqualTo(3);
    assertThat(versions.get(0).path("object").path("kind").asText()).isEqualTo("Deployment");
  }

  @Test
  void textOutputShowsTheChangedFieldAsADiffAndTheUidChange() {
    Run run = history("deployments.apps/nginx", "-n", "default");

    assertThat(run.exit).as(run.err).isZero();
    assertThat(run.out)
        .contains("=== ADDED  2026-01-01T10:00:00Z  resourceVersion 2")
        .contains("actor: bob  groups: [ops]")
        .contains("--- resourceVersion 2\n+++ resourceVersion 5")
        .contains("\n-  replicas: 1\n+  replicas: 3\n")
        .contains("uid:   uid-2  (new object: was uid-1)");
    assertThat(run.out)
        .doesNotContain("replicas: 9")
        .doesNotContain("uid-n")
        .doesNotContain("uid-o");
  }

  @Test
  void sinceAndUntilKeepTheVersionsStampedBetweenThem() throws Exception {
    Run run =
        history(
            "deployment/nginx",
            "--since",
            "2026-01-01T10:03:00Z",
            "--until",
            "2026-01-01T10:06:00Z",
            "-o",
            "yaml");

    assertThat(run.exit).as(run.err).isZero();
    JsonNode versions =
        new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(run.out);
    assertThat(field(versions, "resourceVersion")).containsExactly("5", "7", "8");
  }

  @Test
  void anObjectWithoutEventsIsReportedAndFails() {
    Run run = history("deploy/nobody");

    assertThat(run.exit).isEqualTo(1);
    assertThat(run.err).contains("no versions of deployments.apps/nobody in namespace default");
  }

  @Test
  void theGatewayAnswersWhatTheLogScanFinds(@TempDir Path dir) throws Exception {
    TopicLayout layout = new TopicLayout(cluster, PARTITIONS, 1, 1, (short) 1);
    try (KafkaSchemaCatalog catalog =
            new KafkaSchemaCatalog(bootstrap, layout.topicName(Topics.SCHEMAS));
        GatewayServer gateway =
            GatewayServer.start(bootstrap, new Topics(layout, catalog), "127.0.0.1", 0, 0)) {
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(
          kubeconfig,
          """
          apiVersion: v1
          kind: Config
          clusters: [{name: c, cluster: {server: "%s"}}]
          contexts: [{name: c, context: {cluster: c, user: u}}]
          users: [{name: u, user: {}}]
          current-context: c
          """
              .formatted(gateway.url()));
      for (List<String> args :
          List.of(
              List.of("deploy/nginx"),
              List.of("deploy/nginx", "-o", "json"),
              List.of(
                  "deployment/nginx",
                  "--since",
                  "2026-01-01T10:03:00Z",
                  "--until",
                  "2026-01-01T10:06:00Z"))) {
        Run fromLog = history(args.toArray(String[]::new));
        Run fromGateway = run(args, List.of("--kubeconfig", kubeconfig.toString()));

        assertThat(fromGateway.exit).as(fromGateway.err).isZero();
        assertThat(fromGateway.out).as("history %s", args).isEqualTo(fromLog.out);
      }
      Run none = run(List.of("deploy/nobody"), List.of("--kubeconfig", kubeconfig.toString()));
      assertThat(none.exit).isEqualTo(1);
      assertThat(none.err).contains("no versions of deployments.apps/nobody");
    }
  }

  private record Run(int exit, String out, String err) {}

  private Run run(List<String> args, List<String> source) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(new Streamplane());
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>(List.of("history"));
    all.addAll(args);
    all.addAll(source);
    int exit = cmd.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  private Run history(String... args) {
    return run(List.of(args), List.of("--bootstrap-server", bootstrap, "--cluster", cluster));
  }

  private static List<String> field(JsonNode versions, String name) {
    return StreamSupport.stream(versions.spliterator(), false)
        .map(v -> v.path(name).asText())
        .toList();
  }

  private static ResourceKey sharingPartitionWith(ResourceKey key) {
    for (int i = 0; ; i++) {
      ResourceKey candidate = new ResourceKey("deployments", "apps", "default", "nginx-" + i);
      if (candidate.partition(PARTITIONS) == key.partition(PARTITIONS)) {
        return candidate;
      }
    }
  }

  private void add(
      List<ResourceEvent> events,
      List<String> keys,
      ResourceKey key,
      EventType type,
      long version,
      String uid,
      int replicas,
      String user,
      String group) {
    String json =
        """
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "%s", "namespace": "%s", "uid": "%s", "resourceVersion": "%d"},
         "spec": {"replicas": %d}}
        """
            .formatted(key.name(), key.namespace(), uid, version + 1, replicas);
    Deployment deployment = kubeJson.toAvro(KubeJson.parseJson(json), Deployment.class).record();
    events.add(
        ResourceEvent.newBuilder()
            .setType(type)
            .setResource(key.resource())
            .setGroup(key.group())
            .setNamespace(key.namespace())
            .setName(key.name())
            .setEncodedObject(KindObjects.encode(deployment))
            .setResourceVersion(version)
            .setCommandId("cmd-" + version)
            .setActor(UserInfo.newBuilder().setUsername(user).setGroups(List.of(group)).build())
            .build());
    keys.add(key.toString());
  }
}
