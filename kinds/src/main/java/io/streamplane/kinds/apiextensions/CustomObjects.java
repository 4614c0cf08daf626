package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.log.CustomObject;

/** Reads the JSON members a {@link CustomObject} carries as text. */
final class CustomObjects {

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private CustomObjects() {}

  /** Every top-level member but apiVersion, kind and metadata, status included. */
  static ObjectNode members(CustomObject object) {
    ObjectNode members = parse(object.getContent());
    if (object.getStatus() != null) {
      members.set("status", parse(object.getStatus()));
    }
    return members;
  }

  static ObjectNode parse(CharSequence text) {
    if (text == null) {
      return JsonNodeFactory.instance.objectNode();
    }
    try {
      return (ObjectNode) JSON.readTree(text.toString());
    } catch (JsonProcessingException | ClassCastException e) {
      throw new IllegalStateException("a custom object holds JSON that does not parse", e);
    }
  }

  /** Compact JSON with the keys of every object sorted, as the converter writes {@code content}. */
  static String write(ObjectNode json) {
    try {
      return JSON.writeValueAsString(JSON.treeToValue(json, Object.class));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }
}
