package io.streamplane.gateway.apply;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One step of a field path, as structured-merge-diff names them: a field of a struct or a key of a
 * map ({@code f:name}), an element of an associative list by its key fields ({@code
 * k:{"name":"nginx"}}), an element of a set by its value ({@code v:"a"}), or an element by its
 * index ({@code i:0}, only read, never produced here).
 *
 * <p>Ordered as structured-merge-diff orders them, which is the order of FieldsV1 JSON: field names
 * before keys before values before indexes; names by bytes, keys field by field, values numbers
 * before strings before booleans before lists before maps before null.
 */
public final class PathElement implements Comparable<PathElement> {

  private static final ObjectMapper JSON = new ObjectMapper();

  enum Kind {
    FIELD,
    KEY,
    VALUE,
    INDEX
  }

  private final Kind kind;
  private final String field;
  private final List<Map.Entry<String, JsonNode>> key;
  private final JsonNode value;
  private final int index;

  private PathElement(
      Kind kind, String field, List<Map.Entry<String, JsonNode>> key, JsonNode value, int index) {
    this.kind = kind;
    this.field = field;
    this.key = key;
    this.value = value;
    this.index = index;
  }

  public static PathElement field(String name) {
    return new PathElement(Kind.FIELD, name, null, null, 0);
  }

  /** An associative list element by its key fields, kept sorted by field name. */
  public static PathElement key(Map<String, JsonNode> fields) {
    List<Map.Entry<String, JsonNode>> sorted = new ArrayList<>();
    fields.entrySet().stream()
        .sorted(Map.Entry.comparingByKey(PathElement::compareBytes))
        .forEach(e -> sorted.add(Map.entry(e.getKey(), e.getValue())));
    return new PathElement(Kind.KEY, null, List.copyOf(sorted), null, 0);
  }

  public static PathElement value(JsonNode value) {
    return new PathElement(Kind.VALUE, null, null, value, 0);
  }

  public static PathElement index(int index) {
    return new PathElement(Kind.INDEX, null, null, null, index);
  }

  Kind kind() {
    return kind;
  }

  /** The field name of a {@code f:} element, else null. */
  public String fieldName() {
    return field;
  }

  /** The key fields of a {@code k:} element, else null. */
  public List<Map.Entry<String, JsonNode>> keyFields() {
    return key;
  }

  /** The value of a {@code v:} element, else null. */
  public JsonNode setValue() {
    return value;
  }

  /** The element as written in FieldsV1: {@code f:spec}, {@code k:{"name":"x"}}, {@code v:1}. */
  public String serialize() {
    return switch (kind) {
      case FIELD -> "f:" + field;
      case KEY -> {
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        key.forEach(e -> object.set(e.getKey(), e.getValue()));
        yield "k:" + object;
      }
      case VALUE -> "v:" + value;
      case INDEX -> "i:" + index;
    };
  }

  /** Parses one FieldsV1 element; throws IllegalArgumentException on an unknown one. */
  public static PathElement parse(String text) {
    if (text.length() < 2 || text.charAt(1) != ':') {
      throw new IllegalArgumentException("unknown path element: " + text);
    }
    String rest = text.substring(2);
    try {
      switch (text.charAt(0)) {
        case 'f':
          return field(rest);
        case 'k':
          JsonNode object = JSON.readTree(rest);
          if (object == null || !object.isObject()) {
            throw new IllegalArgumentException("a key must be a JSON object: " + text);
          }
          Map<String, JsonNode> fields = new java.util.LinkedHashMap<>();
          object.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
          return key(fields);
        case 'v':
          JsonNode v = JSON.readTree(rest);
          if (v == null) {
            throw new IllegalArgumentException("a value must be JSON: " + text);
          }
          return value(v);
        case 'i':
          return index(Integer.parseInt(rest));
        default:
          throw new IllegalArgumentException("unknown path element: " + text);
      }
    } catch (JsonProcessingException | NumberFormatException e) {
      throw new IllegalArgumentException("invalid path element " + text + ": " + e.getMessage());
    }
  }

  /** As structured-merge-diff prints a path element: {@code .spec}, {@code [name="x"]}. */
  @Override
  public String toString() {
    return switch (kind) {
      case FIELD -> "." + field;
      case KEY -> {
        List<String> parts = new ArrayList<>();
        key.forEach(e -> parts.add(e.getKey() + "=" + e.getValue()));
        yield "[" + String.join(",", parts) + "]";
      }
      case VALUE -> "[=" + value + "]";
      case INDEX -> "[" + index + "]";
    };
  }

  @Override
  public int compareTo(PathElement other) {
    if (kind != other.kind) {
      return kind.compareTo(other.kind);
    }
    return switch (kind) {
      case FIELD -> compareBytes(field, other.field);
      case KEY -> compareKeys(key, other.key);
      case VALUE -> compareValues(value, other.value);
      case INDEX -> Integer.compare(index, other.index);
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathElement other && compareTo(other) == 0;
  }

  @Override
  public int hashCode() {
    return switch (kind) {
      case FIELD -> field.hashCode();
      case KEY -> key.size();
      case VALUE -> 31;
      case INDEX -> index;
    };
  }

  private static int compareKeys(
      List<Map.Entry<String, JsonNode>> a, List<Map.Entry<String, JsonNode>> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = compareBytes(a.get(i).getKey(), b.get(i).getKey());
      if (c != 0) {
        return c;
      }
      c = compareValues(a.get(i).getValue(), b.get(i).getValue());
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  /** structured-merge-diff's total order of values. */
  static int compareValues(JsonNode a, JsonNode b) {
    int ra = rank(a);
    int rb = rank(b);
    if (ra != rb) {
      return Integer.compare(ra, rb);
    }
    switch (ra) {
      case 0:
        return a.decimalValue().compareTo(b.decimalValue());
      case 1:
        return compareBytes(a.asText(), b.asText());
      case 2:
        return Boolean.compare(a.asBoolean(), b.asBoolean());
      case 3:
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
          int c = compareValues(a.get(i), b.get(i));
          if (c != 0) {
            return c;
          }
        }
        return Integer.compare(a.size(), b.size());
      case 4:
        List<String> ka = sortedNames(a);
        List<String> kb = sortedNames(b);
        for (int i = 0; i < Math.min(ka.size(), kb.size()); i++) {
          int c = compareBytes(ka.get(i), kb.get(i));
          if (c != 0) {
            return c;
          }
          c = compareValues(a.get(ka.get(i)), b.get(kb.get(i)));
          if (c != 0) {
            return c;
          }
        }
        return Integer.compare(ka.size(), kb.size());
      default:
        return 0;
    }
  }

  private static List<String> sortedNames(JsonNode object) {
    List<String> names = new ArrayList<>();
    Iterator<String> it = object.fieldNames();
    it.forEachRemaining(names::add);
    names.sort(PathElement::compareBytes);
    return names;
  }

  private static int rank(JsonNode v) {
    if (v.isNumber()) {
      return 0;
    }
    if (v.isTextual()) {
      return 1;
    }
    if (v.isBoolean()) {
      return 2;
    }
    if (v.isArray()) {
      return 3;
    }
    if (v.isObject()) {
      return 4;
    }
    return 5;
  }

  /** Go compares strings by their UTF-8 bytes; for the BMP this is code point order. */
  static int compareBytes(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
