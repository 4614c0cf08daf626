package io.streamplane.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientSettingsTest {

  @TempDir Path dir;

  @AfterEach
  void forgetTheProcessSettings() {
    KafkaClientSettings.use(KafkaClientSettings.NONE);
  }

  @Test
  void aPropertiesFileIsReadAsKafkaReadsItsClientConfigs() throws IOException {
    Path file =
        write(
            "# SASL/SCRAM over TLS",
            "security.protocol=SASL_SSL",
            "sasl.mechanism: SCRAM-SHA-512",
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\",
            "    username=\"streamplane\" password=\"s3cret\";",
            "ssl.truststore.location=/etc/kafka/ca.p12");

    KafkaClientSettings settings = KafkaClientSettings.load(file);

    assertThat(settings.settings())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required"
                        + " username=\"streamplane\" password=\"s3cret\";",
                "ssl.truststore.location", "/etc/kafka/ca.p12"));
    assertThat(settings.toString()).contains(file.toString()).doesNotContain("s3cret");
  }

  @Test
  void everyClientBuiltAfterUseGetsTheSettingsUnderStreamplanesOwn() throws IOException {
    KafkaClientSettings.use(KafkaClientSettings.load(write("security.protocol=SSL", "acks=1")));

    Properties props = new Properties();
    props.put("bootstrap.servers", "kafka:9093");
    KafkaClientSettings.applyTo(props);
    props.put("acks", "all");

    assertThat(props)
        .containsEntry("bootstrap.servers", "kafka:9093")
        .containsEntry("security.protocol", "SSL")
        .containsEntry("acks", "all");
    assertThat(KafkaClientSettings.clientConfig("kafka:9093"))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("bootstrap.servers", "kafka:9093", "security.protocol", "SSL", "acks", "1"));
  }

  @Test
  void withoutSettingsAClientGetsOnlyItsBootstrapServers() {
    assertThat(KafkaClientSettings.current()).isSameAs(KafkaClientSettings.NONE);
    assertThat(KafkaClientSettings.clientConfig("kafka:9092"))
        .containsExactlyEntriesOf(Map.of("bootstrap.servers", "kafka:9092"));
  }

  @Test
  void aFileSettingWhatStreamplaneOwnsIsRefusedNamingEverySuchSetting() throws IOException {
    Path file =
        write(
            "security.protocol=SASL_SSL",
            "isolation.level=read_uncommitted",
            "producer.transactional.id=mine",
            "main.consumer.key.deserializer=org.example.Mine",
            "processing.guarantee=at_least_once");

    assertThatThrownBy(() -> KafkaClientSettings.load(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            file
                + " sets isolation.level, main.consumer.key.deserializer, processing.guarantee,"
                + " producer.transactional.id: Streamplane sets these itself (the brokers with"
                + " --bootstrap-server); remove them from the Kafka client settings");
    assertThat(KafkaClientSettings.current()).isSameAs(KafkaClientSettings.NONE);
  }

  @Test
  void eachSettingStreamplaneOwnsIsRefused() {
    for (String owned :
        new String[] {
          "bootstrap.servers",
          "application.id",
          "key.serializer",
          "value.serializer",
          "key.deserializer",
          "value.deserializer",
          "default.key.serde",
          "default.value.serde",
          "processing.guarantee",
          "transactional.id",
          "isolation.level",
          "group.id",
          "enable.auto.commit"
        }) {
      assertThatThrownBy(() -> KafkaClientSettings.of(Map.of(owned, "x"), "test"))
          .as(owned)
          .hasMessageStartingWith("test sets " + owned + ": Streamplane sets this itself");
    }
  }

  @Test
  void anUnreadableFileIsAnErrorNamingIt() {
    Path missing = dir.resolve("missing.properties");

    assertThatThrownBy(() -> KafkaClientSettings.load(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("cannot read Kafka client settings from " + missing);
  }

  private Path write(String... lines) throws IOException {
    return Files.write(dir.resolve("kafka.properties"), List.of(lines));
  }
}
