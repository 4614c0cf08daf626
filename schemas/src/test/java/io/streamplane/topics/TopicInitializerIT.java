package io.streamplane.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(KafkaBrokerExtension.class)
class TopicInitializerIT {

  @Test
  void createsEveryTopicOnceAndFindsThemTheSecondTime(EmbeddedKafkaBroker broker) {
    Topics topics = topics();
    try (Admin admin = Admin.create(broker.clientProperties())) {
      TopicInitializer initializer = new TopicInitializer(admin);

      TopicInitializer.Outcome first = initializer.ensure(topics.all());
      TopicInitializer.Outcome second = initializer.ensure(topics.all());

      assertThat(first.created())
          .containsExactlyInAnyOrderElementsOf(topics.all().stream().map(TopicSpec::name).toList());
      assertThat(second.created()).isEmpty();
      assertThat(second.reconfigured()).isEmpty();
    }
  }

  @Test
  void putsBackATopicConfigThatWasChanged(EmbeddedKafkaBroker broker) throws Exception {
    Topics topics = topics();
    String events = topics.events().name();
    try (Admin admin = Admin.create(broker.clientProperties())) {
      TopicInitializer initializer = new TopicInitializer(admin);
      initializer.ensure(topics.all());
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, events);
      admin
          .incrementalAlterConfigs(
              Map.of(
                  resource,
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry(TopicConfig.RETENTION_MS_CONFIG, "60000"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();
      // The broker applies config changes from the metadata log a moment after the controller.
      await("the broker to see the changed retention")
          .atMost(Duration.ofSeconds(30))
          .until(() -> retention(admin, resource).equals("60000"));

      TopicInitializer.Outcome outcome = initializer.ensure(topics.all());

      assertThat(outcome.reconfigured()).containsExactly(events + " retention.ms=-1");
      await("the broker to see the repaired retention")
          .atMost(Duration.ofSeconds(30))
          .until(() -> retention(admin, resource).equals("-1"));
    }
  }

  private static String retention(Admin admin, ConfigResource resource) throws Exception {
    return admin
        .describeConfigs(List.of(resource))
        .all()
        .get()
        .get(resource)
        .get(TopicConfig.RETENTION_MS_CONFIG)
        .value();
  }

  @Test
  void refusesATopicWhosePartitionCountDiffers(EmbeddedKafkaBroker broker) throws Exception {
    Topics topics = topics();
    String commands = topics.commands().name();
    try (Admin admin = Admin.create(broker.clientProperties())) {
      admin.createTopics(List.of(new NewTopic(commands, 2, (short) 1))).all().get();

      assertThatThrownBy(() -> new TopicInitializer(admin).ensure(topics.all()))
          .isInstanceOf(TopicMismatchException.class)
          .hasMessageContaining(commands + " has 2 partitions but 6 are configured");
    }
  }

  private static Topics topics() {
    String cluster = KafkaBrokerExtension.uniqueName("c").replaceAll("[^a-zA-Z0-9_-]", "-");
    return new Topics(TopicLayout.singleBroker(cluster), new InMemorySchemaCatalog());
  }
}
