package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.gson.annotations.SerializedName;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Authorization;
import io.kubernetes.client.proto.V1Batch;
import io.kubernetes.client.proto.V1Certificates;
import io.kubernetes.client.proto.V1Networking;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1Scheduling;
import io.kubernetes.client.proto.V1Storage;
import io.streamplane.gateway.patch.PatchSchema;
import io.streamplane.kinds.ResourceType;
import io.swagger.annotations.ApiModel;
import io.swagger.annotations.ApiModelProperty;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The OpenAPI definitions of the served kinds and of everything they reference, under Kubernetes'
 * definition names ({@code io.k8s.api.core.v1.PodSpec}), generated from Kubernetes' own definitions
 * rather than written here.
 *
 * <p>Sources, combined:
 *
 * <ul>
 *   <li><b>Structure and descriptions</b>: the official Java client's models ({@code
 *       io.kubernetes:client-java-api} 23.x, generated from Kubernetes 1.32's OpenAPI; 24.x is
 *       1.33's). Each model class carries {@code @ApiModel(description)}, each getter
 *       {@code @ApiModelProperty(value, required)} and each field its JSON name in gson's
 *       {@code @SerializedName}; the Java field types give arrays, maps, int32 ({@code Integer})
 *       versus int64 ({@code Long}), {@code byte} ({@code byte[]}), IntOrString, Quantity and
 *       date-times.
 *   <li><b>Names and the types the models blur</b>: the protobuf descriptors of the same API
 *       ({@code io.kubernetes:client-java-proto}). Their message names are the definition names
 *       ({@code k8s.io.api.core.v1.PodSpec}); their field types tell {@code Time} from {@code
 *       MicroTime} and {@code FieldsV1} from {@code RawExtension}, which the models all type {@code
 *       OffsetDateTime} or {@code Object}. The models are preferred for structure because the
 *       published proto jar lags the models (it has no {@code coordination.k8s.io} and misses
 *       fields added in 1.31 and 1.32).
 *   <li><b>Patch and list extensions</b> ({@code x-kubernetes-patch-strategy}, {@code
 *       x-kubernetes-patch-merge-key}, and {@code x-kubernetes-list-type}/{@code
 *       x-kubernetes-list-map-keys} of those lists): from {@link PatchSchema}, the table the
 *       gateway's own strategic merge patch uses, so that kubectl computes patches with the keys
 *       the server merges by.
 * </ul>
 *
 * <p>Output follows kube-apiserver: every definition is an object with sorted properties, its
 * {@code required} fields, and (on the kinds and their lists) {@code
 * x-kubernetes-group-version-kind} as a list. {@code Time} and {@code MicroTime} are date-time
 * strings, {@code IntOrString} is an {@code int-or-string} string (in OpenAPI 3 a {@code oneOf}
 * integer or string with that format), {@code Quantity} a string (in OpenAPI 3 a {@code oneOf}
 * string or number), {@code FieldsV1} and {@code RawExtension} free-form objects. In OpenAPI 3 a
 * reference with a description or extensions is wrapped in {@code allOf}, as kube-apiserver does.
 *
 * <p>Limits: the models lose the description of a field whose type is another object (the OpenAPI 2
 * generator drops siblings of {@code $ref}), so such fields have no description of their own;
 * kubectl explain then shows the referenced type's. {@code Time}, {@code MicroTime} and {@code
 * Quantity} carry no description (the models have none to give). A kind with no proto message
 * ({@code coordination.k8s.io} Lease) types its times as {@code Time} where Kubernetes says {@code
 * MicroTime}; both are date-time strings. A struct the protos lack is named in its parent's
 * package: authorization's {@code FieldSelectorRequirement} (Kubernetes: {@code
 * io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement}). No {@code default} or {@code
 * enum} is published, nor the {@code x-kubernetes-list-type: atomic} of lists a patch replaces and
 * {@code x-kubernetes-map-type}: neither source holds them, and they matter only to server-side
 * apply, which the gateway does not serve.
 */
public final class KubernetesDefinitions {

  /** The two OpenAPI dialects kube-apiserver serves. */
  public enum Dialect {
    SWAGGER_2("#/definitions/"),
    OPENAPI_3("#/components/schemas/");

    private final String refPrefix;

    Dialect(String refPrefix) {
      this.refPrefix = refPrefix;
    }

    public String ref(String definition) {
      return refPrefix + definition;
    }
  }

  public static final String TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
  public static final String MICRO_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
  public static final String QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
  public static final String INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
  public static final String FIELDS_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1";
  public static final String RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension";
  public static final String STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

  private static final String MODELS = "io.kubernetes.client.openapi.models.";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Map<String, Descriptor> PROTOS = protoIndex();

  /** A definition before rendering: references hold bare definition names. */
  private static final class Definition {
    final String description;
    final Map<String, Property> properties = new TreeMap<>();
    final List<String> required = new ArrayList<>();
    final List<ObjectNode> groupVersionKinds = new ArrayList<>();

    Definition(String description) {
      this.description = description;
    }
  }

  private static final class Property {
    final ObjectNode schema;
    final String description;
    final Map<String, JsonNode> extensions = new TreeMap<>();

    Property(ObjectNode schema, String description) {
      this.schema = schema;
      this.description = description;
    }
  }

  private final Map<String, Definition> definitions = new TreeMap<>();
  private final Map<Class<?>, String> names = new HashMap<>();

  /** (definition, patch metadata) pairs already walked; PatchSchema compares by identity. */
  private final Set<Map.Entry<String, PatchSchema>> visits = new HashSet<>();

  private final Set<String> specials = new TreeSet<>();
  private String intOrStringDescription = "";

  private KubernetesDefinitions() {}

  /**
   * The definitions of these kinds (and their lists, for stored kinds), of {@code meta.v1.Status},
   * and of everything they reference, rendered in {@code dialect}; sorted by name.
   */
  public static Map<String, ObjectNode> of(List<ResourceType> types, Dialect dialect) {
    KubernetesDefinitions d = new KubernetesDefinitions();
    d.nameSharedModels();
    // Kinds with a proto message first: they name the shared definitions (ObjectMeta, ...) by
    // their proto package, which a kind without one could only guess.
    // The measured kinds (metrics.k8s.io) have no definitions: metrics-server publishes none.
    // Custom resources have their definition's schema instead (CustomResourceSchemas).
    List<ResourceType> ordered =
        new ArrayList<>(
            types.stream()
                .filter(t -> !t.measured() && CustomResourceSchemas.schemaOf(t).isEmpty())
                .toList());
    ordered.sort(
        Comparator.comparing(t -> PROTOS.containsKey(protoName(definitionName(t))) ? 0 : 1));
    for (ResourceType t : ordered) {
      d.kind(t);
    }
    d.define(model("V1Status"), STATUS, PatchSchema.EMPTY);
    if (CustomResourceSchemas.anyCustom(types)) {
      d.define(model("V1ObjectMeta"), CustomResourceSchemas.OBJECT_META, PatchSchema.EMPTY);
      d.define(model("V1ListMeta"), CustomResourceSchemas.LIST_META, PatchSchema.EMPTY);
    }
    Map<String, ObjectNode> rendered = new TreeMap<>();
    d.definitions.forEach((name, def) -> rendered.put(name, d.render(def, dialect)));
    for (String special : d.specials) {
      rendered.put(special, d.special(special, dialect));
    }
    for (ResourceType t : types) {
      if (CustomResourceSchemas.schemaOf(t).isPresent()) {
        rendered.putAll(CustomResourceSchemas.of(t, dialect));
      }
    }
    return Collections.unmodifiableMap(rendered);
  }

  /**
   * Names the models of meta/v1 and core/v1 by their proto messages before any kind is walked, so
   * that the kinds of a document with no proto message of their own (an OpenAPI v3 document of
   * discovery.k8s.io/v1 or networking.k8s.io/v1beta1) reference ObjectMeta, Condition or
   * ObjectReference under their own names, not their parent's package. The client names a model
   * {@code V1<Name>} only where no other group has a type of that name, so the match is exact.
   */
  private void nameSharedModels() {
    for (Descriptor message : PROTOS.values()) {
      String pkg = message.getFile().getPackage();
      boolean shared =
          pkg.equals("k8s.io.apimachinery.pkg.apis.meta.v1") || pkg.equals("k8s.io.api.core.v1");
      if (shared && message.getContainingType() == null) {
        optionalModel("V1" + message.getName())
            .ifPresent(
                model ->
                    names.putIfAbsent(
                        model, message.getFullName().replaceFirst("^k8s\\.io\\.", "io.k8s.")));
      }
    }
  }

  /**
   * Kubernetes' definition name of a kind: io.k8s.api.core.v1.Pod, io.k8s.api.rbac.v1.Role; for a
   * custom resource, com.example.stable.v1.CronTab.
   */
  public static String definitionName(ResourceType t) {
    if (CustomResourceSchemas.schemaOf(t).isPresent()) {
      return CustomResourceSchemas.definitionName(t);
    }
    return "io.k8s.api." + groupPackage(t.group()) + "." + t.version() + "." + t.kind();
  }

  private static String groupPackage(String group) {
    return group.isEmpty() ? "core" : group.split("\\.")[0];
  }

  private void kind(ResourceType t) {
    String name = definitionName(t);
    Class<?> model = kindModel(t, t.kind());
    PatchSchema patch = PatchSchema.forKind(t.groupVersion(), t.kind()).orElse(PatchSchema.EMPTY);
    define(model, name, patch);
    definitions.get(name).groupVersionKinds.add(gvk(t, t.kind()));
    if (t.stored()) {
      define(kindModel(t, t.listKind()), name + "List", PatchSchema.EMPTY);
      definitions.get(name + "List").groupVersionKinds.add(gvk(t, t.listKind()));
    }
  }

  private static ObjectNode gvk(ResourceType t, String kind) {
    return JSON.objectNode().put("group", t.group()).put("kind", kind).put("version", t.version());
  }

  /** The model class of a kind: CoreV1Event where the client disambiguates, else V1Pod. */
  private static Class<?> kindModel(ResourceType t, String kind) {
    String version = capitalize(t.version());
    String prefixed = capitalize(groupPackage(t.group())) + version + kind;
    return optionalModel(prefixed)
        .or(() -> optionalModel(version + kind))
        .orElseThrow(() -> new IllegalStateException("no client model for " + t.qualifiedKind()));
  }

  private static Class<?> model(String simpleName) {
    return optionalModel(simpleName)
        .orElseThrow(() -> new IllegalStateException("no client model " + simpleName));
  }

  private static Optional<Class<?>> optionalModel(String simpleName) {
    try {
      return Optional.of(Class.forName(MODELS + simpleName));
    } catch (ClassNotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * Defines {@code name} from {@code model} (once) and records the patch extensions {@code patch}
   * gives its properties; recurses into referenced models with the nested patch metadata.
   */
  private void define(Class<?> model, String name, PatchSchema patch) {
    names.putIfAbsent(model, name);
    if (!visits.add(Map.entry(name, patch))) {
      return;
    }
    Descriptor proto = PROTOS.get(protoName(name));
    Definition def = definitions.get(name);
    boolean fresh = def == null;
    if (fresh) {
      ApiModel doc = model.getAnnotation(ApiModel.class);
      def = new Definition(doc == null ? "" : doc.description());
      definitions.put(name, def);
    }
    List<String> required = new ArrayList<>();
    Deque<Runnable> children = new ArrayDeque<>();
    for (ModelProperty p : properties(model)) {
      FieldDescriptor field = proto == null ? null : proto.findFieldByName(p.json());
      if (fresh) {
        ObjectNode schema = schema(p.type(), field, name);
        String description = p.description();
        if (isRef(schema, INT_OR_STRING) && description.startsWith("IntOrString is ")) {
          // The client's generator put IntOrString's own description in place of the field's.
          intOrStringDescription = description;
          description = "";
        }
        def.properties.put(p.json(), new Property(schema, description));
        if (p.required()) {
          required.add(p.json());
        }
      }
      PatchSchema.Field meta = patch.field(p.json());
      extensions(meta).forEach(def.properties.get(p.json()).extensions::put);
      Class<?> child = modelClass(p.type());
      if (child != null) {
        String childName = childName(child, field, name);
        children.add(() -> define(child, childName, meta.schema()));
      }
    }
    for (String tagged : patch.fields().keySet()) {
      if (!def.properties.containsKey(tagged)) {
        throw new IllegalStateException("PatchSchema names " + tagged + ", not a field of " + name);
      }
    }
    if (fresh) {
      // Kubernetes lists required fields in the Go struct's order, which the proto numbering keeps.
      if (proto != null) {
        Descriptor p = proto;
        required.sort(
            Comparator.comparingInt(
                f ->
                    p.findFieldByName(f) == null
                        ? Integer.MAX_VALUE
                        : p.findFieldByName(f).getIndex()));
      }
      def.required.addAll(required);
    }
    children.forEach(Runnable::run);
  }

  /** The extensions of one field, as kube-apiserver derives them from the Go struct tags. */
  static Map<String, JsonNode> extensions(PatchSchema.Field meta) {
    Map<String, JsonNode> ext = new LinkedHashMap<>();
    List<String> strategies = new ArrayList<>();
    if (meta.merge()) {
      strategies.add("merge");
    }
    if (meta.retainKeys()) {
      strategies.add("retainKeys");
    }
    if (!strategies.isEmpty()) {
      ext.put("x-kubernetes-patch-strategy", JSON.textNode(String.join(",", strategies)));
    }
    if (!meta.mergeKey().isEmpty()) {
      ext.put("x-kubernetes-patch-merge-key", JSON.textNode(meta.mergeKey()));
    }
    if (!meta.listType().isEmpty()) {
      ext.put("x-kubernetes-list-type", JSON.textNode(meta.listType()));
    }
    if (!meta.listMapKeys().isEmpty()) {
      ArrayNode keys = JSON.arrayNode();
      meta.listMapKeys().forEach(keys::add);
      ext.put("x-kubernetes-list-map-keys", keys);
    }
    return ext;
  }

  private String childName(Class<?> child, FieldDescriptor field, String parent) {
    String known = names.get(child);
    if (known != null) {
      return known;
    }
    Descriptor message = field == null ? null : elementMessage(field);
    if (message != null) {
      return message.getFullName().replaceFirst("^k8s\\.io\\.", "io.k8s.");
    }
    // No proto for it: Kubernetes keeps a struct in its parent's package.
    String pkg = parent.substring(0, parent.lastIndexOf('.'));
    return pkg
        + "."
        + child.getSimpleName().replaceFirst("^([A-Z][a-z]+)*?V\\d+((alpha|beta)\\d+)?", "");
  }

  /** The message type of a field, of a repeated field's elements or of a map's values. */
  private static Descriptor elementMessage(FieldDescriptor field) {
    if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
      return null;
    }
    Descriptor message = field.getMessageType();
    if (field.isMapField()) {
      FieldDescriptor value = message.findFieldByName("value");
      return value.getJavaType() == FieldDescriptor.JavaType.MESSAGE
          ? value.getMessageType()
          : null;
    }
    return message;
  }

  /** The schema of a Java field type, references holding bare definition names. */
  private ObjectNode schema(Type type, FieldDescriptor field, String owner) {
    if (type instanceof ParameterizedType p) {
      Class<?> raw = (Class<?>) p.getRawType();
      if (List.class.isAssignableFrom(raw)) {
        ObjectNode s = JSON.objectNode().put("type", "array");
        s.set("items", schema(p.getActualTypeArguments()[0], field, owner));
        return s;
      }
      if (Map.class.isAssignableFrom(raw)) {
        ObjectNode s = JSON.objectNode().put("type", "object");
        s.set("additionalProperties", schema(p.getActualTypeArguments()[1], field, owner));
        return s;
      }
      throw new IllegalStateException("unexpected type " + type + " in " + owner);
    }
    Class<?> c = (Class<?>) type;
    if (c == String.class) {
      return JSON.objectNode().put("type", "string");
    }
    if (c == Integer.class) {
      return JSON.objectNode().put("type", "integer").put("format", "int32");
    }
    if (c == Long.class) {
      return JSON.objectNode().put("type", "integer").put("format", "int64");
    }
    if (c == Boolean.class) {
      return JSON.objectNode().put("type", "boolean");
    }
    if (c == Double.class) {
      return JSON.objectNode().put("type", "number").put("format", "double");
    }
    if (c == Float.class) {
      return JSON.objectNode().put("type", "number").put("format", "float");
    }
    if (c == byte[].class) {
      return JSON.objectNode().put("type", "string").put("format", "byte");
    }
    if (c == OffsetDateTime.class) {
      Descriptor m = field == null ? null : elementMessage(field);
      return special(m != null && m.getName().equals("MicroTime") ? MICRO_TIME : TIME);
    }
    if (c == IntOrString.class) {
      return special(INT_OR_STRING);
    }
    if (c == Quantity.class) {
      return special(QUANTITY);
    }
    if (c == Object.class) {
      Descriptor m = field == null ? null : elementMessage(field);
      if (m != null && m.getName().equals("FieldsV1")) {
        return special(FIELDS_V1);
      }
      if (m != null && m.getName().equals("RawExtension")) {
        return special(RAW_EXTENSION);
      }
      return JSON.objectNode().put("type", "object");
    }
    if (c.getName().startsWith(MODELS)) {
      // Named when the walk reaches it; the reference is resolved at rendering.
      return JSON.objectNode().put("$model", c.getName());
    }
    throw new IllegalStateException("unexpected type " + c + " in " + owner);
  }

  private ObjectNode special(String name) {
    specials.add(name);
    return JSON.objectNode().put("$ref", name);
  }

  private static boolean isRef(JsonNode schema, String name) {
    return name.equals(schema.path("$ref").asText());
  }

  private static Class<?> modelClass(Type type) {
    if (type instanceof ParameterizedType p) {
      Type[] args = p.getActualTypeArguments();
      return modelClass(args[args.length - 1]);
    }
    Class<?> c = (Class<?>) type;
    return c.getName().startsWith(MODELS) ? c : null;
  }

  /** One JSON property of a model class. */
  private record ModelProperty(String json, Type type, String description, boolean required) {}

  private static List<ModelProperty> properties(Class<?> model) {
    Map<String, ApiModelProperty> docs = new HashMap<>();
    for (Method m : model.getMethods()) {
      ApiModelProperty doc = m.getAnnotation(ApiModelProperty.class);
      if (doc != null) {
        docs.put(m.getName().replaceFirst("^(get|is)", "").toLowerCase(Locale.ROOT), doc);
      }
    }
    List<ModelProperty> properties = new ArrayList<>();
    for (Field f : model.getDeclaredFields()) {
      SerializedName json = f.getAnnotation(SerializedName.class);
      if (json == null || Modifier.isStatic(f.getModifiers())) {
        continue;
      }
      ApiModelProperty doc = docs.get(f.getName().replaceFirst("^_", "").toLowerCase(Locale.ROOT));
      properties.add(
          new ModelProperty(
              json.value(),
              f.getGenericType(),
              doc == null ? "" : doc.value(),
              doc != null && doc.required()));
    }
    return properties;
  }

  // ---------------------------------------------------------------- rendering

  private ObjectNode render(Definition def, Dialect dialect) {
    ObjectNode out = JSON.objectNode();
    if (!def.description.isEmpty()) {
      out.put("description", def.description);
    }
    if (!def.properties.isEmpty()) {
      ObjectNode props = out.putObject("properties");
      def.properties.forEach((name, p) -> props.set(name, renderProperty(p, dialect)));
    }
    if (!def.required.isEmpty()) {
      ArrayNode required = out.putArray("required");
      def.required.forEach(required::add);
    }
    out.put("type", "object");
    if (!def.groupVersionKinds.isEmpty()) {
      out.putArray("x-kubernetes-group-version-kind").addAll(def.groupVersionKinds);
    }
    return out;
  }

  private ObjectNode renderProperty(Property p, Dialect dialect) {
    ObjectNode schema = resolve(p.schema, dialect);
    boolean ref = schema.has("$ref");
    ObjectNode out = JSON.objectNode();
    if (ref
        && dialect == Dialect.OPENAPI_3
        && (!p.description.isEmpty() || !p.extensions.isEmpty())) {
      out.putArray("allOf").add(schema);
    } else {
      out.setAll(schema);
    }
    if (!p.description.isEmpty()) {
      out.put("description", p.description);
    }
    p.extensions.forEach(out::set);
    return sorted(out);
  }

  /** Replaces bare names and model markers with the dialect's references, recursively. */
  private ObjectNode resolve(ObjectNode schema, Dialect dialect) {
    ObjectNode out = JSON.objectNode();
    schema
        .fields()
        .forEachRemaining(
            e -> {
              switch (e.getKey()) {
                case "$ref" -> out.put("$ref", dialect.ref(e.getValue().asText()));
                case "$model" -> {
                  String name = modelName(e.getValue().asText());
                  out.put("$ref", dialect.ref(name));
                }
                case "items", "additionalProperties" ->
                    out.set(e.getKey(), resolve((ObjectNode) e.getValue(), dialect));
                default -> out.set(e.getKey(), e.getValue());
              }
            });
    return out;
  }

  private String modelName(String className) {
    try {
      String name = names.get(Class.forName(className));
      if (name == null) {
        throw new IllegalStateException("unnamed model " + className);
      }
      return name;
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  private ObjectNode special(String name, Dialect dialect) {
    ObjectNode out = JSON.objectNode();
    switch (name) {
      case TIME, MICRO_TIME -> out.put("format", "date-time").put("type", "string");
      case QUANTITY -> {
        if (dialect == Dialect.OPENAPI_3) {
          ArrayNode oneOf = out.putArray("oneOf");
          oneOf.addObject().put("type", "string");
          oneOf.addObject().put("type", "number");
        } else {
          out.put("type", "string");
        }
      }
      case INT_OR_STRING -> {
        if (!intOrStringDescription.isEmpty()) {
          out.put("description", intOrStringDescription);
        }
        out.put("format", "int-or-string");
        if (dialect == Dialect.OPENAPI_3) {
          ArrayNode oneOf = out.putArray("oneOf");
          oneOf.addObject().put("type", "integer");
          oneOf.addObject().put("type", "string");
        } else {
          out.put("type", "string");
        }
      }
      case FIELDS_V1, RAW_EXTENSION -> out.put("type", "object");
      default -> throw new IllegalStateException(name);
    }
    return out;
  }

  /** The object with its fields in name order, as Kubernetes publishes definitions. */
  static ObjectNode sorted(ObjectNode node) {
    Map<String, JsonNode> fields = new TreeMap<>();
    node.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
    ObjectNode out = JSON.objectNode();
    fields.forEach(out::set);
    return out;
  }

  // ---------------------------------------------------------------- protos

  /** "io.k8s.api.core.v1.Pod" to its proto message name "k8s.io.api.core.v1.Pod". */
  private static String protoName(String definition) {
    return definition.replaceFirst("^io\\.k8s\\.", "k8s.io.");
  }

  /** Every message of the served groups' proto files and of the files they import, by full name. */
  private static Map<String, Descriptor> protoIndex() {
    Map<String, Descriptor> index = new HashMap<>();
    Set<FileDescriptor> files = new LinkedHashSet<>();
    Deque<FileDescriptor> pending =
        new ArrayDeque<>(
            List.of(
                V1.getDescriptor(),
                V1Apps.getDescriptor(),
                V1Batch.getDescriptor(),
                V1Rbac.getDescriptor(),
                V1Authorization.getDescriptor(),
                V1Scheduling.getDescriptor(),
                V1Networking.getDescriptor(),
                V1Storage.getDescriptor(),
                V1Certificates.getDescriptor()));
    while (!pending.isEmpty()) {
      FileDescriptor f = pending.pop();
      if (files.add(f)) {
        pending.addAll(f.getDependencies());
      }
    }
    Deque<Descriptor> messages = new ArrayDeque<>();
    files.forEach(f -> messages.addAll(f.getMessageTypes()));
    while (!messages.isEmpty()) {
      Descriptor m = messages.pop();
      index.put(m.getFullName(), m);
      messages.addAll(m.getNestedTypes());
    }
    return Map.copyOf(index);
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }
}
