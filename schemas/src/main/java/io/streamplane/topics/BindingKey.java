package io.streamplane.topics;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * Keys of the {@code bindings} topic: {@code node/podKey}, partitioned by the node name alone, so
 * one node worker reads all its pods from one partition.
 */
public final class BindingKey {

  private BindingKey() {}

  public static String of(String node, String podKey) {
    return node + "/" + podKey;
  }

  /** The node a binding key names, or null if it is not a binding key. */
  public static String node(String bindingKey) {
    int slash = bindingKey.indexOf('/');
    return slash < 0 ? null : bindingKey.substring(0, slash);
  }

  /** The pod key a binding key names. */
  public static String podKey(String bindingKey) {
    return bindingKey.substring(bindingKey.indexOf('/') + 1);
  }

  /** The partition of a node's bindings: murmur2 of the node name, as Kafka hashes keys. */
  public static int partition(String node, int partitions) {
    return Utils.toPositive(Utils.murmur2(node.getBytes(StandardCharsets.UTF_8))) % partitions;
  }
}
