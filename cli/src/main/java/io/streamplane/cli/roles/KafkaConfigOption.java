package io.streamplane.cli.roles;

import io.streamplane.kafka.KafkaClientSettings;
import picocli.CommandLine.Option;

/**
 * {@code --kafka-config FILE}, as a picocli mixin of every command that talks to Kafka: the file's
 * settings become every Kafka client's in this process ({@link KafkaClientSettings#use}).
 */
public final class KafkaConfigOption {

  @Option(
      names = "--kafka-config",
      paramLabel = "FILE",
      converter = KafkaConfigFile.class,
      description = KafkaConfigFile.DESCRIPTION)
  void kafkaConfig(KafkaClientSettings settings) {
    KafkaClientSettings.use(settings == null ? KafkaClientSettings.NONE : settings);
  }
}
