package io.streamplane.topics;

import java.util.Map;

/**
 * How one topic must look on the broker: its full name (cluster prefix included), partition count,
 * replication factor and the topic-level configs Streamplane depends on (cleanup policy,
 * retention).
 */
public record TopicSpec(
    String name, int partitions, short replicationFactor, Map<String, String> configs) {

  public TopicSpec {
    if (partitions < 1) {
      throw new IllegalArgumentException(name + ": partitions must be at least 1");
    }
    configs = Map.copyOf(configs);
  }
}
