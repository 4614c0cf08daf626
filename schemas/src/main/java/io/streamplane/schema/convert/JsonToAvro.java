package io.streamplane.schema.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.avro.Conversion;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * One conversion of a JSON document to an Avro datum, walking the document and the schema together.
 * Not thread-safe and used once: it collects the unknown fields of that document.
 *
 * <p>Fails on the first type error, as Kubernetes' JSON decoding does; unknown fields never fail.
 */
final class JsonToAvro {

  private static final int MAX_QUOTED = 64;

  private final RecordFactory records;
  private final List<UnknownField> unknownFields = new ArrayList<>();

  JsonToAvro(RecordFactory records) {
    this.records = records;
  }

  List<UnknownField> unknownFields() {
    return unknownFields;
  }

  GenericRecord record(JsonNode json, Schema schema) {
    return (GenericRecord) value(json, schema, GenericData.get(), FieldPath.ROOT);
  }

  /**
   * @param model the data model of the record that will hold the value; it decides whether a
   *     timestamp is an {@code Instant} or a {@code Long}, and an enum a Java enum or a symbol
   */
  private Object value(JsonNode json, Schema schema, GenericData model, FieldPath path) {
    return switch (schema.getType()) {
      case UNION -> union(json, schema, model, path);
      case RECORD -> record(json, schema, path);
      case MAP -> map(json, schema, model, path);
      case ARRAY -> array(json, schema, model, path);
      case STRING -> string(json, schema, path);
      case BYTES -> ByteBuffer.wrap(base64(json, schema, path));
      case FIXED -> fixed(json, schema, model, path);
      case INT -> integer(json, schema, path).intValueExact();
      case LONG ->
          KubeTypes.isTimestamp(schema)
              ? timestamp(json, schema, model, path)
              : integer(json, schema, path).longValueExact();
      case FLOAT -> (float) number(json, schema, path);
      case DOUBLE -> number(json, schema, path);
      case BOOLEAN -> {
        require(json.isBoolean(), json, schema, path);
        yield json.booleanValue();
      }
      case ENUM -> enumSymbol(json, schema, model, path);
      case NULL -> {
        require(json.isNull(), json, schema, path);
        yield null;
      }
    };
  }

  private GenericRecord record(JsonNode json, Schema schema, FieldPath path) {
    require(json.isObject(), json, schema, path);
    GenericRecord record = records.newRecord(schema);
    GenericData model = RecordFactory.modelOf(record);
    boolean[] set = new boolean[schema.getFields().size()];
    Schema.Field restField = KubeTypes.restField(schema);
    TreeMap<String, JsonNode> rest = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      FieldPath fieldPath = path.field(entry.getKey());
      Schema.Field field = schema.getField(entry.getKey());
      if (restField != null && (field == null || field == restField)) {
        rest.put(entry.getKey(), entry.getValue());
        continue;
      }
      if (field == null) {
        unknownFields.add(new UnknownField(fieldPath.toString()));
        continue;
      }
      // JSON null on a field that cannot hold null means "not set", as in Go, where decoding
      // null into a non-pointer leaves the zero value: the field's default below applies.
      if (entry.getValue().isNull() && !accepts(field.schema(), entry.getValue())) {
        continue;
      }
      record.put(field.pos(), value(entry.getValue(), field.schema(), model, fieldPath));
      set[field.pos()] = true;
    }
    if (restField != null && !rest.isEmpty()) {
      ObjectNode members = JsonNodeFactory.instance.objectNode();
      rest.forEach(members::set);
      record.put(restField.pos(), KubeTypes.sortedJson(members));
      set[restField.pos()] = true;
    }
    for (Schema.Field field : schema.getFields()) {
      if (set[field.pos()]) {
        continue;
      }
      if (!field.hasDefaultValue()) {
        throw new ConversionException(path.field(field.name()).toString(), "Required value");
      }
      record.put(field.pos(), model.getDefaultValue(field));
    }
    return record;
  }

  private Map<String, Object> map(JsonNode json, Schema schema, GenericData model, FieldPath path) {
    require(json.isObject(), json, schema, path);
    Map<String, Object> map = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      map.put(
          entry.getKey(),
          value(entry.getValue(), schema.getValueType(), model, path.key(entry.getKey())));
    }
    return map;
  }

  private List<Object> array(JsonNode json, Schema schema, GenericData model, FieldPath path) {
    require(json.isArray(), json, schema, path);
    List<Object> list = new ArrayList<>(json.size());
    for (int i = 0; i < json.size(); i++) {
      list.add(value(json.get(i), schema.getElementType(), model, path.index(i)));
    }
    return list;
  }

  private Object union(JsonNode json, Schema union, GenericData model, FieldPath path) {
    List<Schema> candidates =
        union.getTypes().stream().filter(branch -> accepts(branch, json)).toList();
    if (candidates.isEmpty()) {
      throw mismatch(json, union, path);
    }
    if (candidates.size() == 1) {
      return value(json, candidates.get(0), model, path);
    }
    List<Schema> recordBranches =
        candidates.stream().filter(branch -> branch.getType() == Schema.Type.RECORD).toList();
    if (recordBranches.size() > 1) {
      return value(json, byKind(json, recordBranches, path), model, path);
    }
    // Several scalar branches take this token (int and long both take 7): the first that holds
    // the value wins, so a union's order is its preference, as in Avro's own JSON encoding.
    ConversionException first = null;
    for (Schema branch : candidates) {
      int unknownBefore = unknownFields.size();
      try {
        return value(json, branch, model, path);
      } catch (ConversionException e) {
        unknownFields.subList(unknownBefore, unknownFields.size()).clear();
        first = first == null ? e : first;
      }
    }
    throw first;
  }

  /** Picks the record branch of a union whose simple name is the object's {@code kind}. */
  private static Schema byKind(JsonNode json, List<Schema> branches, FieldPath path) {
    String kinds = branches.stream().map(Schema::getName).collect(Collectors.joining(", "));
    JsonNode kind = json.get("kind");
    if (kind == null || !kind.isTextual() || kind.textValue().isEmpty()) {
      throw new ConversionException(
          path.toString(), "\"kind\" is required to tell which object this is, one of: " + kinds);
    }
    List<Schema> matching =
        branches.stream().filter(branch -> branch.getName().equals(kind.textValue())).toList();
    if (matching.size() != 1) {
      throw new ConversionException(
          path.toString(),
          (matching.isEmpty() ? "kind " : "ambiguous kind ")
              + quote(kind.textValue())
              + ", expected one of: "
              + kinds);
    }
    return matching.get(0);
  }

  /** Whether a JSON token can be read as this schema, judged by its type alone. */
  private static boolean accepts(Schema schema, JsonNode json) {
    return switch (schema.getType()) {
      case RECORD, MAP -> json.isObject();
      case ARRAY -> json.isArray();
      case STRING ->
          KubeTypes.isJson(schema)
              ? json.isObject()
              : json.isTextual() || (json.isNumber() && KubeTypes.isQuantity(schema));
      case ENUM, BYTES, FIXED -> json.isTextual();
      case INT -> json.isIntegralNumber();
      case LONG -> KubeTypes.isTimestamp(schema) ? json.isTextual() : json.isIntegralNumber();
      case FLOAT, DOUBLE -> json.isNumber();
      case BOOLEAN -> json.isBoolean();
      case NULL -> json.isNull();
      case UNION -> schema.getTypes().stream().anyMatch(branch -> accepts(branch, json));
    };
  }

  private static String string(JsonNode json, Schema schema, FieldPath path) {
    if (KubeTypes.isJson(schema)) {
      require(json.isObject(), json, schema, path);
      return json.toString();
    }
    if (KubeTypes.isQuantity(schema)) {
      if (json.isNumber()) {
        return Quantities.canonical(json.decimalValue());
      }
      require(json.isTextual(), json, schema, path);
      if (!Quantities.isValid(json.textValue())) {
        throw new ConversionException(path.toString(), Quantities.FORMAT_ERROR);
      }
      return json.textValue();
    }
    require(json.isTextual(), json, schema, path);
    return json.textValue();
  }

  private static BigInteger integer(JsonNode json, Schema schema, FieldPath path) {
    require(json.isIntegralNumber(), json, schema, path);
    BigInteger value = json.bigIntegerValue();
    int bits = schema.getType() == Schema.Type.INT ? 32 : 64;
    if (value.bitLength() >= bits) {
      throw new ConversionException(path.toString(), "value " + value + " overflows int" + bits);
    }
    return value;
  }

  private static double number(JsonNode json, Schema schema, FieldPath path) {
    require(json.isNumber(), json, schema, path);
    return json.doubleValue();
  }

  private static Object timestamp(JsonNode json, Schema schema, GenericData model, FieldPath path) {
    require(json.isTextual(), json, schema, path);
    boolean micros = KubeTypes.isMicros(schema);
    Instant instant =
        KubeTime.parse(json.textValue(), micros)
            .orElseThrow(
                () ->
                    new ConversionException(
                        path.toString(),
                        "cannot parse " + quote(json.textValue()) + " as an RFC 3339 timestamp"));
    Conversion<?> conversion = model.getConversionFor(schema.getLogicalType());
    if (conversion != null && Instant.class.equals(conversion.getConvertedType())) {
      return instant;
    }
    try {
      return KubeTime.toEpoch(instant, micros);
    } catch (ArithmeticException e) {
      throw new ConversionException(path.toString(), "timestamp out of range", e);
    }
  }

  private static byte[] base64(JsonNode json, Schema schema, FieldPath path) {
    require(json.isTextual(), json, schema, path);
    try {
      return Base64.getDecoder().decode(json.textValue());
    } catch (IllegalArgumentException e) {
      throw new ConversionException(path.toString(), "illegal base64 data: " + e.getMessage(), e);
    }
  }

  private static Object fixed(JsonNode json, Schema schema, GenericData model, FieldPath path) {
    byte[] bytes = base64(json, schema, path);
    if (bytes.length != schema.getFixedSize()) {
      throw new ConversionException(
          path.toString(), "expected " + schema.getFixedSize() + " bytes, got " + bytes.length);
    }
    return model.createFixed(null, bytes, schema);
  }

  private static Object enumSymbol(
      JsonNode json, Schema schema, GenericData model, FieldPath path) {
    require(json.isTextual(), json, schema, path);
    if (!schema.hasEnumSymbol(json.textValue())) {
      throw new ConversionException(
          path.toString(),
          "Unsupported value: "
              + quote(json.textValue())
              + ": supported values: "
              + schema.getEnumSymbols().stream()
                  .map(JsonToAvro::quote)
                  .collect(Collectors.joining(", ")));
    }
    return model.createEnum(json.textValue(), schema);
  }

  private static void require(boolean ok, JsonNode json, Schema schema, FieldPath path) {
    if (!ok) {
      throw mismatch(json, schema, path);
    }
  }

  private static ConversionException mismatch(JsonNode json, Schema schema, FieldPath path) {
    ConversionException e =
        new ConversionException(
            path.toString(), "expected " + KubeTypes.expected(schema) + ", got " + describe(json));
    Schema target = schema;
    if (target.getType() == Schema.Type.UNION) {
      target =
          target.getTypes().stream()
              .filter(t -> t.getType() != Schema.Type.NULL)
              .findFirst()
              .orElse(target);
    }
    String kind = goKind(json);
    return switch (target.getType()) {
      case MAP -> e.withRestoreError("cannot restore map from " + kind);
      case ARRAY -> e.withRestoreError("cannot restore slice from " + kind);
      case RECORD -> e.withRestoreError("cannot restore struct from: " + kind);
      default -> e;
    };
  }

  /** The kind of Go value Kubernetes' JSON decoding would have made of {@code json}. */
  private static String goKind(JsonNode json) {
    return switch (json.getNodeType()) {
      case STRING -> "string";
      case NUMBER -> json.isIntegralNumber() ? "int64" : "float64";
      case BOOLEAN -> "bool";
      case ARRAY -> "slice";
      case OBJECT -> "map";
      default -> "invalid";
    };
  }

  private static String describe(JsonNode json) {
    return switch (json.getNodeType()) {
      case STRING -> "string " + quote(json.textValue());
      case NUMBER -> "number " + json.asText();
      case BOOLEAN -> "boolean " + json.asText();
      case OBJECT, POJO -> "object";
      case ARRAY -> "array";
      case BINARY -> "binary";
      case NULL, MISSING -> "null";
    };
  }

  private static String quote(String text) {
    String shown = text.length() > MAX_QUOTED ? text.substring(0, MAX_QUOTED) + "..." : text;
    return '"' + shown.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
