package io.streamplane.gateway.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /openapi/v3}: the index and one document per served group-version, with the full schema of
 * every served kind, as kube-apiserver 1.32 publishes them.
 *
 * <p>Each document holds, under {@code components.schemas}, the definitions {@link
 * KubernetesDefinitions} generates for the group-version's kinds and everything they reference
 * ({@code io.k8s.api.core.v1.PodSpec}, {@code io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta},
 * ...) with descriptions, types and formats, required fields, the patch extensions, and on each
 * kind and kind list the {@code x-kubernetes-group-version-kind} list. Its {@code paths} hold the
 * operations kubectl looks for; other operations (list, watch, delete, ...) are served but not
 * published.
 *
 * <p>What kubectl 1.32 reads (k8s.io/kubectl and k8s.io/cli-runtime), and so what is published:
 *
 * <ul>
 *   <li><b>Validation.</b> {@code apply}/{@code create}/{@code replace} run with {@code
 *       --validate=strict} by default. Their verifier ({@code cli-runtime queryParamVerifierV3})
 *       looks for a PATCH operation whose {@code x-kubernetes-group-version-kind} (a single map) is
 *       the object's kind and whose parameters include {@code fieldValidation}; found, validation
 *       is left to the server (which answers strict errors as kube-apiserver). So every stored kind
 *       gets a PATCH operation, tagged with its GVK, carrying {@code fieldValidation}, {@code
 *       dryRun}, {@code fieldManager}, {@code force} and {@code pretty}. A group-version missing
 *       from the index would be treated as a CRD, so every served group-version is listed.
 *   <li><b>Strategic merge patches.</b> {@code apply}'s patcher ({@code gvkSupportsPatchOpenAPIV3})
 *       takes the same PATCH operation, checks its {@code requestBody.content} for {@code
 *       application/strategic-merge-patch+json}, then finds the GVK-tagged kind schema and computes
 *       the patch from its properties and their {@code x-kubernetes-patch-strategy}/{@code
 *       x-kubernetes-patch-merge-key}, which come from the gateway's own {@link
 *       io.streamplane.gateway.patch.PatchSchema}: kubectl merges lists by the keys the server
 *       merges them by. A field the manifest has and the schema lacks makes kubectl warn ({@code
 *       error calculating patch from openapi v3 spec}) and fall back to its compiled-in types, as
 *       against kube-apiserver.
 *   <li><b>Explain.</b> {@code kubectl explain} resolves the resource to its GVK-tagged schema and
 *       walks the properties ({@code allOf}-wrapped references included).
 * </ul>
 *
 * <p>Serving: {@code GET /openapi/v3} answers {@link #index()}; {@code GET
 * /openapi/v3/<path>?hash=H} answers {@link #document(String)} with {@code Cache-Control: public,
 * immutable} when H is {@link #hash(String)} and, as kube-apiserver, a 301 to {@link
 * #documentUrl(String)} when H is stale. Contract: the built-in kinds' documents are built once, at
 * the first request that needs them (generating them takes a few seconds of CPU); a custom
 * resource's group-version has its document built from its definition's schema ({@link
 * CustomResourceSchemas}), again at the first request after the registry's custom rows changed, so
 * that a changed definition changes its document and hash at once. Limits: those of {@link
 * KubernetesDefinitions}.
 */
public final class OpenApiV3 {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String PATCH_SCHEMA = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";

  /** The patch media types the gateway decodes, in the order kube-apiserver lists them. */
  public static final List<String> PATCH_CONTENT_TYPES =
      List.of(
          "application/json-patch+json",
          "application/merge-patch+json",
          "application/strategic-merge-patch+json");

  /**
   * The patch media types of a kind: a custom resource has no strategic merge patch, and kubectl
   * computes a merge patch for it only when its operation does not list that type.
   */
  static List<String> patchContentTypes(ResourceType t) {
    return t.strategy().acceptsStrategicMergePatch()
        ? PATCH_CONTENT_TYPES
        : List.of(
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/apply-patch+yaml");
  }

  private final ResourceRegistry registry;
  private Documents builtIn;
  private List<ResourceType> customRows;
  private Documents current;

  /** Documents by group-version path ("api/v1", "apis/apps/v1") and their hashes. */
  private record Documents(Map<String, ObjectNode> documents, Map<String, String> hashes) {
    Documents plus(Documents other) {
      Map<String, ObjectNode> docs = new LinkedHashMap<>(documents);
      docs.putAll(other.documents);
      Map<String, String> sums = new LinkedHashMap<>(hashes);
      sums.putAll(other.hashes);
      return new Documents(docs, sums);
    }
  }

  public OpenApiV3(ResourceRegistry registry) {
    this.registry = registry;
  }

  /**
   * The built-in kinds' documents, built once, and the custom resources' documents, rebuilt when
   * the registry's custom rows were replaced (a definition changed) since the last request.
   */
  private synchronized Documents current() {
    if (builtIn == null) {
      builtIn =
          build(
              registry.all().stream()
                  .filter(t -> CustomResourceSchemas.schemaOf(t).isEmpty())
                  .toList());
    }
    List<ResourceType> rows = registry.custom();
    if (current == null || rows != customRows) {
      customRows = rows;
      current = builtIn.plus(build(rows));
    }
    return current;
  }

  private static Documents build(List<ResourceType> types) {
    ObjectMapper mapper = new ObjectMapper();
    Map<String, Map<String, List<ResourceType>>> byGroupVersion = new LinkedHashMap<>();
    for (ResourceType t : types) {
      byGroupVersion
          .computeIfAbsent(t.group(), g -> new LinkedHashMap<>())
          .computeIfAbsent(t.version(), v -> new ArrayList<>())
          .add(t);
    }
    Map<String, ObjectNode> docs = new LinkedHashMap<>();
    Map<String, String> sums = new LinkedHashMap<>();
    byGroupVersion.forEach(
        (group, versions) ->
            versions.forEach(
                (version, inGroupVersion) -> {
                  if (inGroupVersion.stream().allMatch(ResourceType::measured)) {
                    return; // metrics.k8s.io: metrics-server publishes no OpenAPI of its own either
                  }
                  String path =
                      group.isEmpty() ? "api/" + version : "apis/" + group + "/" + version;
                  ObjectNode doc = document(inGroupVersion);
                  docs.put(path, doc);
                  sums.put(path, sha512(mapper, doc));
                }));
    return new Documents(docs, sums);
  }

  /** {@code /openapi/v3}: the group-version paths with their content-addressed URLs. */
  public ObjectNode index() {
    ObjectNode doc = JSON.objectNode();
    ObjectNode paths = doc.putObject("paths");
    for (String path : current().documents().keySet()) {
      paths.putObject(path).put("serverRelativeURL", documentUrl(path));
    }
    return doc;
  }

  /** The document for "api/v1" or "apis/apps/v1" (no leading slash, no query), if served. */
  public Optional<ObjectNode> document(String path) {
    return Optional.ofNullable(current().documents().get(path)).map(ObjectNode::deepCopy);
  }

  public String hash(String path) {
    return current().hashes().get(path);
  }

  public String documentUrl(String path) {
    return "/openapi/v3/" + path + "?hash=" + hash(path);
  }

  private static String sha512(ObjectMapper mapper, ObjectNode doc) {
    try {
      byte[] bytes = mapper.writeValueAsString(doc).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of()
          .withUpperCase()
          .formatHex(MessageDigest.getInstance("SHA-512").digest(bytes));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode document(List<ResourceType> types) {
    ObjectNode doc = JSON.objectNode();
    doc.put("openapi", "3.0.0");
    doc.putObject("info").put("title", "Kubernetes").put("version", Discovery.GIT_VERSION);
    ObjectNode paths = doc.putObject("paths");
    ObjectNode schemas = doc.putObject("components").putObject("schemas");
    schemas
        .putObject(PATCH_SCHEMA)
        .put(
            "description",
            "Patch is provided to give a concrete name and type to the Kubernetes PATCH request"
                + " body.")
        .put("type", "object");
    KubernetesDefinitions.of(types, KubernetesDefinitions.Dialect.OPENAPI_3).forEach(schemas::set);
    for (ResourceType t : types) {
      if (!t.stored()) {
        ObjectNode item = paths.putObject(t.groupVersionPath() + collectionPath(t));
        item.set("post", operation(t, "post", "create", "", false));
        if (t.namespaced()) {
          item.set("parameters", pathParameters(true, false));
        }
        continue;
      }
      ObjectNode item = paths.putObject(t.groupVersionPath() + collectionPath(t) + "/{name}");
      item.set("get", operation(t, "get", "read", "", false));
      item.set("patch", operation(t, "patch", "patch", "", true));
      item.set("parameters", pathParameters(t.namespaced(), true));
      // kubectl only needs the main resource; status is published because kube-apiserver tags
      // the status PATCH with the parent's GVK too, and both must agree on fieldValidation.
      if (t.subresource("status").isPresent()) {
        ObjectNode status =
            paths.putObject(t.groupVersionPath() + collectionPath(t) + "/{name}/status");
        status.set("patch", operation(t, "patch", "patch", "Status", true));
        status.set("parameters", pathParameters(t.namespaced(), true));
      }
    }
    return doc;
  }

  private static String collectionPath(ResourceType t) {
    return (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural();
  }

  private static ArrayNode pathParameters(boolean namespaced, boolean named) {
    ArrayNode params = JSON.arrayNode();
    if (named) {
      params.add(pathParameter("name", "name of the resource"));
    }
    if (namespaced) {
      params.add(
          pathParameter("namespace", "object name and auth scope, such as for teams and projects"));
    }
    return params;
  }

  private static ObjectNode pathParameter(String name, String description) {
    ObjectNode p = JSON.objectNode();
    p.put("name", name).put("in", "path").put("description", description).put("required", true);
    p.putObject("schema").put("type", "string").put("uniqueItems", true);
    return p;
  }

  private static ObjectNode queryParameter(String name, String type, String description) {
    ObjectNode p = JSON.objectNode();
    p.put("name", name).put("in", "query").put("description", description);
    p.putObject("schema").put("type", type).put("uniqueItems", true);
    return p;
  }

  private static ObjectNode operation(
      ResourceType t, String method, String action, String suffix, boolean patch) {
    ObjectNode op = JSON.objectNode();
    op.putArray("tags").add(tag(t));
    op.put(
        "operationId",
        action
            + groupPrefix(t.group())
            + capitalize(t.version())
            + (t.namespaced() ? "Namespaced" : "")
            + t.kind()
            + suffix);
    String ref = "#/components/schemas/" + schemaName(t);
    ArrayNode params = op.putArray("parameters");
    params.add(queryParameter("pretty", "string", "If 'true', then the output is pretty printed."));
    if (patch || method.equals("post")) {
      params.add(
          queryParameter(
              "dryRun",
              "string",
              "When present, indicates that modifications should not be persisted."));
      params.add(
          queryParameter(
              "fieldManager",
              "string",
              "fieldManager is a name associated with the actor or entity that is making these"
                  + " changes."));
      params.add(
          queryParameter(
              "fieldValidation",
              "string",
              "fieldValidation instructs the server on how to handle objects in the request"
                  + " containing unknown or duplicate fields: Ignore, Warn or Strict."));
    }
    if (patch) {
      params.add(queryParameter("force", "boolean", "Force is going to \"force\" Apply requests."));
      ObjectNode body = op.putObject("requestBody");
      ObjectNode content = body.putObject("content");
      for (String type : patchContentTypes(t)) {
        content
            .putObject(type)
            .putObject("schema")
            .put("$ref", "#/components/schemas/" + PATCH_SCHEMA);
      }
      body.put("required", true);
    } else if (method.equals("post")) {
      op.putObject("requestBody")
          .put("required", true)
          .putObject("content")
          .putObject("*/*")
          .putObject("schema")
          .put("$ref", ref);
    }
    ObjectNode responses = op.putObject("responses");
    responses
        .putObject(method.equals("post") ? "201" : "200")
        .put("description", method.equals("post") ? "Created" : "OK")
        .putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", ref);
    responses.putObject("401").put("description", "Unauthorized");
    op.put(
        "x-kubernetes-action",
        method.equals("post") ? "post" : action.equals("read") ? "get" : action);
    // The single-map form: cli-runtime's hasGVKExtensionV3 and the patcher's gvkMatchesSingle
    // decode operations' tags as one map, unlike the list form used on schemas.
    op.putObject("x-kubernetes-group-version-kind")
        .put("group", t.group())
        .put("version", t.version())
        .put("kind", t.kind());
    return op;
  }

  /** Kubernetes' schema names: io.k8s.api.core.v1.Pod, io.k8s.api.rbac.v1.Role. */
  static String schemaName(ResourceType t) {
    return KubernetesDefinitions.definitionName(t);
  }

  private static String tag(ResourceType t) {
    String g = t.group().isEmpty() ? "core" : t.group().replace(".k8s.io", "");
    return g.replace('.', '_') + "_" + t.version();
  }

  /** "Core", "Apps", "Coordination", "RbacAuthorization": the operationId group prefix. */
  private static String groupPrefix(String group) {
    if (group.isEmpty()) {
      return "Core";
    }
    StringBuilder b = new StringBuilder();
    for (String part : group.replace(".k8s.io", "").split("\\.")) {
      b.append(capitalize(part));
    }
    return b.toString();
  }

  private static String capitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }
}
