package io.streamplane.controller;

import static org.awaitility.Awaitility.await;

import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Controllers scale by partitions, not leader election: a second instance with the same application
 * id takes a share of the partitions, and all of them when the first stops.
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
      // the events source, the by-owner, by-namespace, endpoints and by-node repartitions
      int total = 5 * layout.logPartitions();

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

  private static String ensureSchemasTopic(Admin admin, TopicLayout layout) {
    new TopicInitializer(admin).ensure(List.of(Topics.schemasSpec(layout)));
    return layout.topicName(Topics.SCHEMAS);
  }
}
