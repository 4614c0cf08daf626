package io.streamplane.schema.convert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;

/**
 * Writes an Avro datum as Kubernetes JSON. Stateless.
 *
 * <p>Null record fields, and optional record fields holding an empty map or list, are left out, as
 * Kubernetes' {@code omitempty} does, so {@code ports: []} written by a patch reads back as no
 * {@code ports}, as on a real cluster. Empty objects ({@code resources: {}}) are written. A field
 * carrying the {@code k8s-always} property (its Go JSON tag has no {@code omitempty}) is written as
 * Kubernetes writes it: an empty list or map as itself ({@code verbs: []}), null as Go's zero value
 * ({@code ""}, 0, false, or null for a list, map or object). A {@code k8s-json} string is written
 * as the JSON value it holds. Accepts both the specific representation (String, {@code Instant},
 * Java enums) and the generic one (Utf8, {@code Long}, enum symbols), so records read back from any
 * topic can be written.
 */
final class AvroToJson {

  private static final ObjectMapper RAW_JSON = new ObjectMapper();
  private final JsonNodeFactory nodes = JsonNodeFactory.instance;

  ObjectNode record(IndexedRecord record, FieldPath path) {
    ObjectNode json = nodes.objectNode();
    // The record's own schema, not the one of the union or field holding it: its get(i) follows
    // its own field order.
    Schema.Field restField = KubeTypes.restField(record.getSchema());
    for (Schema.Field field : record.getSchema().getFields()) {
      Object value = record.get(field.pos());
      if (field == restField) {
        if (value != null) {
          JsonNode members = string(value.toString(), KubeTypes.nonNull(field.schema()), path);
          members.fields().forEachRemaining(m -> json.set(m.getKey(), m.getValue()));
        }
        continue;
      }
      boolean omitted =
          isEmptyCollection(value)
              && isOptional(field.schema())
              && !KubeTypes.isAlwaysWritten(field);
      if (value != null && !omitted) {
        json.set(field.name(), value(value, field.schema(), path.field(field.name())));
      } else if (value == null && KubeTypes.isAlwaysWritten(field)) {
        json.set(field.name(), zero(field.schema()));
      }
    }
    return json;
  }

  private JsonNode zero(Schema schema) {
    Object zero = KubeTypes.goZeroValue(schema);
    if (zero instanceof String text) {
      return nodes.textNode(text);
    }
    if (zero instanceof Integer number) {
      return nodes.numberNode(number);
    }
    if (zero instanceof Boolean bool) {
      return nodes.booleanNode(bool);
    }
    return nodes.nullNode();
  }

  private static boolean isOptional(Schema schema) {
    return schema.getType() == Schema.Type.UNION
        && schema.getTypes().stream().anyMatch(s -> s.getType() == Schema.Type.NULL);
  }

  private static boolean isEmptyCollection(Object value) {
    return (value instanceof Collection<?> c && c.isEmpty())
        || (value instanceof Map<?, ?> m && m.isEmpty());
  }

  private JsonNode value(Object value, Schema schema, FieldPath path) {
    if (value == null) {
      return nodes.nullNode();
    }
    return switch (schema.getType()) {
      case UNION -> value(value, branch(value, schema, path), path);
      case RECORD -> record(as(IndexedRecord.class, value, schema, path), path);
      case MAP -> map(as(Map.class, value, schema, path), schema, path);
      case ARRAY -> array(as(Collection.class, value, schema, path), schema, path);
      case STRING -> string(as(CharSequence.class, value, schema, path).toString(), schema, path);
      case BYTES -> nodes.textNode(base64(value, schema, path));
      case FIXED -> nodes.textNode(base64(value, schema, path));
      case INT -> nodes.numberNode(as(Integer.class, value, schema, path));
      case LONG ->
          KubeTypes.isTimestamp(schema)
              ? timestamp(value, schema, path)
              : longNode(value, schema, path);
      case FLOAT -> nodes.numberNode(as(Float.class, value, schema, path));
      case DOUBLE -> nodes.numberNode(as(Double.class, value, schema, path));
      case BOOLEAN -> nodes.booleanNode(as(Boolean.class, value, schema, path));
      case ENUM -> nodes.textNode(enumSymbol(value, schema, path));
      case NULL -> throw mismatch(value, schema, path);
    };
  }

  private JsonNode string(String text, Schema schema, FieldPath path) {
    if (!KubeTypes.isJson(schema)) {
      return nodes.textNode(text);
    }
    try {
      return RAW_JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ConversionException(
          path.toString(), "stored JSON does not parse: " + e.getMessage());
    }
  }

  private ObjectNode map(Map<?, ?> map, Schema schema, FieldPath path) {
    ObjectNode json = nodes.objectNode();
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      String key = String.valueOf(entry.getKey());
      json.set(key, value(entry.getValue(), schema.getValueType(), path.key(key)));
    }
    return json;
  }

  private ArrayNode array(Collection<?> list, Schema schema, FieldPath path) {
    ArrayNode json = nodes.arrayNode(list.size());
    int i = 0;
    for (Object item : list) {
      json.add(value(item, schema.getElementType(), path.index(i++)));
    }
    return json;
  }

  private JsonNode longNode(Object value, Schema schema, FieldPath path) {
    if (value instanceof Integer i) {
      return nodes.numberNode(i.longValue());
    }
    return nodes.numberNode(as(Long.class, value, schema, path));
  }

  private JsonNode timestamp(Object value, Schema schema, FieldPath path) {
    boolean micros = KubeTypes.isMicros(schema);
    Instant instant =
        value instanceof Instant i
            ? i
            : KubeTime.fromEpoch(as(Long.class, value, schema, path), micros);
    return nodes.textNode(KubeTime.format(instant, micros));
  }

  private static String base64(Object value, Schema schema, FieldPath path) {
    byte[] bytes;
    if (value instanceof ByteBuffer buffer) {
      // A duplicate, so that reading does not move the position of a buffer the record owns.
      ByteBuffer copy = buffer.duplicate();
      bytes = new byte[copy.remaining()];
      copy.get(bytes);
    } else if (value instanceof GenericFixed fixed) {
      bytes = fixed.bytes();
    } else {
      bytes = as(byte[].class, value, schema, path);
    }
    return Base64.getEncoder().encodeToString(bytes);
  }

  private static String enumSymbol(Object value, Schema schema, FieldPath path) {
    if (value instanceof Enum<?> e) {
      return e.name();
    }
    return as(GenericEnumSymbol.class, value, schema, path).toString();
  }

  /** The union branch holding this value, judged by its Java type, as Avro's writers do. */
  private static Schema branch(Object value, Schema union, FieldPath path) {
    for (Schema branch : union.getTypes()) {
      if (holds(branch, value)) {
        return branch;
      }
    }
    throw mismatch(value, union, path);
  }

  private static boolean holds(Schema schema, Object value) {
    return switch (schema.getType()) {
      case RECORD ->
          value instanceof IndexedRecord r
              && r.getSchema().getFullName().equals(schema.getFullName());
      case MAP -> value instanceof Map;
      case ARRAY -> value instanceof Collection;
      case STRING -> value instanceof CharSequence;
      case BYTES -> value instanceof ByteBuffer || value instanceof byte[];
      case FIXED ->
          value instanceof GenericFixed f
              && f.getSchema().getFullName().equals(schema.getFullName());
      case INT -> value instanceof Integer;
      case LONG ->
          value instanceof Long || (value instanceof Instant && KubeTypes.isTimestamp(schema));
      case FLOAT -> value instanceof Float;
      case DOUBLE -> value instanceof Double;
      case BOOLEAN -> value instanceof Boolean;
      case ENUM ->
          (value instanceof GenericEnumSymbol<?> s
                  && s.getSchema().getFullName().equals(schema.getFullName()))
              || (value instanceof Enum<?> e && schema.hasEnumSymbol(e.name()));
      case NULL -> false;
      case UNION -> false;
    };
  }

  private static <T> T as(Class<T> type, Object value, Schema schema, FieldPath path) {
    if (!type.isInstance(value)) {
      throw mismatch(value, schema, path);
    }
    return type.cast(value);
  }

  private static ConversionException mismatch(Object value, Schema schema, FieldPath path) {
    return new ConversionException(
        path.toString(),
        "datum of "
            + value.getClass().getName()
            + " does not match schema type "
            + schema.getType().getName());
  }
}
