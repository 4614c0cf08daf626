package io.streamplane.schema.convert;

import java.util.stream.Collectors;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;

/**
 * The schema conventions of {@code kubernetes.avdl} that change how a value looks in JSON, and the
 * words error messages use for a schema type.
 */
final class KubeTypes {

  static final String QUANTITY = "k8s-quantity";
  static final String ALWAYS = "k8s-always";
  static final String JSON = "k8s-json";

  static final String REST = "k8s-rest";

  private static final com.fasterxml.jackson.databind.ObjectMapper SORTED =
      com.fasterxml.jackson.databind.json.JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private KubeTypes() {}

  /**
   * The field of a record tagged {@code @k8s-rest("field")} that holds, as one JSON object, every
   * member of the JSON object the record's other fields do not model (a custom object's {@code
   * spec} and the rest); null for every other record.
   */
  static Schema.Field restField(Schema record) {
    String name = record.getProp(REST);
    return name == null ? null : record.getField(name);
  }

  /** The branch of an optional schema that is not null. */
  static Schema nonNull(Schema schema) {
    if (schema.getType() != Schema.Type.UNION) {
      return schema;
    }
    return schema.getTypes().stream()
        .filter(branch -> branch.getType() != Schema.Type.NULL)
        .findFirst()
        .orElse(schema);
  }

  /**
   * The compact JSON of a value with the keys of every object sorted, as Go writes a map: the text
   * of a {@code k8s-json} field depends on the value alone, not on the order a client sent it in.
   */
  static String sortedJson(com.fasterxml.jackson.databind.JsonNode json) {
    try {
      Object plain = SORTED.treeToValue(json, Object.class);
      return SORTED.writeValueAsString(plain);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }

  /**
   * A string tagged {@code @logicalType("k8s-quantity")}; Avro keeps unknown logical types as a
   * prop.
   */
  static boolean isQuantity(Schema schema) {
    return schema.getType() == Schema.Type.STRING
        && QUANTITY.equals(schema.getProp(LogicalType.LOGICAL_TYPE_PROP));
  }

  /**
   * A string tagged {@code @logicalType("k8s-json")}: the compact JSON text of a value Kubernetes
   * keeps as raw JSON ({@code metav1.FieldsV1}); in JSON it is that value itself.
   */
  static boolean isJson(Schema schema) {
    return schema.getType() == Schema.Type.STRING
        && JSON.equals(schema.getProp(LogicalType.LOGICAL_TYPE_PROP));
  }

  /**
   * A field carrying the {@code k8s-always} property set to true: Kubernetes writes it even when
   * empty (its Go JSON tag has no {@code omitempty}).
   */
  static boolean isAlwaysWritten(Schema.Field field) {
    return Boolean.TRUE.equals(field.getObjectProp(ALWAYS));
  }

  /**
   * The JSON Go writes for the zero value of a field of this schema, or null when Streamplane has
   * no such field (only strings, numbers and booleans are tagged).
   */
  static Object goZeroValue(Schema schema) {
    Schema type = schema;
    if (schema.getType() == Schema.Type.UNION) {
      type =
          schema.getTypes().stream()
              .filter(branch -> branch.getType() != Schema.Type.NULL)
              .findFirst()
              .orElse(schema);
    }
    return switch (type.getType()) {
      case STRING -> "";
      case INT, LONG -> 0;
      case BOOLEAN -> false;
      default -> null;
    };
  }

  static boolean isTimestamp(Schema schema) {
    return schema.getType() == Schema.Type.LONG
        && (isMicros(schema) || "timestamp-millis".equals(logicalTypeName(schema)));
  }

  static boolean isMicros(Schema schema) {
    return "timestamp-micros".equals(logicalTypeName(schema));
  }

  private static String logicalTypeName(Schema schema) {
    LogicalType type = schema.getLogicalType();
    return type == null ? null : type.getName();
  }

  /** What a JSON document must hold for this schema, in the words of a decode error. */
  static String expected(Schema schema) {
    return switch (schema.getType()) {
      case UNION ->
          schema.getTypes().stream()
              .filter(branch -> branch.getType() != Schema.Type.NULL)
              .map(KubeTypes::expected)
              .distinct()
              .collect(Collectors.joining(" or "));
      case RECORD, MAP -> "object";
      case ARRAY -> "array";
      case STRING ->
          isQuantity(schema) ? "quantity (string or number)" : isJson(schema) ? "object" : "string";
      case ENUM -> "string";
      case BYTES, FIXED -> "base64 string";
      case INT, LONG -> isTimestamp(schema) ? "RFC 3339 timestamp string" : "integer";
      case FLOAT, DOUBLE -> "number";
      case BOOLEAN -> "boolean";
      case NULL -> "null";
    };
  }
}
