package io.streamplane.cli.roles;

import io.streamplane.kafka.KafkaClientSettings;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads the file of {@code --kafka-config}: a file that cannot be read, or that sets what
 * Streamplane sets itself, is a usage error (exit code 2) naming the file and the settings.
 */
public final class KafkaConfigFile implements ITypeConverter<KafkaClientSettings> {

  /** The option's description, shared by every command that takes it. */
  public static final String DESCRIPTION =
      "A Java properties file of Kafka client settings (security.protocol, sasl.*, ssl.*, ...)"
          + " given to every Kafka client of this process, as Kafka's tools take"
          + " --command-config. It cannot set what Streamplane sets itself (bootstrap.servers,"
          + " serializers, processing.guarantee, transactional.id, isolation.level,"
          + " application.id, group.id, enable.auto.commit).";

  @Override
  public KafkaClientSettings convert(String value) {
    try {
      return KafkaClientSettings.load(Path.of(value));
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
