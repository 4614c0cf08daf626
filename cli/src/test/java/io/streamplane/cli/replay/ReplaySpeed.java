package io.streamplane.cli.replay;

import io.streamplane.api.Container;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.cli.Streamplane;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;

/**
 * Measures {@code replay --until} on a generated log: starts an embedded broker, writes {@code
 * events} (default 1,000,000) of Pods with the real serde — {@code keys} pods (default 100,000) in
 * 100 namespaces, each added, modified until its share of the events is written, and every tenth
 * deleted at the end — then runs {@code streamplane replay --until now} and prints the replay's own
 * rate line. Not a test: run its {@code main} with the test class path.
 */
public final class ReplaySpeed {

  private ReplaySpeed() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startTemporary()) {
      String bootstrap = broker.bootstrapServers();
      TopicLayout layout = TopicLayout.singleBroker("speed");
      try (Admin admin = Admin.create(broker.clientProperties())) {
        TopicInitializer initializer = new TopicInitializer(admin);
        initializer.ensure(List.of(Topics.schemasSpec(layout)));
        try (KafkaSchemaCatalog catalog =
            new KafkaSchemaCatalog(bootstrap, layout.topicName(Topics.SCHEMAS))) {
          Topics topics = new Topics(layout, catalog);
          initializer.ensure(topics.all());
          long started = System.nanoTime();
          write(bootstrap, topics, events, keys);
          System.err.printf(
              "wrote %,d events for %,d pods in %.1f s%n",
              events, keys, (System.nanoTime() - started) / 1e9);
        }
      }
      // Twice: the first run includes the JIT's warm-up. The process CPU time includes the
      // broker's serving of the fetches, which runs in this process too.
      for (int run = 1; run <= 2; run++) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new Streamplane());
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        long cpu = processCpuNanos();
        int exit =
            cmd.execute(
                "replay",
                "--until",
                Instant.now().plusSeconds(1).toString(),
                "--bootstrap-server",
                bootstrap,
                "--cluster",
                "speed");
        System.err.printf(
            "run %d: exit %d, %,d table lines, %.1f s of CPU (process, broker included)%n",
            run, exit, out.toString().lines().count(), (processCpuNanos() - cpu) / 1e9);
        System.err.print(err);
      }
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void write(String bootstrap, Topics topics, int events, int keys)
      throws Exception {
    UserInfo actor =
        UserInfo.newBuilder()
            .setUsername("system:serviceaccount:kube-system:replicaset-controller")
            .setGroups(List.of("system:serviceaccounts"))
            .build();
    try (KafkaProducer<String, ResourceEvent> producer =
        new KafkaProducer<>(
            Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024,
                ProducerConfig.ACKS_CONFIG,
                "1"),
            new StringSerializer(),
            topics.events().valueSerde().serializer())) {
      int versions = Math.max(1, events / keys);
      long offset = 0;
      for (int v = 0; v < versions; v++) {
        for (int k = 0; k < keys && offset < events; k++) {
          String namespace = "ns-" + (k % 100);
          String name = "pod-" + k;
          EventType type =
              v == 0
                  ? EventType.ADDED
                  : v == versions - 1 && k % 10 == 0 ? EventType.DELETED : EventType.MODIFIED;
          Pod pod =
              Pod.newBuilder()
                  .setApiVersion("v1")
                  .setKind("Pod")
                  .setMetadata(
                      ObjectMeta.newBuilder()
                          .setNamespace(namespace)
                          .setName(name)
                          .setUid("uid-" + k)
                          .setResourceVersion(Long.toString(offset + 1))
                          .setLabels(Map.of("app", "web-" + (k % 50), "tier", "frontend"))
                          .setCreationTimestamp(Instant.parse("2026-01-01T00:00:00Z"))
                          .build())
                  .setSpec(
                      PodSpec.newBuilder()
                          .setNodeName("node-" + (k % 1000))
                          .setContainers(
                              List.of(
                                  Container.newBuilder()
                                      .setName("web")
                                      .setImage("nginx:1.27")
                                      .build()))
                          .build())
                  .build();
          ResourceEvent event =
              ResourceEvent.newBuilder()
                  .setType(type)
                  .setResource("pods")
                  .setNamespace(namespace)
                  .setName(name)
                  .setEncodedObject(KindObjects.encode(pod))
                  .setResourceVersion(offset)
                  .setCommandId("cmd-" + offset)
                  .setActor(actor)
                  .build();
          String key = new ResourceKey("pods", "", namespace, name).toString();
          producer.send(new ProducerRecord<>(topics.events().name(), key, event));
          offset++;
        }
      }
      producer.flush();
    }
  }
}
