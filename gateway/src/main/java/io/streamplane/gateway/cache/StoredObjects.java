package io.streamplane.gateway.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Where the registry reads the objects the store wrote, as Kubernetes JSON: {@link WatchCache}
 * folds {@code events}; a registry is tested against an in-memory store.
 */
public interface StoredObjects {

  Optional<ObjectNode> get(String group, String resource, String namespace, String name);

  /** Objects of one type (in one namespace, or all when {@code namespace} is null), by key. */
  WatchCache.Snapshot list(
      String group, String resource, String namespace, Predicate<ObjectNode> filter);

  /** The version of what has been read: per partition, the first offset not yet applied. */
  ListVersion version();

  /**
   * Waits until everything written before this call has been read, so a read follows the writes
   * acknowledged before it.
   *
   * @throws CacheUnavailableException if that did not happen within {@code timeout}
   */
  void catchUpWithLog(Duration timeout);
}
