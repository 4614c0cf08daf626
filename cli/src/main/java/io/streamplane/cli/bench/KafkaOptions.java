package io.streamplane.cli.bench;

import io.streamplane.cli.roles.KafkaConfigOption;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options of the scenarios that read a Streamplane cluster's Kafka directly. */
final class KafkaOptions {

  @Option(
      names = "--bootstrap-server",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:19092",
      description = "The cluster's Kafka (default: ${DEFAULT-VALUE}).")
  String bootstrapServers;

  @Option(
      names = "--cluster",
      paramLabel = "NAME",
      defaultValue = "sp",
      description = "Cluster name, the prefix of its topics (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Mixin KafkaConfigOption kafkaConfig;
}
