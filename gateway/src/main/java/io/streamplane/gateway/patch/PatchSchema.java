package io.streamplane.gateway.patch;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The strategic-merge-patch metadata of one object kind: which fields are lists merged by a key (or
 * merged as sets of primitives), which carry the {@code retainKeys} strategy, and the metadata of
 * the values nested under each field.
 *
 * <p>This is the Java counterpart of the {@code patchStrategy}/{@code patchMergeKey} struct tags
 * kube-apiserver reads from the Go types of built-in kinds. A field without metadata is a map that
 * merges recursively or a list that a patch replaces. {@link #forKind} holds the tags of the kinds
 * Streamplane serves, taken from k8s.io/api core/v1 and apps/v1 and from ObjectMeta in
 * k8s.io/apimachinery.
 *
 * <p>It also carries the two tags server-side apply reads beside them: {@code +listMapKey} where a
 * list is keyed by more than its patch merge key ({@link #listMapKeys}), and {@code
 * +structType=atomic} on structs that are owned and replaced whole ({@link #atomic}).
 *
 * <p>Limits: only the kinds listed in {@link #forKind} are known; a kind outside that list gets no
 * schema, as custom resources get none in Kubernetes (which answers 415 to a strategic merge patch
 * for them). Status-only lists nested inside replaced lists (e.g. ContainerStatus volumeMounts) are
 * omitted since a patch never merges into them. Fields added to Kubernetes after 1.32 and still
 * alpha there are omitted.
 */
public final class PatchSchema {

  /**
   * Metadata for one field: how a patch combines it with the live value. {@code retainKeys} is
   * informative only: the server honours a {@code $retainKeys} directive wherever a client sends
   * one, as kube-apiserver does; it is kept so the schema reads like the Go tags.
   */
  public record Field(boolean merge, boolean retainKeys, String mergeKey, PatchSchema schema) {
    public Field {
      Objects.requireNonNull(mergeKey, "mergeKey");
      Objects.requireNonNull(schema, "schema");
    }
  }

  /** No metadata: maps merge recursively, lists are replaced. */
  public static final PatchSchema EMPTY = new PatchSchema(Map.of());

  private static final Field PLAIN = new Field(false, false, "", EMPTY);

  private final Map<String, Field> fields;
  private final Map<String, List<String>> listMapKeys;
  private final Set<String> atomic;

  private PatchSchema(Map<String, Field> fields) {
    this(fields, Map.of(), Set.of());
  }

  private PatchSchema(
      Map<String, Field> fields, Map<String, List<String>> listMapKeys, Set<String> atomic) {
    this.fields = Map.copyOf(fields);
    this.listMapKeys = Map.copyOf(listMapKeys);
    this.atomic = Set.copyOf(atomic);
  }

  /** The metadata of a field of this object; a field without tags gets the plain metadata. */
  public Field field(String name) {
    return fields.getOrDefault(name, PLAIN);
  }

  /**
   * The keys identifying the elements of a list field ({@code +listMapKey}): those declared beside
   * the merge key, else the merge key alone; empty for a list that is not merged by key.
   */
  public List<String> listMapKeys(String name) {
    List<String> keys = listMapKeys.get(name);
    if (keys != null) {
      return keys;
    }
    Field field = field(name);
    return field.merge() && !field.mergeKey().isEmpty() ? List.of(field.mergeKey()) : List.of();
  }

  /** Whether a struct field is {@code +structType=atomic}: owned and applied as one value. */
  public boolean atomic(String name) {
    return atomic.contains(name);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a schema field by field. */
  public static final class Builder {
    private final Map<String, Field> fields = new LinkedHashMap<>();
    private final Map<String, List<String>> listMapKeys = new LinkedHashMap<>();
    private final Set<String> atomic = new LinkedHashSet<>();

    /** A list of objects merged element by element on {@code mergeKey}. */
    public Builder mergeList(String field, String mergeKey, PatchSchema element) {
      fields.put(field, new Field(true, false, mergeKey, element));
      return this;
    }

    public Builder mergeList(String field, String mergeKey) {
      return mergeList(field, mergeKey, EMPTY);
    }

    /** A list merged by key whose elements are unions cleared by {@code $retainKeys}. */
    public Builder mergeListRetainKeys(String field, String mergeKey, PatchSchema element) {
      fields.put(field, new Field(true, true, mergeKey, element));
      return this;
    }

    /** A list of primitives merged as a set (e.g. finalizers). */
    public Builder primitiveSet(String field) {
      fields.put(field, new Field(true, false, "", EMPTY));
      return this;
    }

    /** A map that is a union: kubectl sends {@code $retainKeys} to clear the other members. */
    public Builder retainKeys(String field, PatchSchema value) {
      fields.put(field, new Field(false, true, "", value));
      return this;
    }

    /** A map without a strategy of its own, holding fields that have one. */
    public Builder nested(String field, PatchSchema value) {
      fields.put(field, new Field(false, false, "", value));
      return this;
    }

    /**
     * The {@code +listMapKey}s of a list merged by key, where there are more than its merge key.
     */
    public Builder listMapKeys(String field, String... keys) {
      listMapKeys.put(field, List.of(keys));
      return this;
    }

    /** A struct tagged {@code +structType=atomic}. */
    public Builder atomic(String field) {
      atomic.add(field);
      return this;
    }

    public PatchSchema build() {
      return new PatchSchema(fields, listMapKeys, atomic);
    }
  }

  // --- Metadata of the served kinds. Each constant mirrors one Go struct's tags. ---

  private static final PatchSchema OBJECT_META =
      builder().mergeList("ownerReferences", "uid").primitiveSet("finalizers").build();

  private static final PatchSchema ENV_VAR =
      builder()
          .nested(
              "valueFrom",
              builder()
                  .atomic("fieldRef")
                  .atomic("resourceFieldRef")
                  .atomic("configMapKeyRef")
                  .atomic("secretKeyRef")
                  .build())
          .build();

  private static final PatchSchema CONTAINER =
      builder()
          .mergeList("ports", "containerPort")
          .listMapKeys("ports", "containerPort", "protocol")
          .mergeList("env", "name", ENV_VAR)
          .mergeList("volumeMounts", "mountPath")
          .mergeList("volumeDevices", "devicePath")
          .build();

  private static final PatchSchema POD_SPEC =
      builder()
          .mergeListRetainKeys("volumes", "name", EMPTY)
          .mergeList("initContainers", "name", CONTAINER)
          .mergeList("containers", "name", CONTAINER)
          .mergeList("ephemeralContainers", "name", CONTAINER)
          .mergeList("imagePullSecrets", "name")
          .mergeList("hostAliases", "ip")
          .mergeList("topologySpreadConstraints", "topologyKey")
          .listMapKeys("topologySpreadConstraints", "topologyKey", "whenUnsatisfiable")
          .nested(
              "affinity",
              builder()
                  .nested(
                      "nodeAffinity",
                      builder().atomic("requiredDuringSchedulingIgnoredDuringExecution").build())
                  .build())
          .mergeList("schedulingGates", "name")
          .mergeListRetainKeys("resourceClaims", "name", EMPTY)
          .build();

  private static final PatchSchema POD_STATUS =
      builder()
          .mergeList("conditions", "type")
          .mergeList("hostIPs", "ip")
          .mergeList("podIPs", "ip")
          .mergeListRetainKeys("resourceClaimStatuses", "name", EMPTY)
          .build();

  private static final PatchSchema POD_TEMPLATE_SPEC =
      builder().nested("metadata", OBJECT_META).nested("spec", POD_SPEC).build();

  private static final PatchSchema CONDITIONS_BY_TYPE =
      builder().mergeList("conditions", "type").build();

  private static final PatchSchema METADATA_ONLY =
      builder().nested("metadata", OBJECT_META).build();

  private static final Map<String, PatchSchema> KINDS = kinds();

  private static Map<String, PatchSchema> kinds() {
    Map<String, PatchSchema> kinds = new LinkedHashMap<>();
    kinds.put(
        "v1/Pod",
        builder()
            .nested("metadata", OBJECT_META)
            .nested("spec", POD_SPEC)
            .nested("status", POD_STATUS)
            .build());
    kinds.put(
        "v1/Node",
        builder()
            .nested("metadata", OBJECT_META)
            // NodeSpec.taints carries no tag: a patch replaces the whole list.
            .nested("spec", builder().primitiveSet("podCIDRs").build())
            .nested(
                "status",
                builder().mergeList("conditions", "type").mergeList("addresses", "type").build())
            .build());
    kinds.put(
        "v1/Namespace",
        builder().nested("metadata", OBJECT_META).nested("status", CONDITIONS_BY_TYPE).build());
    kinds.put(
        "v1/ServiceAccount",
        // ServiceAccount.imagePullSecrets, unlike PodSpec's, carries no tag.
        builder().nested("metadata", OBJECT_META).mergeList("secrets", "name").build());
    PatchSchema deployment =
        builder()
            .nested("metadata", OBJECT_META)
            .nested(
                "spec",
                builder()
                    .retainKeys("strategy", EMPTY)
                    .atomic("selector")
                    .nested("template", POD_TEMPLATE_SPEC)
                    .build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build();
    kinds.put("apps/v1/Deployment", deployment);
    kinds.put(
        "apps/v1/ReplicaSet",
        builder()
            .nested("metadata", OBJECT_META)
            .nested(
                "spec", builder().atomic("selector").nested("template", POD_TEMPLATE_SPEC).build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    for (String kind :
        new String[] {
          "v1/ConfigMap",
          "v1/Secret",
          "v1/Event",
          "events.k8s.io/v1/Event",
          "v1/ResourceQuota",
          "v1/LimitRange",
          "coordination.k8s.io/v1/Lease",
          "rbac.authorization.k8s.io/v1/Role",
          "rbac.authorization.k8s.io/v1/ClusterRole",
          "rbac.authorization.k8s.io/v1/RoleBinding",
          "rbac.authorization.k8s.io/v1/ClusterRoleBinding"
        }) {
      kinds.put(kind, METADATA_ONLY);
    }
    return Map.copyOf(kinds);
  }

  /**
   * The metadata of a served kind, e.g. {@code forKind("apps/v1", "Deployment")}; empty for a kind
   * Streamplane does not serve, for which a strategic merge patch must be refused.
   */
  public static Optional<PatchSchema> forKind(String apiVersion, String kind) {
    return Optional.ofNullable(KINDS.get(apiVersion + "/" + kind));
  }
}
