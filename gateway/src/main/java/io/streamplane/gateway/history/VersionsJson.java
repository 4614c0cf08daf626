package io.streamplane.gateway.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * Versions of an object as JSON, one entry each: {@code time}, {@code type} (ADDED, MODIFIED,
 * DELETED), the object's {@code resourceVersion}, the {@code actor} (username and groups of the
 * command that made it), {@code uid}, {@code commandId}, the log position ({@code partition},
 * {@code offset}) and the whole {@code object}. The gateway's history endpoint and {@code
 * streamplane history -o json|yaml} both answer with these.
 */
public final class VersionsJson {

  private VersionsJson() {}

  public static ArrayNode entries(KubeJson json, ResourceType type, List<ObjectVersion> versions) {
    ArrayNode entries = JsonNodeFactory.instance.arrayNode();
    for (ObjectVersion v : versions) {
      ResourceEvent event = v.event();
      ObjectNode object = object(json, type, event);
      ObjectNode entry = entries.addObject();
      entry.put("time", v.time().toString());
      entry.put("type", event.getType().toString());
      entry.put("resourceVersion", resourceVersion(object));
      ObjectNode actor = entry.putObject("actor");
      actor.put("username", event.getActor().getUsername());
      ArrayNode groups = actor.putArray("groups");
      event.getActor().getGroups().forEach(g -> groups.add(g.toString()));
      entry.put("uid", uid(object));
      entry.put("commandId", event.getCommandId());
      entry.put("partition", v.partition());
      entry.put("offset", v.offset());
      entry.set("object", object);
    }
    return entries;
  }

  /**
   * The event's object as the gateway serves it, with {@code apiVersion} and {@code kind} filled in
   * from the resource type where a stored object lacks them; null for an event without one.
   */
  public static ObjectNode object(KubeJson json, ResourceType type, ResourceEvent event) {
    if (KindObjects.of(event) == null) {
      return null;
    }
    ObjectNode body = json.toJson((SpecificRecord) KindObjects.of(event));
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    object.put("apiVersion", body.path("apiVersion").asText(type.groupVersion()));
    object.put("kind", body.path("kind").asText(type.kind()));
    object.setAll(body);
    return object;
  }

  /** The object's uid, null when it has none. */
  public static String uid(JsonNode object) {
    JsonNode uid = object == null ? null : object.path("metadata").get("uid");
    return uid == null || uid.isNull() ? null : uid.asText();
  }

  /** The object's resourceVersion, as clients see it (the event's own is its command's offset). */
  public static String resourceVersion(JsonNode object) {
    return object == null ? "" : object.path("metadata").path("resourceVersion").asText("");
  }
}
