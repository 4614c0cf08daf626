package io.streamplane.topics;

/**
 * The knobs of a cluster's topics: the name prefix and the partition counts. {@code commands},
 * {@code events} and {@code results} share {@link #logPartitions} because commands and events are
 * co-partitioned by resource key.
 *
 * <p>The replication factor applies to every topic; with 3 or more the topics also get {@code
 * min.insync.replicas=2} (see {@link #minInSyncReplicas}).
 *
 * <p>Partition counts of keyed topics cannot change once the cluster has data (a key would move to
 * another partition), so the {@link TopicInitializer} refuses a layout that disagrees with the
 * broker.
 */
public record TopicLayout(
    String cluster,
    int logPartitions,
    int bindingsPartitions,
    int auditPartitions,
    short replicationFactor) {

  public static final String DEFAULT_CLUSTER = "sp";

  public TopicLayout {
    if (!cluster.matches("[a-zA-Z0-9][a-zA-Z0-9_-]*")) {
      throw new IllegalArgumentException(
          "cluster name '" + cluster + "' must be letters, digits, '-' or '_'");
    }
  }

  /** The layout of a single-broker cluster: what {@code streamplane up} and the tests use. */
  public static TopicLayout singleBroker(String cluster) {
    return new TopicLayout(cluster, 6, 6, 3, (short) 1);
  }

  /**
   * The {@code min.insync.replicas} of the cluster's topics: 2 from a replication factor of 3, so a
   * write the store acknowledges (acks=all) is on two brokers and survives the loss of any one,
   * while one broker down still leaves the topics writable; 1 (the broker default) below that.
   */
  public int minInSyncReplicas() {
    return replicationFactor >= 3 ? 2 : 1;
  }

  public String topicName(String topic) {
    return cluster + "." + topic;
  }
}
