package io.streamplane.kinds.defaults;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Setting a default into Kubernetes JSON: only where the field is absent or null. */
public final class JsonDefaults {

  private JsonDefaults() {}

  public static void putIfAbsent(ObjectNode node, String field, String value) {
    if (!node.has(field) || node.get(field).isNull()) {
      node.put(field, value);
    }
  }

  public static void putIfAbsent(ObjectNode node, String field, int value) {
    if (!node.has(field) || node.get(field).isNull()) {
      node.put(field, value);
    }
  }

  /** Go's zero value counts as unset for these int32 fields (no pointer): 0 gets the default. */
  public static void putIfPositiveAbsent(ObjectNode node, String field, int value) {
    if (node.path(field).asInt(0) == 0) {
      node.put(field, value);
    }
  }
}
