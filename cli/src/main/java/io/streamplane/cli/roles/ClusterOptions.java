package io.streamplane.cli.roles;

import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options every role shares: where Kafka is, how to connect to it, and which cluster's topics
 * to use.
 */
public final class ClusterOptions {

  @Option(
      names = "--bootstrap-server",
      defaultValue = "127.0.0.1:19092",
      description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}, the broker of 'up').")
  public String bootstrapServers;

  @Option(
      names = "--cluster",
      defaultValue = TopicLayout.DEFAULT_CLUSTER,
      description = "Cluster name, the prefix of every topic (default: ${DEFAULT-VALUE}).")
  public String cluster;

  @Option(
      names = "--partitions",
      defaultValue = "6",
      description =
          "Partitions of commands/events/results, as created (default: ${DEFAULT-VALUE}).")
  public int partitions;

  @Option(
      names = "--replication-factor",
      defaultValue = "1",
      description =
          "Replication factor of every topic, as created; 3 or more also sets"
              + " min.insync.replicas=2 (default: ${DEFAULT-VALUE}).")
  public short replicationFactor;

  @Mixin KafkaConfigOption kafkaConfig;

  public TopicLayout layout() {
    TopicLayout single = TopicLayout.singleBroker(cluster);
    return new TopicLayout(
        cluster,
        partitions,
        single.bindingsPartitions(),
        single.auditPartitions(),
        replicationFactor);
  }

  public KafkaSchemaCatalog catalog() {
    return new KafkaSchemaCatalog(bootstrapServers, layout().topicName(Topics.SCHEMAS));
  }
}
