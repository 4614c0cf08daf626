package io.streamplane.schema.objects;

import io.streamplane.log.ResourceCommand;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The key of a resource on {@code commands} and {@code events}: {@code
 * {resource}.{group}/{namespace}/{name}}, with empty strings for the core group and for
 * cluster-scoped resources (e.g. {@code pods./default/web}, {@code nodes./ /n1} minus the space,
 * {@code deployments.apps/default/nginx}). Commands and events of one resource share it, so they
 * land in partitions with the same number.
 */
public record ResourceKey(String resource, String group, String namespace, String name) {

  public ResourceKey {
    group = group == null ? "" : group;
    namespace = namespace == null ? "" : namespace;
  }

  @Override
  public String toString() {
    return resource + "." + group + "/" + namespace + "/" + name;
  }

  /**
   * The partition of {@code commands} and {@code events} this key lives in, among {@code
   * partitions}: murmur2 of the key's UTF-8 bytes, as Kafka's default partitioner places every
   * keyed record the gateway, controllers and store produce.
   */
  public int partition(int partitions) {
    return Utils.toPositive(Utils.murmur2(toString().getBytes(StandardCharsets.UTF_8)))
        % partitions;
  }

  /** The key of the resource a command is about. */
  public static ResourceKey of(ResourceCommand command) {
    return new ResourceKey(
        command.getResource(), command.getGroup(), command.getNamespace(), command.getName());
  }

  public static ResourceKey parse(String key) {
    int dot = key.indexOf('.');
    int slash = key.indexOf('/');
    int second = key.indexOf('/', slash + 1);
    if (dot < 0 || slash < dot || second < 0) {
      throw new IllegalArgumentException("not a resource key: " + key);
    }
    return new ResourceKey(
        key.substring(0, dot),
        key.substring(dot + 1, slash),
        key.substring(slash + 1, second),
        key.substring(second + 1));
  }
}
