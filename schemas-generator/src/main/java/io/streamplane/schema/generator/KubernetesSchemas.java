package io.streamplane.schema.generator;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The Avro records of the Kubernetes kinds Streamplane stores and of every message they reference,
 * mapped from the protobuf descriptors field by field, the way Streamplane's JSON converter reads
 * them:
 *
 * <ul>
 *   <li>field names are the Kubernetes JSON names (the descriptors' names), in the order of the Go
 *       struct (the descriptors' order); a kind gets {@code apiVersion} and {@code kind} first; the
 *       fields of a struct Go embeds inline take its place ({@link
 *       KubernetesModels.Model#jsonFields});
 *   <li>every field is optional: {@code union { null, T } f = null}, so absent and empty stay
 *       apart;
 *   <li>int32 is int, int64 long, bool boolean, double double, string string, bytes bytes; a
 *       repeated field is an array, a proto map a map with string keys;
 *   <li>resource.Quantity is a string tagged {@code @logicalType("k8s-quantity")};
 *       intstr.IntOrString is {@code union { null, int, string }}; meta/v1 Time is a {@code
 *       timestamp-millis} long, MicroTime a {@code timestamp-micros} long; meta/v1 FieldsV1 and
 *       runtime.RawExtension hold arbitrary JSON, kept as its compact text in a string tagged
 *       {@code @logicalType("k8s-json")};
 *   <li>a field kube-openapi marks required (see {@link KubernetesModels}) carries {@code
 *       k8s-always: true}: Kubernetes writes it even when empty;
 *   <li>record names follow {@link RecordNames}; what Streamplane keeps beyond the release is in
 *       {@link ShippedDifferences}.
 * </ul>
 */
public final class KubernetesSchemas {

  public static final String NAMESPACE = "io.streamplane.api";
  public static final String QUANTITY = "k8s-quantity";
  public static final String JSON = "k8s-json";
  public static final String ALWAYS = "k8s-always";

  private static final String META = "k8s.io.apimachinery.pkg.apis.meta.v1.";
  static final String QUANTITY_MESSAGE = "k8s.io.apimachinery.pkg.api.resource.Quantity";
  static final String INT_OR_STRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";
  static final String TIME = META + "Time";
  static final String MICRO_TIME = META + "MicroTime";
  static final String FIELDS_V1 = META + "FieldsV1";
  static final String DURATION = META + "Duration";
  static final String RAW_EXTENSION = "k8s.io.apimachinery.pkg.runtime.RawExtension";

  private final RecordNames names;
  private final Map<String, Schema> records = new LinkedHashMap<>();
  private final List<Schema> ordered = new ArrayList<>();

  private KubernetesSchemas(List<Descriptor> kinds) {
    Set<Descriptor> reached = new LinkedHashSet<>();
    kinds.forEach(kind -> reach(kind, reached));
    this.names = new RecordNames(reached);
    Set<String> kindNames = new LinkedHashSet<>();
    kinds.forEach(kind -> kindNames.add(kind.getFullName()));
    for (Descriptor kind : kinds) {
      record(kind, kindNames);
    }
  }

  /**
   * The records of {@code kinds} and of everything they reference, each after the records its
   * fields use.
   */
  public static List<Schema> of(List<Descriptor> kinds) {
    return List.copyOf(new KubernetesSchemas(kinds).ordered);
  }

  /** The records of the stored kinds ({@link StoredKinds}). */
  public static List<Schema> stored() {
    return of(StoredKinds.all());
  }

  private static void reach(Descriptor message, Set<Descriptor> reached) {
    if (scalar(message.getFullName()) || !reached.add(message)) {
      return;
    }
    for (FieldDescriptor field : KubernetesModels.of(message).jsonFields(message)) {
      FieldDescriptor value =
          field.isMapField() ? field.getMessageType().findFieldByName("value") : field;
      if (value.getType() == FieldDescriptor.Type.MESSAGE) {
        reach(value.getMessageType(), reached);
      }
    }
  }

  /** Whether a message is written in JSON as a scalar (a string, a number or raw JSON). */
  private static boolean scalar(String fullName) {
    return switch (fullName) {
      case QUANTITY_MESSAGE, INT_OR_STRING, TIME, MICRO_TIME, FIELDS_V1, DURATION, RAW_EXTENSION ->
          true;
      default -> false;
    };
  }

  private Schema record(Descriptor message, Set<String> kinds) {
    Schema existing = records.get(message.getFullName());
    if (existing != null) {
      return existing;
    }
    String name = names.of(message);
    Schema record =
        Schema.createRecord(
            name,
            "Kubernetes " + message.getFullName().replace("k8s.io.", "") + ".",
            NAMESPACE,
            false);
    records.put(message.getFullName(), record);
    KubernetesModels.Model model = KubernetesModels.of(message);
    List<Schema.Field> fields = new ArrayList<>();
    if (kinds.contains(message.getFullName()) && model.hasTypeMeta()) {
      for (String typeMeta : List.of("apiVersion", "kind")) {
        if (message.findFieldByName(typeMeta) == null) {
          fields.add(optional(typeMeta, Schema.create(Schema.Type.STRING)));
        }
      }
    }
    for (FieldDescriptor field : model.jsonFields(message)) {
      Schema.Field avroField = optional(field.getName(), fieldType(field, kinds));
      if (model.required().contains(field.getName())) {
        avroField.addProp(ALWAYS, true);
      }
      fields.add(avroField);
    }
    for (Map.Entry<String, Schema> extra : ShippedDifferences.extraFields(name).entrySet()) {
      fields.add(optional(extra.getKey(), extra.getValue()));
    }
    record.setFields(fields);
    ordered.add(record);
    return record;
  }

  private static Schema.Field optional(String name, Schema type) {
    Schema union =
        type.getType() == Schema.Type.UNION
            ? type
            : Schema.createUnion(Schema.create(Schema.Type.NULL), type);
    return new Schema.Field(name, union, null, JsonProperties.NULL_VALUE);
  }

  /** The type of a field; a union including null for IntOrString, the optional branch added. */
  private Schema fieldType(FieldDescriptor field, Set<String> kinds) {
    if (field.isMapField()) {
      return Schema.createMap(
          valueType(field.getMessageType().findFieldByName("value"), kinds, false));
    }
    if (field.isRepeated()) {
      return Schema.createArray(valueType(field, kinds, false));
    }
    return valueType(field, kinds, true);
  }

  private Schema valueType(FieldDescriptor field, Set<String> kinds, boolean nullable) {
    return switch (field.getType()) {
      case STRING -> Schema.create(Schema.Type.STRING);
      case INT32, SINT32, SFIXED32 -> Schema.create(Schema.Type.INT);
      case INT64, SINT64, SFIXED64 -> Schema.create(Schema.Type.LONG);
      case BOOL -> Schema.create(Schema.Type.BOOLEAN);
      case DOUBLE -> Schema.create(Schema.Type.DOUBLE);
      case FLOAT -> Schema.create(Schema.Type.FLOAT);
      case BYTES -> Schema.create(Schema.Type.BYTES);
      case MESSAGE -> messageType(field.getMessageType(), kinds, nullable);
      default ->
          throw new IllegalStateException(
              field.getFullName() + ": no Avro mapping for proto type " + field.getType());
    };
  }

  private Schema messageType(Descriptor message, Set<String> kinds, boolean nullable) {
    return switch (message.getFullName()) {
      case QUANTITY_MESSAGE -> tagged(QUANTITY);
      case FIELDS_V1, RAW_EXTENSION -> tagged(JSON);
      case TIME -> LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
      case MICRO_TIME ->
          LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      // metav1.Duration is written as Go's duration text ("1h30m").
      case DURATION -> Schema.create(Schema.Type.STRING);
      case INT_OR_STRING ->
          nullable
              ? Schema.createUnion(
                  Schema.create(Schema.Type.NULL),
                  Schema.create(Schema.Type.INT),
                  Schema.create(Schema.Type.STRING))
              : Schema.createUnion(
                  Schema.create(Schema.Type.INT), Schema.create(Schema.Type.STRING));
      default -> record(message, kinds);
    };
  }

  private static Schema tagged(String logicalType) {
    Schema string = Schema.create(Schema.Type.STRING);
    string.addProp("logicalType", logicalType);
    return string;
  }
}
