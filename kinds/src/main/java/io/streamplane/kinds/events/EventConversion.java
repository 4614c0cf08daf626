package io.streamplane.kinds.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;
import java.util.HashMap;
import java.util.Map;

/**
 * events.k8s.io/v1 Event ⇄ core/v1 Event, the storage version, as kube-apiserver converts them
 * through the internal Event ({@code pkg/apis/events/v1/conversion.go}): the same object under
 * other names — {@code regarding} is {@code involvedObject}, {@code note} is {@code message},
 * {@code reportingController} is {@code reportingComponent}, and the core fields the new API keeps
 * only for compatibility are {@code deprecated*}. Every other field has one name in both.
 */
public final class EventConversion implements ResourceType.Conversion {

  /** events.k8s.io/v1 name → core/v1 name. */
  static final Map<String, String> RENAMED =
      Map.of(
          "regarding", "involvedObject",
          "note", "message",
          "reportingController", "reportingComponent",
          "deprecatedSource", "source",
          "deprecatedFirstTimestamp", "firstTimestamp",
          "deprecatedLastTimestamp", "lastTimestamp",
          "deprecatedCount", "count");

  private static final Map<String, String> BACK = inverse();

  @Override
  public ObjectNode toStorage(ObjectNode served) {
    return renamed(served, RENAMED, "v1");
  }

  @Override
  public ObjectNode fromStorage(ObjectNode stored) {
    return renamed(stored, BACK, "events.k8s.io/v1");
  }

  /** A deep copy of {@code object} with its top-level fields renamed, in their order. */
  private static ObjectNode renamed(
      ObjectNode object, Map<String, String> names, String apiVersion) {
    ObjectNode out = object.objectNode();
    for (Map.Entry<String, JsonNode> field : object.properties()) {
      String name = field.getKey();
      if (name.equals("apiVersion")) {
        out.put("apiVersion", apiVersion);
      } else {
        out.set(names.getOrDefault(name, name), field.getValue().deepCopy());
      }
    }
    return out;
  }

  private static Map<String, String> inverse() {
    Map<String, String> back = new HashMap<>();
    RENAMED.forEach((served, stored) -> back.put(stored, served));
    return Map.copyOf(back);
  }
}
