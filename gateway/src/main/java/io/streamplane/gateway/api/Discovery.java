package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The version and discovery documents kubectl reads before anything else: {@code /version}, legacy
 * discovery ({@code /api}, {@code /apis}, {@code /apis/{group}}, {@code /api/v1}, {@code
 * /apis/{group}/{version}}) and aggregated discovery ({@code apidiscovery.k8s.io/v2}
 * APIGroupDiscoveryList for {@code /api} and {@code /apis}), shaped field for field as
 * kube-apiserver 1.32 writes them.
 *
 * <p>kubectl 1.32 asks {@code /api} and {@code /apis} with {@code Accept:
 * application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,...;v=v2beta1;...,application/json}
 * and reads the aggregated form if the response's {@code Content-Type} says it is one; then it
 * needs no per-group-version requests. {@link #negotiateAggregated(String)} makes that choice for
 * the HTTP layer. The server address in {@code /api} is the one clients should use ({@code
 * serverAddressByClientCIDRs}).
 *
 * <p>Contract: pure; every call returns a new document. {@code /version} reports
 * v1.32.0-streamplane, because kubectl picks behaviour (and warns about skew) from the minor
 * version. A group's versions are listed in the order of the registry's rows, the first preferred
 * (networking.k8s.io: v1, then v1beta1). Limits: no protobuf form of discovery; {@code
 * storageVersionHash} is computed as Kubernetes does but nothing in Streamplane migrates storage.
 */
public final class Discovery {

  /** The Content-Type of an aggregated discovery answer (v2). */
  public static final String AGGREGATED_V2_CONTENT_TYPE =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

  public static final String GIT_VERSION = "v1.32.0-streamplane";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final ResourceRegistry registry;
  private final String gitCommit;
  private final Instant buildDate;

  public Discovery(ResourceRegistry registry, String gitCommit, Instant buildDate) {
    this.registry = registry;
    this.gitCommit = gitCommit;
    this.buildDate = buildDate;
  }

  /** The aggregated-discovery version the client asked for, and the Content-Type to answer with. */
  public record AggregatedFormat(String version, String contentType) {
    public String apiVersion() {
      return "apidiscovery.k8s.io/" + version;
    }
  }

  /**
   * Whether an {@code Accept} header asks for aggregated discovery. The first media range this
   * server can produce wins, as in kube-apiserver's negotiation: an aggregated JSON range (v2 or
   * v2beta1) selects the aggregated form; plain JSON or a wildcard first selects the legacy form.
   * Protobuf ranges are skipped, since discovery is answered in JSON only.
   */
  public static Optional<AggregatedFormat> negotiateAggregated(String accept) {
    if (accept == null) {
      return Optional.empty();
    }
    for (String range : accept.split(",")) {
      String[] parts = range.split(";");
      String type = parts[0].trim().toLowerCase(Locale.ROOT);
      String g = "";
      String v = "";
      String as = "";
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].trim().split("=", 2);
        if (kv.length != 2) {
          continue;
        }
        String value = kv[1].trim();
        switch (kv[0].trim().toLowerCase(Locale.ROOT)) {
          case "g" -> g = value;
          case "v" -> v = value;
          case "as" -> as = value;
          default -> {}
        }
      }
      boolean json = type.equals("application/json");
      boolean any = type.equals("*/*") || type.equals("application/*");
      if (json && g.equals("apidiscovery.k8s.io") && as.equals("APIGroupDiscoveryList")) {
        if (v.equals("v2") || v.equals("v2beta1")) {
          return Optional.of(
              new AggregatedFormat(
                  v,
                  "application/json;g=apidiscovery.k8s.io;v=" + v + ";as=APIGroupDiscoveryList"));
        }
        continue;
      }
      if ((json || any) && as.isEmpty()) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  // ------------------------------------------------------------------ /version

  /** {@code version.Info}. */
  public ObjectNode version() {
    ObjectNode v = JSON.objectNode();
    v.put("major", "1");
    v.put("minor", "32");
    v.put("gitVersion", GIT_VERSION);
    v.put("gitCommit", gitCommit);
    v.put("gitTreeState", "clean");
    v.put("buildDate", buildDate.truncatedTo(ChronoUnit.SECONDS).toString());
    // Go would name its toolchain; the gateway names the JVM that runs it.
    v.put("goVersion", "java" + System.getProperty("java.specification.version", ""));
    v.put("compiler", "javac");
    v.put("platform", platform());
    return v;
  }

  private static String platform() {
    String os = System.getProperty("os.name", "linux").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "amd64").toLowerCase(Locale.ROOT);
    String goOs = os.startsWith("mac") ? "darwin" : os.startsWith("windows") ? "windows" : "linux";
    String goArch =
        switch (arch) {
          case "x86_64", "amd64" -> "amd64";
          case "aarch64", "arm64" -> "arm64";
          default -> arch;
        };
    return goOs + "/" + goArch;
  }

  // ------------------------------------------------------------------ legacy discovery

  /** {@code /api}: APIVersions (kube-apiserver leaves out apiVersion here). */
  public ObjectNode apiVersions(String serverAddress) {
    ObjectNode doc = JSON.objectNode();
    doc.put("kind", "APIVersions");
    ArrayNode versions = doc.putArray("versions");
    registry.versions("").forEach(versions::add);
    doc.putArray("serverAddressByClientCIDRs")
        .addObject()
        .put("clientCIDR", "0.0.0.0/0")
        .put("serverAddress", serverAddress);
    return doc;
  }

  /** {@code /apis}: APIGroupList of every named group. */
  public ObjectNode apiGroupList() {
    ObjectNode doc = JSON.objectNode();
    doc.put("kind", "APIGroupList");
    doc.put("apiVersion", "v1");
    ArrayNode groups = doc.putArray("groups");
    for (String group : registry.groups()) {
      if (!group.isEmpty()) {
        groups.add(groupBody(group, JSON.objectNode()));
      }
    }
    return doc;
  }

  /** {@code /apis/{group}}: APIGroup, or empty for a group not served. */
  public Optional<ObjectNode> apiGroup(String group) {
    if (group.isEmpty() || !registry.groups().contains(group)) {
      return Optional.empty();
    }
    ObjectNode doc = JSON.objectNode();
    doc.put("kind", "APIGroup");
    doc.put("apiVersion", "v1");
    return Optional.of(groupBody(group, doc));
  }

  private ObjectNode groupBody(String group, ObjectNode into) {
    into.put("name", group);
    ArrayNode versions = into.putArray("versions");
    List<String> served = registry.versions(group);
    for (String version : served) {
      versions.addObject().put("groupVersion", group + "/" + version).put("version", version);
    }
    into.putObject("preferredVersion")
        .put("groupVersion", group + "/" + served.get(0))
        .put("version", served.get(0));
    return into;
  }

  /**
   * {@code /api/v1} or {@code /apis/{group}/{version}}: APIResourceList with one entry per resource
   * and one per subresource ("pods/status"), or empty for a group-version not served.
   */
  public Optional<ObjectNode> apiResourceList(String group, String version) {
    List<ResourceType> types = registry.inGroupVersion(group, version);
    if (types.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode doc = JSON.objectNode();
    doc.put("kind", "APIResourceList");
    // The core group's list is served without apiVersion, the named groups' with it.
    if (!group.isEmpty()) {
      doc.put("apiVersion", "v1");
    }
    doc.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode resources = doc.putArray("resources");
    for (ResourceType t : types) {
      ObjectNode r = resources.addObject();
      r.put("name", t.plural());
      r.put("singularName", t.singular());
      r.put("namespaced", t.namespaced());
      r.put("kind", t.kind());
      strings(r.putArray("verbs"), t.verbs());
      if (!t.shortNames().isEmpty()) {
        strings(r.putArray("shortNames"), t.shortNames());
      }
      if (!t.categories().isEmpty()) {
        strings(r.putArray("categories"), t.categories());
      }
      if (t.stored()) {
        r.put("storageVersionHash", storageVersionHash(t.group(), t.version(), t.kind()));
      }
      for (ResourceType.Subresource s : t.subresources()) {
        ObjectNode sr = resources.addObject();
        sr.put("name", t.plural() + "/" + s.name());
        sr.put("singularName", "");
        sr.put("namespaced", t.namespaced());
        // group and version appear only where the subresource answers with another group's kind.
        if (!s.group().equals(t.group()) || !s.version().equals(t.version())) {
          sr.put("group", s.group());
          sr.put("version", s.version());
        }
        sr.put("kind", s.kind());
        strings(sr.putArray("verbs"), s.verbs());
      }
    }
    return Optional.of(doc);
  }

  /** discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("group/version/kind"). */
  static String storageVersionHash(String group, String version, String kind) {
    try {
      byte[] sum =
          MessageDigest.getInstance("SHA-256")
              .digest((group + "/" + version + "/" + kind).getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(sum, 8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ------------------------------------------------------------------ aggregated discovery

  /** Aggregated {@code /api}: one unnamed group, the core group. */
  public ObjectNode aggregatedCore(AggregatedFormat format) {
    return aggregated(format, List.of(""));
  }

  /** Aggregated {@code /apis}: every named group. */
  public ObjectNode aggregatedGroups(AggregatedFormat format) {
    return aggregated(format, registry.groups().stream().filter(g -> !g.isEmpty()).toList());
  }

  private ObjectNode aggregated(AggregatedFormat format, List<String> groups) {
    ObjectNode doc = JSON.objectNode();
    doc.put("kind", "APIGroupDiscoveryList");
    doc.put("apiVersion", format.apiVersion());
    doc.putObject("metadata");
    ArrayNode items = doc.putArray("items");
    for (String group : groups) {
      ObjectNode item = items.addObject();
      ObjectNode meta = item.putObject("metadata");
      if (!group.isEmpty()) {
        meta.put("name", group);
      }
      meta.putNull("creationTimestamp");
      ArrayNode versions = item.putArray("versions");
      for (String version : registry.versions(group)) {
        ObjectNode v = versions.addObject();
        v.put("version", version);
        ArrayNode resources = v.putArray("resources");
        for (ResourceType t : registry.inGroupVersion(group, version)) {
          resources.add(aggregatedResource(t));
        }
        v.put("freshness", "Current");
      }
    }
    return doc;
  }

  private static ObjectNode aggregatedResource(ResourceType t) {
    ObjectNode r = JSON.objectNode();
    r.put("resource", t.plural());
    r.putObject("responseKind")
        .put("group", t.group())
        .put("version", t.version())
        .put("kind", t.kind());
    r.put("scope", t.namespaced() ? "Namespaced" : "Cluster");
    r.put("singularResource", t.singular());
    strings(r.putArray("verbs"), t.verbs());
    if (!t.shortNames().isEmpty()) {
      strings(r.putArray("shortNames"), t.shortNames());
    }
    if (!t.categories().isEmpty()) {
      strings(r.putArray("categories"), t.categories());
    }
    if (!t.subresources().isEmpty()) {
      ArrayNode subs = r.putArray("subresources");
      for (ResourceType.Subresource s : t.subresources()) {
        ObjectNode sr = subs.addObject();
        sr.put("subresource", s.name());
        sr.putObject("responseKind")
            .put("group", s.group())
            .put("version", s.version())
            .put("kind", s.kind());
        strings(sr.putArray("verbs"), s.verbs());
      }
    }
    return r;
  }

  private static void strings(ArrayNode array, List<String> values) {
    values.forEach(array::add);
  }
}
