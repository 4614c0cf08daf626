package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code /openapi/v2}: the Swagger 2.0 document kube-apiserver serves, with the definitions of
 * every served kind and of everything they reference (the same {@link KubernetesDefinitions} as
 * {@link OpenApiV3}, in Swagger 2 form: {@code $ref} with sibling descriptions, IntOrString a
 * string of format {@code int-or-string}, Quantity a string) and, per kind, the operations
 * kubectl's Swagger-2 readers look for (GET and PATCH of an object, POST of the access reviews),
 * tagged with {@code x-kubernetes-group-version-kind}.
 *
 * <p>Served as JSON and, as kube-apiserver serves it and client-go's {@code OpenAPISchema} reads
 * it, as protobuf ({@link OpenApiV2Protobuf}, media type {@link #PROTOBUF}).
 *
 * <p>Contract: the built-in kinds' part is built once, at the first request; a custom resource's
 * paths and definitions ({@link CustomResourceSchemas}) are added at the first request after its
 * definition changed.
 */
public final class OpenApiV2 {

  /** The protobuf media type kube-apiserver serves the document in and client-go asks for. */
  public static final String PROTOBUF =
      "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** The Content-Type of the protobuf form, as kube-apiserver writes it. */
  public static final String PROTOBUF_CONTENT_TYPE =
      "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

  private final ResourceRegistry registry;
  private ObjectNode builtIn;
  private List<ResourceType> customRows;
  private ObjectNode document;
  private byte[] protobuf;

  public OpenApiV2(ResourceRegistry registry) {
    this.registry = registry;
  }

  /**
   * The document; callers must not change it. The built-in kinds' part is built once; the custom
   * resources' paths and definitions are added again whenever the registry's custom rows changed.
   */
  public synchronized ObjectNode document() {
    if (builtIn == null) {
      builtIn =
          build(
              registry.all().stream()
                  .filter(t -> !t.measured() && CustomResourceSchemas.schemaOf(t).isEmpty())
                  .toList());
    }
    List<ResourceType> rows = registry.custom();
    if (document == null || rows != customRows) {
      customRows = rows;
      protobuf = null;
      document = rows.isEmpty() ? builtIn : withCustom(builtIn, build(rows));
    }
    return document;
  }

  /** The document in gnostic's protobuf form, compiled once per document. */
  public synchronized byte[] protobuf() {
    ObjectNode current = document();
    if (protobuf == null) {
      protobuf = OpenApiV2Protobuf.encode(current);
    }
    return protobuf;
  }

  /**
   * The built-in document with the custom kinds' paths and definitions; the definitions both have
   * (ObjectMeta, Status) stay the built-in ones, which carry the built-in kinds' patch extensions.
   */
  private static ObjectNode withCustom(ObjectNode builtIn, ObjectNode custom) {
    ObjectNode merged = builtIn.deepCopy();
    Map<String, JsonNode> paths = new TreeMap<>();
    merged.path("paths").fields().forEachRemaining(e -> paths.put(e.getKey(), e.getValue()));
    custom
        .path("paths")
        .fields()
        .forEachRemaining(e -> paths.putIfAbsent(e.getKey(), e.getValue()));
    Map<String, JsonNode> definitions = new TreeMap<>();
    merged
        .path("definitions")
        .fields()
        .forEachRemaining(e -> definitions.put(e.getKey(), e.getValue()));
    custom
        .path("definitions")
        .fields()
        .forEachRemaining(e -> definitions.putIfAbsent(e.getKey(), e.getValue()));
    ObjectNode pathsNode = merged.putObject("paths");
    paths.forEach(pathsNode::set);
    ObjectNode definitionsNode = merged.putObject("definitions");
    definitions.forEach(definitionsNode::set);
    return merged;
  }

  /** Whether an {@code Accept} header asks for the protobuf form (before JSON, when both). */
  public static boolean prefersProtobuf(String accept) {
    if (accept == null) {
      return false;
    }
    for (String range : accept.split(",")) {
      String type = range.split(";")[0].trim().toLowerCase(Locale.ROOT);
      if (type.equals(PROTOBUF) || type.equals(PROTOBUF_CONTENT_TYPE)) {
        return true;
      }
      if (type.equals("application/json")) {
        return false;
      }
    }
    return false;
  }

  /**
   * Whether an {@code Accept} header admits the JSON form: absent, {@code application/json}, {@code
   * application/*} or {@code *}{@code /*}, with or without parameters.
   */
  public static boolean acceptsJson(String accept) {
    if (accept == null || accept.isBlank()) {
      return true;
    }
    for (String range : accept.split(",")) {
      String type = range.split(";")[0].trim().toLowerCase(Locale.ROOT);
      if (type.equals("application/json") || type.equals("application/*") || type.equals("*/*")) {
        return true;
      }
    }
    return false;
  }

  private static ObjectNode build(List<ResourceType> types) {
    ObjectNode doc = JSON.objectNode();
    doc.put("swagger", "2.0");
    doc.putObject("info").put("title", "Kubernetes").put("version", Discovery.GIT_VERSION);
    Map<String, ObjectNode> paths = new TreeMap<>();
    for (ResourceType t : types) {
      String collection = t.groupVersionPath() + collectionPath(t);
      if (!t.stored()) {
        ObjectNode item = JSON.objectNode();
        item.set("post", operation(t, "create", "post"));
        item.set("parameters", pathParameters(t.namespaced(), false));
        paths.put(collection, item);
        continue;
      }
      ObjectNode item = JSON.objectNode();
      item.set("get", operation(t, "read", "get"));
      item.set("patch", operation(t, "patch", "patch"));
      item.set("parameters", pathParameters(t.namespaced(), true));
      paths.put(collection + "/{name}", item);
    }
    ObjectNode pathsNode = doc.putObject("paths");
    paths.forEach(pathsNode::set);
    ObjectNode definitions = doc.putObject("definitions");
    Map<String, ObjectNode> defs =
        new TreeMap<>(KubernetesDefinitions.of(types, KubernetesDefinitions.Dialect.SWAGGER_2));
    defs.put(
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
        JSON.objectNode()
            .put(
                "description",
                "Patch is provided to give a concrete name and type to the Kubernetes PATCH request"
                    + " body.")
            .put("type", "object"));
    defs.forEach(definitions::set);
    ObjectNode security = doc.putObject("securityDefinitions").putObject("BearerToken");
    security
        .put("description", "Bearer Token authentication")
        .put("in", "header")
        .put("name", "authorization")
        .put("type", "apiKey");
    doc.putArray("security").addObject().putArray("BearerToken");
    return doc;
  }

  private static String collectionPath(ResourceType t) {
    return (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural();
  }

  private static ArrayNode pathParameters(boolean namespaced, boolean named) {
    ArrayNode params = JSON.arrayNode();
    if (named) {
      params.add(parameter("name", "path", "string", "name of the resource").put("required", true));
    }
    if (namespaced) {
      params.add(
          parameter(
                  "namespace",
                  "path",
                  "string",
                  "object name and auth scope, such as for teams and projects")
              .put("required", true));
    }
    return params;
  }

  private static ObjectNode parameter(String name, String in, String type, String description) {
    return JSON.objectNode()
        .put("description", description)
        .put("in", in)
        .put("name", name)
        .put("type", type)
        .put("uniqueItems", true);
  }

  private static ObjectNode operation(ResourceType t, String action, String kubernetesAction) {
    ObjectNode op = JSON.objectNode();
    String ref = "#/definitions/" + KubernetesDefinitions.definitionName(t);
    ArrayNode consumes = op.putArray("consumes");
    if (kubernetesAction.equals("patch")) {
      OpenApiV3.patchContentTypes(t).forEach(consumes::add);
    } else {
      consumes.add("*/*");
    }
    op.put("description", action + " the specified " + t.kind());
    op.put("operationId", action + operationSuffix(t));
    ArrayNode params = op.putArray("parameters");
    params.add(
        parameter("pretty", "query", "string", "If 'true', then the output is pretty printed."));
    if (!kubernetesAction.equals("get")) {
      params.add(
          parameter(
              "dryRun",
              "query",
              "string",
              "When present, indicates that modifications should not be persisted."));
      params.add(
          parameter(
              "fieldManager",
              "query",
              "string",
              "fieldManager is a name associated with the actor or entity that is making these"
                  + " changes."));
      params.add(
          parameter(
              "fieldValidation",
              "query",
              "string",
              "fieldValidation instructs the server on how to handle objects in the request"
                  + " containing unknown or duplicate fields: Ignore, Warn or Strict."));
      ObjectNode body =
          params.addObject().put("in", "body").put("name", "body").put("required", true);
      body.putObject("schema")
          .put(
              "$ref",
              kubernetesAction.equals("patch")
                  ? "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
                  : ref);
    }
    if (kubernetesAction.equals("patch")) {
      params.add(
          parameter("force", "query", "boolean", "Force is going to \"force\" Apply requests."));
    }
    op.putArray("produces").add("application/json").add("application/yaml");
    ObjectNode responses = op.putObject("responses");
    String code = kubernetesAction.equals("post") ? "201" : "200";
    responses
        .putObject(code)
        .put("description", code.equals("201") ? "Created" : "OK")
        .putObject("schema")
        .put("$ref", ref);
    responses.putObject("401").put("description", "Unauthorized");
    op.putArray("schemes").add("https");
    op.putArray("tags").add(tag(t));
    op.put("x-kubernetes-action", kubernetesAction);
    op.putObject("x-kubernetes-group-version-kind")
        .put("group", t.group())
        .put("kind", t.kind())
        .put("version", t.version());
    return op;
  }

  /** "CoreV1NamespacedPod", "AppsV1NamespacedDeployment": the operationId after the action. */
  private static String operationSuffix(ResourceType t) {
    StringBuilder b = new StringBuilder();
    if (t.group().isEmpty()) {
      b.append("Core");
    } else {
      for (String part : t.group().replace(".k8s.io", "").split("\\.")) {
        b.append(capitalize(part));
      }
    }
    return b.append(capitalize(t.version()))
        .append(t.namespaced() ? "Namespaced" : "")
        .append(t.kind())
        .toString();
  }

  private static String tag(ResourceType t) {
    String g = t.group().isEmpty() ? "core" : t.group().replace(".k8s.io", "");
    return g.replace('.', '_') + "_" + t.version();
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }
}
