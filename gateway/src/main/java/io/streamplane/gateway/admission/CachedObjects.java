package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.cache.CacheUnavailableException;
import io.streamplane.gateway.cache.StoredObjects;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@link ClusterObjects} over the gateway's {@link StoredObjects} (its watch cache); a cache that
 * cannot catch up within {@code timeout} is a 504, as every other read that needs it.
 */
public final class CachedObjects implements ClusterObjects {

  private final StoredObjects cache;
  private final Duration timeout;

  public CachedObjects(StoredObjects cache, Duration timeout) {
    this.cache = cache;
    this.timeout = timeout;
  }

  @Override
  public Optional<ObjectNode> get(String group, String resource, String namespace, String name) {
    return cache.get(group, resource, namespace, name);
  }

  @Override
  public Optional<ObjectNode> getFresh(
      String group, String resource, String namespace, String name) {
    Optional<ObjectNode> cached = cache.get(group, resource, namespace, name);
    if (cached.isPresent()) {
      return cached;
    }
    catchUp();
    return cache.get(group, resource, namespace, name);
  }

  @Override
  public void catchUp() {
    try {
      cache.catchUpWithLog(timeout);
    } catch (CacheUnavailableException e) {
      throw new ApiException(Statuses.timeout(e.getMessage(), 1));
    }
  }

  @Override
  public List<ObjectNode> list(String group, String resource, String namespace) {
    return cache.list(group, resource, namespace, o -> true).items();
  }
}
