package io.streamplane.gateway.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The minimal {@code /openapi/v3} kubectl 1.32 needs: the index and one document per served
 * group-version.
 *
 * <p>What kubectl reads (k8s.io/kubectl and k8s.io/cli-runtime, 1.32), and so what is published:
 *
 * <ul>
 *   <li><b>Validation.</b> {@code apply}/{@code create}/{@code replace} run with {@code
 *       --validate=strict} by default. Their verifier ({@code cli-runtime resource
 *       queryParamVerifierV3}) fetches the group-version's document through this index and looks
 *       for a PATCH operation whose {@code x-kubernetes-group-version-kind} (a single map) is the
 *       object's kind and whose parameters include {@code fieldValidation}. Found: validation is
 *       left to the server. Not found (or no document): kubectl falls back to client-side
 *       validation with {@code /openapi/v2}, which is not served, and refuses to run. So every
 *       stored kind gets a PATCH operation, tagged with its GVK, carrying {@code fieldValidation},
 *       {@code dryRun}, {@code fieldManager}, {@code force} and {@code pretty}. A group-version
 *       missing from the index would be treated as a CRD, so every served group-version is listed.
 *   <li><b>Patch type.</b> {@code apply}'s patcher ({@code gvkSupportsPatchOpenAPIV3}) takes the
 *       same tagged PATCH operation and checks its {@code requestBody.content} for {@code
 *       application/strategic-merge-patch+json}; the operations advertise it (with JSON patch and
 *       merge patch, the types the gateway accepts). Then it looks for a {@code components.schemas}
 *       entry whose {@code x-kubernetes-group-version-kind} (a list) names the kind and computes
 *       the strategic merge patch from that schema's properties and patch-merge-key extensions.
 *       <b>The kind schemas here deliberately carry no GVK tag</b>: a tagged schema without the
 *       full property tree makes that computation fail ({@code unable to find api field}) and
 *       kubectl prints {@code warning: error calculating patch from openapi v3 spec} on every
 *       re-apply. Untagged, the lookup finds nothing, returns no patch, and kubectl falls back (via
 *       an ignored {@code /openapi/v2} miss) to its compiled-in Go types, which know every kind
 *       served here and compute the exact strategic merge patch kube-apiserver would get.
 * </ul>
 *
 * <p>Consequence: {@code kubectl explain} finds no schema (it needs the GVK-tagged full schema);
 * that is the known limit. Serving the HTTP side: {@code GET /openapi/v3} answers {@link #index()};
 * {@code GET /openapi/v3/<path>?hash=H} answers {@link #document(String)} with {@code
 * Cache-Control: public, immutable} when H is {@link #hash(String)}, and (as kube-apiserver) a 301
 * to {@link #documentUrl(String)} when H is stale. Contract: pure; documents are built once.
 */
public final class OpenApiV3 {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String PATCH_SCHEMA = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
  private static final String STATUS_SCHEMA = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

  /** The patch media types the gateway decodes, in the order kube-apiserver lists them. */
  public static final List<String> PATCH_CONTENT_TYPES =
      List.of(
          "application/json-patch+json",
          "application/merge-patch+json",
          "application/strategic-merge-patch+json");

  private final Map<String, ObjectNode> documents = new LinkedHashMap<>();
  private final Map<String, String> hashes = new LinkedHashMap<>();

  public OpenApiV3(ResourceRegistry registry) {
    ObjectMapper mapper = new ObjectMapper();
    for (String group : registry.groups()) {
      for (String version : registry.versions(group)) {
        String path = group.isEmpty() ? "api/" + version : "apis/" + group + "/" + version;
        ObjectNode doc = build(registry.inGroupVersion(group, version));
        documents.put(path, doc);
        hashes.put(path, sha512(mapper, doc));
      }
    }
  }

  /** {@code /openapi/v3}: the group-version paths with their content-addressed URLs. */
  public ObjectNode index() {
    ObjectNode doc = JSON.objectNode();
    ObjectNode paths = doc.putObject("paths");
    for (String path : documents.keySet()) {
      paths.putObject(path).put("serverRelativeURL", documentUrl(path));
    }
    return doc;
  }

  /** The document for "api/v1" or "apis/apps/v1" (no leading slash, no query), if served. */
  public Optional<ObjectNode> document(String path) {
    return Optional.ofNullable(documents.get(path)).map(ObjectNode::deepCopy);
  }

  public String hash(String path) {
    return hashes.get(path);
  }

  public String documentUrl(String path) {
    return "/openapi/v3/" + path + "?hash=" + hashes.get(path);
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

  private static ObjectNode build(List<ResourceType> types) {
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
    schemas
        .putObject(STATUS_SCHEMA)
        .put("description", "Status is a return value for calls that don't return other objects.")
        .put("type", "object");
    for (ResourceType t : types) {
      schemas
          .putObject(schemaName(t))
          .put("description", t.kind() + " (fields not published; see OpenApiV3)")
          .put("type", "object");
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
      for (String type : PATCH_CONTENT_TYPES) {
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
    String pkg = t.group().isEmpty() ? "core" : t.group().split("\\.")[0];
    return "io.k8s.api." + pkg + "." + t.version() + "." + t.kind();
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
