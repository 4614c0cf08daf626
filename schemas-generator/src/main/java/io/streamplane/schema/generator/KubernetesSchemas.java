package io.streamplane.schema.generator;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.lang.reflect.ParameterizedType;
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
 *       repeated field is an array, a proto map a map with string keys; a message standing for a Go
 *       named slice (certificates' {@code ExtraValue}) is the array of its items;
 *   <li>resource.Quantity is a string tagged {@code @logicalType("k8s-quantity")};
 *       intstr.IntOrString is {@code union { null, int, string }}; meta/v1 Time is a {@code
 *       timestamp-millis} long, MicroTime a {@code timestamp-micros} long; meta/v1 FieldsV1 and
 *       runtime.RawExtension hold arbitrary JSON, kept as its compact text in a string tagged
 *       {@code @logicalType("k8s-json")};
 *   <li>a field kube-openapi marks required (see {@link KubernetesModels}) carries {@code
 *       k8s-always: true}: Kubernetes writes it even when empty;
 *   <li>record names follow {@link RecordNames}.
 * </ul>
 *
 * <p>client-java-proto 24.0.0 trails client-java-api 24.0.0: a few fields of the official models
 * (such as {@code PodSecurityContext.supplementalGroupsPolicy} or {@code NodeStatus.features}) are
 * missing from its descriptors. Those follow the descriptor's fields, in the model's (alphabetical)
 * order, typed from the model's Java fields: String, Integer, Long, Boolean, Double, byte[], List,
 * Map, Quantity, IntOrString and Object (raw JSON) map as above, a model class to the proto message
 * of its name or else to a record built from the model; a date-time is refused, as the model does
 * not tell Time from MicroTime.
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
    if (scalar(message.getFullName())) {
      return;
    }
    FieldDescriptor items = namedSliceItems(message);
    if (items != null) {
      if (items.getType() == FieldDescriptor.Type.MESSAGE) {
        reach(items.getMessageType(), reached);
      }
      return;
    }
    if (!reached.add(message)) {
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

  /**
   * The items of a message that stands for a Go named slice type, or null. go-to-protobuf wraps a
   * named slice ({@code type ExtraValue []string}) in a message of one repeated field {@code
   * items}; JSON writes the slice itself, and the client models have no class for it.
   */
  static FieldDescriptor namedSliceItems(Descriptor message) {
    if (message.getFields().size() != 1) {
      return null;
    }
    FieldDescriptor items = message.getFields().get(0);
    if (!items.getName().equals("items") || !items.isRepeated() || KubernetesModels.has(message)) {
      return null;
    }
    return items;
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
      Schema.Field avroField = optional(model.jsonName(field), fieldType(field, kinds));
      if (model.required().contains(model.jsonName(field))) {
        avroField.addProp(ALWAYS, true);
      }
      fields.add(avroField);
    }
    // client-java-proto trails client-java-api by a few releases: the fields only the model has
    // follow, typed from the model's Java fields.
    Set<String> written = new LinkedHashSet<>();
    fields.forEach(field -> written.add(field.name()));
    for (Map.Entry<String, java.lang.reflect.Field> extra : model.javaFields().entrySet()) {
      if (written.add(extra.getKey())) {
        fields.add(modelField(model, extra.getKey(), extra.getValue(), message));
      }
    }
    record.setFields(fields);
    ordered.add(record);
    return record;
  }

  /** A record for a type only client-java-api has (a type newer than client-java-proto). */
  private Schema modelRecord(Class<?> type, Descriptor context) {
    String simpleName = type.getSimpleName().replaceFirst("^V\\d+((alpha|beta)\\d+)?", "");
    Descriptor message = context.getFile().findMessageTypeByName(simpleName);
    if (message != null) {
      return record(message, Set.of());
    }
    String key = type.getName();
    Schema existing = records.get(key);
    if (existing != null) {
      return existing;
    }
    if (names.uses(simpleName)
        || records.values().stream().anyMatch(r -> r.getName().equals(simpleName))) {
      throw new IllegalStateException(
          type.getName() + ": its name " + simpleName + " is taken; extend RecordNames");
    }
    Schema record =
        Schema.createRecord(
            simpleName,
            "Kubernetes "
                + context.getFile().getPackage().replace("k8s.io.", "")
                + "."
                + simpleName
                + " (from client-java-api's "
                + type.getSimpleName()
                + ").",
            NAMESPACE,
            false);
    records.put(key, record);
    KubernetesModels.Model model = KubernetesModels.ofClass(type);
    List<Schema.Field> fields = new ArrayList<>();
    for (Map.Entry<String, java.lang.reflect.Field> field : model.javaFields().entrySet()) {
      fields.add(modelField(model, field.getKey(), field.getValue(), context));
    }
    record.setFields(fields);
    ordered.add(record);
    return record;
  }

  private Schema.Field modelField(
      KubernetesModels.Model model,
      String name,
      java.lang.reflect.Field field,
      Descriptor context) {
    Schema.Field avroField = optional(name, javaType(field.getGenericType(), context, true, field));
    if (model.required().contains(name)) {
      avroField.addProp(ALWAYS, true);
    }
    return avroField;
  }

  private Schema javaType(
      java.lang.reflect.Type type, Descriptor context, boolean nullable, Object where) {
    if (type instanceof ParameterizedType parameterized
        && parameterized.getRawType() instanceof Class<?> raw) {
      java.lang.reflect.Type[] arguments = parameterized.getActualTypeArguments();
      if (List.class.isAssignableFrom(raw)) {
        return Schema.createArray(javaType(arguments[0], context, false, where));
      }
      if (Map.class.isAssignableFrom(raw) && arguments[0] == String.class) {
        return Schema.createMap(javaType(arguments[1], context, false, where));
      }
    }
    if (type instanceof Class<?> c) {
      switch (c.getName()) {
        case "java.lang.String":
          return Schema.create(Schema.Type.STRING);
        case "java.lang.Integer":
          return Schema.create(Schema.Type.INT);
        case "java.lang.Long":
          return Schema.create(Schema.Type.LONG);
        case "java.lang.Boolean":
          return Schema.create(Schema.Type.BOOLEAN);
        case "java.lang.Double":
          return Schema.create(Schema.Type.DOUBLE);
        case "[B":
          return Schema.create(Schema.Type.BYTES);
        case "io.kubernetes.client.custom.Quantity":
          return tagged(QUANTITY);
        case "io.kubernetes.client.custom.IntOrString":
          return intOrString(nullable);
        case "java.lang.Object":
          return tagged(JSON);
        default:
          if (c.getName().startsWith(KubernetesModels.MODELS)) {
            return modelRecord(c, context);
          }
      }
    }
    // java.time.OffsetDateTime stands for both metav1.Time and MicroTime: refuse to guess.
    throw new IllegalStateException(where + ": no Avro mapping for the model type " + type);
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
      case INT_OR_STRING -> intOrString(nullable);
      default -> {
        FieldDescriptor items = namedSliceItems(message);
        yield items != null
            ? Schema.createArray(valueType(items, kinds, false))
            : record(message, kinds);
      }
    };
  }

  private static Schema intOrString(boolean nullable) {
    return nullable
        ? Schema.createUnion(
            Schema.create(Schema.Type.NULL),
            Schema.create(Schema.Type.INT),
            Schema.create(Schema.Type.STRING))
        : Schema.createUnion(Schema.create(Schema.Type.INT), Schema.create(Schema.Type.STRING));
  }

  private static Schema tagged(String logicalType) {
    Schema string = Schema.create(Schema.Type.STRING);
    string.addProp("logicalType", logicalType);
    return string;
  }
}
