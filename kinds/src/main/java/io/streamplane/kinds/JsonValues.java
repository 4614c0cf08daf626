package io.streamplane.kinds;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON value comparison shared by the patch implementations and the custom resources' structural
 * schemas (enums, list-type uniqueness, list-map keys).
 *
 * <p>Jackson distinguishes {@code IntNode(80)} from {@code LongNode(80)} in {@code equals}, while
 * JSON (RFC 6902 "test") and kube-apiserver (which decodes integers as int64 on both sides) treat
 * them as the same value; these helpers compare numbers by value. A Java {@code null} (absent) and
 * a JSON {@code null} are the same here, as {@code nil} is in Go's untyped maps.
 */
public final class JsonValues {

  private JsonValues() {}

  public static boolean same(JsonNode a, JsonNode b) {
    boolean aNull = a == null || a.isNull() || a.isMissingNode();
    boolean bNull = b == null || b.isNull() || b.isMissingNode();
    if (aNull || bNull) {
      return aNull && bNull;
    }
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    if (a.isObject() && b.isObject()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        JsonNode other = b.get(field.getKey());
        if (other == null || !same(field.getValue(), other)) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray() && b.isArray()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!same(a.get(i), b.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  /** The JSON type name of a value, for error messages. */
  public static String typeName(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    return switch (node.getNodeType()) {
      case OBJECT, POJO -> "object";
      case ARRAY -> "list";
      case STRING, BINARY -> "string";
      case NUMBER -> "number";
      case BOOLEAN -> "boolean";
      default -> "null";
    };
  }
}
