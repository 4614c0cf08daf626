package io.streamplane.cli.roles;

import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicSpec;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code streamplane topics}: creates the cluster's topics on a Kafka cluster, or checks and
 * repairs their configs, then exits — what a deployment runs once before the roles (which expect
 * the topics to exist). Refuses, with exit status 1, topics whose partition count or replication
 * factor differs.
 */
@Command(
    name = "topics",
    mixinStandardHelpOptions = true,
    description = "Create (or check) the cluster's topics on a Kafka cluster, then exit.")
public final class TopicsCommand implements Callable<Integer> {

  @Mixin ClusterOptions cluster;

  @Override
  public Integer call() {
    try (Admin admin = Admin.create(KafkaClientSettings.clientConfig(cluster.bootstrapServers));
        ClusterTopics topics =
            ClusterTopics.ensure(admin, cluster.bootstrapServers, cluster.layout())) {
      for (TopicSpec spec : topics.topics().all()) {
        System.out.println(
            spec.name()
                + ": "
                + spec.partitions()
                + " partitions, replication factor "
                + spec.replicationFactor()
                + ", "
                + spec.configs());
      }
      return 0;
    } catch (RuntimeException e) {
      System.err.println("streamplane topics: " + e.getMessage());
      return 1;
    }
  }
}
