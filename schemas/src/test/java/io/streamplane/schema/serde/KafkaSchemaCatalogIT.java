package io.streamplane.schema.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(KafkaBrokerExtension.class)
class KafkaSchemaCatalogIT {

  private static final Schema NEWER_WRITER =
      new Schema.Parser()
          .parse(
              "{\"type\":\"record\",\"name\":\"Probe\",\"namespace\":\"test\",\"fields\":"
                  + "[{\"name\":\"a\",\"type\":\"string\"}]}");

  @Test
  void aSchemaRegisteredByOneProcessIsFoundByAnotherStartedEarlier(EmbeddedKafkaBroker broker) {
    String topic = schemasTopic(broker);
    try (KafkaSchemaCatalog reader = new KafkaSchemaCatalog(broker.bootstrapServers(), topic);
        KafkaSchemaCatalog writer = new KafkaSchemaCatalog(broker.bootstrapServers(), topic)) {
      long fingerprint = InMemorySchemaCatalog.fingerprint(NEWER_WRITER);
      assertThat(reader.findByFingerprint(fingerprint)).isNull();

      writer.register(NEWER_WRITER);

      assertThat(reader.findByFingerprint(fingerprint)).isEqualTo(NEWER_WRITER);
    }
  }

  @Test
  void aCatalogStartedLaterLoadsWhatTheTopicHolds(EmbeddedKafkaBroker broker) {
    String topic = schemasTopic(broker);
    try (KafkaSchemaCatalog writer = new KafkaSchemaCatalog(broker.bootstrapServers(), topic)) {
      writer.register(NEWER_WRITER);
    }
    try (KafkaSchemaCatalog later = new KafkaSchemaCatalog(broker.bootstrapServers(), topic)) {
      assertThat(later.findByFingerprint(InMemorySchemaCatalog.fingerprint(NEWER_WRITER)))
          .isEqualTo(NEWER_WRITER);
    }
  }

  private static String schemasTopic(EmbeddedKafkaBroker broker) {
    TopicLayout layout =
        TopicLayout.singleBroker(
            KafkaBrokerExtension.uniqueName("s").replaceAll("[^a-zA-Z0-9_-]", "-"));
    try (Admin admin = Admin.create(broker.clientProperties())) {
      new TopicInitializer(admin).ensure(List.of(Topics.schemasSpec(layout)));
    }
    return layout.topicName(Topics.SCHEMAS);
  }
}
