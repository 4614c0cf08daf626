package io.streamplane.gateway.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The objects an admission test feeds its plugins directly: an in-memory {@link ClusterObjects}
 * (and a {@link SystemWrites} that keeps resourceVersions as the store does), with helpers for
 * Kubernetes JSON written with single quotes and for admission requests.
 */
final class Cluster implements ClusterObjects, SystemWrites {

  static final ObjectMapper JSON = new ObjectMapper();
  static final ResourceRegistry REGISTRY = ResourceRegistry.kubernetes();
  static final ResourceType PODS = REGISTRY.byResource("", "pods").orElseThrow();
  static final UserInfo ADMIN =
      UserInfo.newBuilder().setUsername("admin").setGroups(List.of("system:masters")).build();

  private final java.util.SortedMap<String, ObjectNode> objects =
      java.util.Collections.synchronizedSortedMap(new TreeMap<>());
  private long version = 1;
  int statusWrites;

  @SuppressWarnings("unchecked")
  static <T extends JsonNode> T json(String text) {
    try {
      return (T) JSON.readTree(text.replace('\'', '"'));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** Adds an object of {@code resource} (core group unless "group/resource"). */
  Cluster with(String resource, String object) {
    ObjectNode node = json(object);
    String group = resource.contains("/") ? resource.substring(0, resource.indexOf('/')) : "";
    String plural = resource.substring(resource.indexOf('/') + 1);
    node.with("metadata").put("resourceVersion", String.valueOf(version++));
    objects.put(key(group, plural, node), node);
    return this;
  }

  private static String key(String group, String plural, ObjectNode node) {
    return key(
        group,
        plural,
        node.path("metadata").path("namespace").asText(""),
        node.path("metadata").path("name").asText(""));
  }

  private static String key(String group, String plural, String namespace, String name) {
    return group + "/" + plural + "/" + (namespace == null ? "" : namespace) + "/" + name;
  }

  @Override
  public Optional<ObjectNode> get(String group, String resource, String namespace, String name) {
    return Optional.ofNullable(objects.get(key(group, resource, namespace, name)))
        .map(ObjectNode::deepCopy);
  }

  @Override
  public Optional<ObjectNode> getFresh(
      String group, String resource, String namespace, String name) {
    return get(group, resource, namespace, name);
  }

  @Override
  public void catchUp() {}

  @Override
  public List<ObjectNode> list(String group, String resource, String namespace) {
    List<ObjectNode> items = new ArrayList<>();
    String prefix = group + "/" + resource + "/" + (namespace == null ? "" : namespace + "/");
    objects.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            items.add(v.deepCopy());
          }
        });
    return items;
  }

  @Override
  public void writeStatus(String group, String resource, String namespace, ObjectNode object) {
    String key = key(group, resource, object);
    ObjectNode current = objects.get(key);
    if (current == null) {
      throw new ApiException(
          Statuses.notFound(group, resource, object.path("metadata").path("name").asText()));
    }
    if (!current
        .path("metadata")
        .path("resourceVersion")
        .equals(object.path("metadata").path("resourceVersion"))) {
      throw new ApiException(
          Statuses.failure(409, "Conflict", "the object has been modified", null));
    }
    ObjectNode written = current.deepCopy();
    written.set("status", object.path("status").deepCopy());
    written.with("metadata").put("resourceVersion", String.valueOf(version++));
    objects.put(key, written);
    statusWrites++;
  }

  /** A create as the store makes it: one object per key, a second is 409 AlreadyExists. */
  @Override
  public synchronized ObjectNode create(
      String group, String resource, String namespace, ObjectNode object) {
    String key = key(group, resource, namespace, object.path("metadata").path("name").asText());
    if (objects.containsKey(key)) {
      throw new ApiException(Statuses.failure(409, "AlreadyExists", key + " already exists", null));
    }
    ObjectNode written = object.deepCopy();
    written.with("metadata").put("resourceVersion", String.valueOf(version++));
    objects.put(key, written);
    return written.deepCopy();
  }

  @Override
  public synchronized void delete(String group, String resource, String namespace, String name) {
    objects.remove(key(group, resource, namespace, name));
  }

  static AdmissionRequest create(ResourceType type, String namespace, ObjectNode object) {
    return new AdmissionRequest(
        Operation.CREATE,
        type,
        "",
        namespace,
        object.path("metadata").path("name").asText(""),
        object,
        null,
        ADMIN,
        false);
  }

  static AdmissionRequest createPod(String namespace, String pod) {
    ObjectNode object = json(pod);
    return create(PODS, namespace, object);
  }
}
