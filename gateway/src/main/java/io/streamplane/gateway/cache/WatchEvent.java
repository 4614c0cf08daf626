package io.streamplane.gateway.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One change as a watcher sees it: ADDED, MODIFIED or DELETED with the object as Kubernetes JSON,
 * and where the change sits in {@code events} (partition, offset) for resuming.
 */
public record WatchEvent(
    String type, String resourceType, ObjectNode object, int partition, long offset) {

  /** Kubernetes' ERROR watch event: the stream ends with this Status. */
  public static WatchEvent error(ObjectNode status) {
    return new WatchEvent(ERROR, "", status, -1, -1);
  }

  public static final String ERROR = "ERROR";

  public String namespace() {
    return object.path("metadata").path("namespace").asText("");
  }
}
