package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;
import io.streamplane.kinds.apiextensions.CustomResourceStrategy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The OpenAPI definitions of a custom resource's served version, built from its definition's {@code
 * openAPIV3Schema} as apiextensions-apiserver's OpenAPI builder builds them: the kind under the
 * REST-friendly name of its group-version-kind ({@code com.example.stable.v1.CronTab}), its schema
 * with {@code apiVersion} and {@code kind} described, {@code metadata} a reference to {@code
 * ObjectMeta}, and {@code x-kubernetes-group-version-kind}; the list kind beside it ({@code items}
 * of the kind, {@code metadata} a reference to {@code ListMeta}).
 *
 * <p>In Swagger 2 the schema is cut to what Swagger 2 can say, as the builder's v2 conversion cuts
 * it: {@code nullable}, {@code oneOf}, {@code anyOf}, {@code not} and the CEL rules are dropped,
 * and a field that is {@code x-kubernetes-int-or-string} or {@code
 * x-kubernetes-preserve-unknown-fields} without properties loses its type, so that kubectl's
 * client-side checks accept what the server accepts.
 */
public final class CustomResourceSchemas {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
  static final String LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
  private static final String API_VERSION =
      "APIVersion defines the versioned schema of this representation of an object. Servers"
          + " should convert recognized schemas to the latest internal value, and may reject"
          + " unrecognized values. More info:"
          + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
  private static final String KIND =
      "Kind is a string value representing the REST resource this object represents. Servers may"
          + " infer this from the endpoint the client submits requests to. Cannot be updated. In"
          + " CamelCase. More info:"
          + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
  private static final String METADATA =
      "Standard object's metadata. More info:"
          + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
  private static final String LIST_METADATA =
      "Standard list metadata. More info:"
          + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
  private static final Set<String> NOT_IN_SWAGGER_2 =
      Set.of("nullable", "oneOf", "anyOf", "not", "x-kubernetes-validations");

  private CustomResourceSchemas() {}

  /** The schema of a custom resource's row, when it is one. */
  public static Optional<JsonNode> schemaOf(ResourceType t) {
    return t.strategy() instanceof CustomResourceStrategy s
        ? Optional.of(s.openApiSchema())
        : Optional.empty();
  }

  /**
   * apiextensions' {@code ToRESTFriendlyName} of {@code group/version/kind}: the group's labels
   * reversed, then version and kind ({@code com.example.stable.v1.CronTab}).
   */
  public static String definitionName(ResourceType t) {
    List<String> labels = new ArrayList<>(List.of(t.group().split("\\.")));
    Collections.reverse(labels);
    return String.join(".", labels) + "." + t.version() + "." + t.kind();
  }

  /** The kind's and its list's definitions, by name, in {@code dialect}. */
  static Map<String, ObjectNode> of(ResourceType t, KubernetesDefinitions.Dialect dialect) {
    JsonNode declared = schemaOf(t).orElseThrow();
    boolean swagger2 = dialect == KubernetesDefinitions.Dialect.SWAGGER_2;
    ObjectNode kind = declared.isObject() ? ((ObjectNode) declared).deepCopy() : JSON.objectNode();
    if (swagger2) {
      kind = toSwagger2(kind);
    }
    if (!kind.has("type")) {
      kind.put("type", "object");
    }
    ObjectNode properties = kind.with("properties");
    properties.set("apiVersion", text(API_VERSION));
    properties.set("kind", text(KIND));
    properties.set("metadata", reference(OBJECT_META, METADATA, dialect));
    kind.set("properties", KubernetesDefinitions.sorted(properties));
    kind.putArray("x-kubernetes-group-version-kind").add(gvk(t, t.kind()));

    ObjectNode list = JSON.objectNode();
    list.put("description", t.listKind() + " is a list of " + t.kind());
    ObjectNode listProperties = list.putObject("properties");
    listProperties.set("apiVersion", text(API_VERSION));
    ObjectNode items = listProperties.putObject("items");
    items
        .put(
            "description",
            "List of "
                + t.plural()
                + ". More info:"
                + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md")
        .put("type", "array")
        .putObject("items")
        .put("$ref", dialect.ref(definitionName(t)));
    listProperties.set("kind", text(KIND));
    listProperties.set("metadata", reference(LIST_META, LIST_METADATA, dialect));
    list.putArray("required").add("items");
    list.put("type", "object");
    list.putArray("x-kubernetes-group-version-kind").add(gvk(t, t.listKind()));

    Map<String, ObjectNode> out = new TreeMap<>();
    out.put(definitionName(t), kind);
    out.put(definitionName(t) + "List", list);
    return out;
  }

  private static ObjectNode text(String description) {
    return JSON.objectNode().put("description", description).put("type", "string");
  }

  private static ObjectNode reference(
      String definition, String description, KubernetesDefinitions.Dialect dialect) {
    ObjectNode ref = JSON.objectNode().put("$ref", dialect.ref(definition));
    if (dialect == KubernetesDefinitions.Dialect.SWAGGER_2) {
      return ref.put("description", description);
    }
    ObjectNode out = JSON.objectNode();
    out.putArray("allOf").add(ref);
    out.put("description", description);
    return out;
  }

  private static ObjectNode gvk(ResourceType t, String kind) {
    return JSON.objectNode().put("group", t.group()).put("kind", kind).put("version", t.version());
  }

  /** A structural schema as Swagger 2 can hold it, recursively. */
  private static ObjectNode toSwagger2(ObjectNode schema) {
    ObjectNode out = JSON.objectNode();
    schema
        .fields()
        .forEachRemaining(
            e -> {
              String key = e.getKey();
              JsonNode value = e.getValue();
              if (NOT_IN_SWAGGER_2.contains(key)) {
                return;
              }
              switch (key) {
                case "properties" -> {
                  ObjectNode props = out.putObject("properties");
                  value
                      .fields()
                      .forEachRemaining(
                          p ->
                              props.set(
                                  p.getKey(),
                                  p.getValue().isObject()
                                      ? toSwagger2((ObjectNode) p.getValue())
                                      : p.getValue()));
                }
                case "items", "additionalProperties" ->
                    out.set(key, value.isObject() ? toSwagger2((ObjectNode) value) : value);
                default -> out.set(key, value);
              }
            });
    boolean freeForm =
        schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
            && !schema.has("properties");
    if (schema.path("x-kubernetes-int-or-string").asBoolean(false)
        || schema.path("nullable").asBoolean(false)
        || freeForm) {
      out.remove("type");
      out.remove("items");
    }
    return out;
  }

  /** Whether any of these rows is a custom resource. */
  static boolean anyCustom(List<ResourceType> types) {
    return types.stream().anyMatch(t -> schemaOf(t).isPresent());
  }
}
