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
 * Streamplane serves, taken from k8s.io/api core/v1, apps/v1 and storage/v1 (the other groups'
 * kinds carry no tags beyond their metadata's) and from ObjectMeta in k8s.io/apimachinery.
 *
 * <p>It is also the one source of the {@code x-kubernetes-patch-strategy} and {@code
 * x-kubernetes-patch-merge-key} extensions the OpenAPI documents publish ({@code
 * io.streamplane.gateway.api.KubernetesDefinitions}), from which kubectl computes the patches it
 * sends: client and server merge by the same keys. Server-side apply reads the list markers too,
 * and the {@code +structType=atomic} structs ({@link #atomicStruct}), owned and applied whole.
 *
 * <p>Limits: only the kinds listed in {@link #forKind} are known; a kind outside that list gets no
 * schema for a strategic merge patch, as custom resources get none in Kubernetes (which answers 415
 * to one for them); server-side apply reads a custom resource's list markers from its definition
 * ({@link CustomResourcePatchSchema}). Fields added to Kubernetes after 1.32 and still alpha there
 * are omitted.
 */
public final class PatchSchema {

  /**
   * Metadata for one field: how a patch combines it with the live value. {@code retainKeys} is
   * informative only: the server honours a {@code $retainKeys} directive wherever a client sends
   * one, as kube-apiserver does; it is kept so the schema reads like the Go tags. {@code listType}
   * and {@code listMapKeys} are the list's {@code +listType}/{@code +listMapKey} markers (map, set
   * or atomic; "" when the field has none here): the patch does not read them, the published
   * OpenAPI does.
   */
  public record Field(
      boolean merge,
      boolean retainKeys,
      String mergeKey,
      PatchSchema schema,
      String listType,
      List<String> listMapKeys) {
    public Field {
      Objects.requireNonNull(mergeKey, "mergeKey");
      Objects.requireNonNull(schema, "schema");
      Objects.requireNonNull(listType, "listType");
      listMapKeys = List.copyOf(listMapKeys);
    }

    Field(boolean merge, boolean retainKeys, String mergeKey, PatchSchema schema) {
      this(merge, retainKeys, mergeKey, schema, "", List.of());
    }
  }

  /** No metadata: maps merge recursively, lists are replaced. */
  public static final PatchSchema EMPTY = new PatchSchema(Map.of());

  private static final Field PLAIN = new Field(false, false, "", EMPTY);

  private final Map<String, Field> fields;
  private final Set<String> atomicStructs;
  private final Field others;
  private final boolean othersAtomic;

  private PatchSchema(Map<String, Field> fields) {
    this(fields, Set.of(), null, false);
  }

  private PatchSchema(
      Map<String, Field> fields, Set<String> atomicStructs, Field others, boolean othersAtomic) {
    this.fields = Map.copyOf(fields);
    this.atomicStructs = Set.copyOf(atomicStructs);
    this.others = others;
    this.othersAtomic = othersAtomic;
  }

  /** Whether a struct field is {@code +structType=atomic} (e.g. a LabelSelector). */
  public boolean atomicStruct(String name) {
    return atomicStructs.contains(name) || (othersAtomic && !fields.containsKey(name));
  }

  /**
   * The metadata of a field of this object; a field without tags gets the metadata of the map's
   * values ({@link Builder#otherFields}), or else the plain metadata.
   */
  public Field field(String name) {
    Field field = fields.get(name);
    if (field != null) {
      return field;
    }
    return others == null ? PLAIN : others;
  }

  /** The fields that carry metadata, by JSON name; the others get the plain metadata. */
  public Map<String, Field> fields() {
    return fields;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a schema field by field. */
  public static final class Builder {
    private final Map<String, Field> fields = new LinkedHashMap<>();
    private final Set<String> atomicStructs = new LinkedHashSet<>();
    private Field others;
    private boolean othersAtomic;

    /** A field with the given metadata. */
    public Builder field(String name, Field field) {
      fields.put(name, field);
      return this;
    }

    /**
     * The metadata of every field not named, as the values of a map have (a custom resource's
     * {@code additionalProperties}); {@code atomicStruct}: those values are owned whole.
     */
    public Builder otherFields(Field field, boolean atomicStruct) {
      this.others = field;
      this.othersAtomic = atomicStruct;
      return this;
    }

    /**
     * A list of objects merged element by element on {@code mergeKey}; a list map keyed by it
     * ({@code +listType=map}, {@code +listMapKey=<mergeKey>}) unless {@link #listMapKeys} or {@link
     * #atomic} says otherwise.
     */
    public Builder mergeList(String field, String mergeKey, PatchSchema element) {
      fields.put(field, new Field(true, false, mergeKey, element, "map", List.of(mergeKey)));
      return this;
    }

    /** The {@code +listMapKey} markers of a list map, where they are more than its merge key. */
    public Builder listMapKeys(String field, String... keys) {
      Field f = fields.get(field);
      fields.put(
          field,
          new Field(f.merge(), f.retainKeys(), f.mergeKey(), f.schema(), "map", List.of(keys)));
      return this;
    }

    /** A list marked {@code +listType=atomic} though a patch merges it (e.g. PodStatus hostIPs). */
    public Builder atomic(String field) {
      Field f = fields.get(field);
      fields.put(
          field,
          new Field(f.merge(), f.retainKeys(), f.mergeKey(), f.schema(), "atomic", List.of()));
      return this;
    }

    public Builder mergeList(String field, String mergeKey) {
      return mergeList(field, mergeKey, EMPTY);
    }

    /** A list merged by key whose elements are unions cleared by {@code $retainKeys}. */
    public Builder mergeListRetainKeys(String field, String mergeKey, PatchSchema element) {
      fields.put(field, new Field(true, true, mergeKey, element, "map", List.of(mergeKey)));
      return this;
    }

    /** A list of primitives merged as a set (e.g. finalizers). */
    public Builder primitiveSet(String field) {
      fields.put(field, new Field(true, false, "", EMPTY, "set", List.of()));
      return this;
    }

    /** A map that is a union: kubectl sends {@code $retainKeys} to clear the other members. */
    public Builder retainKeys(String field, PatchSchema value) {
      fields.put(field, new Field(false, true, "", value));
      return this;
    }

    /**
     * A list without a strategy of its own (a patch replaces it whole) whose elements' fields carry
     * tags, e.g. PodStatus containerStatuses: the tags only matter to the published OpenAPI.
     */
    public Builder replacedList(String field, PatchSchema element) {
      fields.put(field, new Field(false, false, "", element, "atomic", List.of()));
      return this;
    }

    /** A map without a strategy of its own, holding fields that have one. */
    public Builder nested(String field, PatchSchema value) {
      fields.put(field, new Field(false, false, "", value));
      return this;
    }

    /** A struct marked {@code +structType=atomic}. */
    public Builder atomicStruct(String field) {
      atomicStructs.add(field);
      return this;
    }

    public PatchSchema build() {
      return new PatchSchema(fields, atomicStructs, others, othersAtomic);
    }
  }

  // --- Metadata of the served kinds. Each constant mirrors one Go struct's tags. ---

  /** ObjectMeta's: owner references by uid, finalizers a set. */
  static final PatchSchema OBJECT_META =
      builder().mergeList("ownerReferences", "uid").primitiveSet("finalizers").build();

  private static final PatchSchema ENV_VAR =
      builder()
          .nested(
              "valueFrom",
              builder()
                  .atomicStruct("fieldRef")
                  .atomicStruct("resourceFieldRef")
                  .atomicStruct("configMapKeyRef")
                  .atomicStruct("secretKeyRef")
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
                      builder()
                          .atomicStruct("requiredDuringSchedulingIgnoredDuringExecution")
                          .build())
                  .build())
          .mergeList("schedulingGates", "name")
          .mergeListRetainKeys("resourceClaims", "name", EMPTY)
          .build();

  private static final PatchSchema CONTAINER_STATUS =
      builder()
          .mergeList("volumeMounts", "mountPath")
          .mergeList("allocatedResourcesStatus", "name")
          .build();

  private static final PatchSchema POD_STATUS =
      builder()
          .mergeList("conditions", "type")
          .replacedList("initContainerStatuses", CONTAINER_STATUS)
          .replacedList("containerStatuses", CONTAINER_STATUS)
          .replacedList("ephemeralContainerStatuses", CONTAINER_STATUS)
          .mergeList("hostIPs", "ip")
          .atomic("hostIPs")
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
                    .atomicStruct("selector")
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
                "spec",
                builder().atomicStruct("selector").nested("template", POD_TEMPLATE_SPEC).build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    // DaemonSetSpec.updateStrategy carries no tag, unlike a Deployment's strategy.
    kinds.put(
        "apps/v1/DaemonSet",
        builder()
            .nested("metadata", OBJECT_META)
            .nested(
                "spec",
                builder().atomicStruct("selector").nested("template", POD_TEMPLATE_SPEC).build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    kinds.put(
        "apps/v1/StatefulSet",
        builder()
            .nested("metadata", OBJECT_META)
            .nested(
                "spec",
                builder().atomicStruct("selector").nested("template", POD_TEMPLATE_SPEC).build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    PatchSchema jobSpec = builder().nested("template", POD_TEMPLATE_SPEC).build();
    kinds.put(
        "batch/v1/Job",
        builder()
            .nested("metadata", OBJECT_META)
            .nested("spec", jobSpec)
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    kinds.put(
        "batch/v1/CronJob",
        builder()
            .nested("metadata", OBJECT_META)
            .nested(
                "spec",
                builder()
                    .nested(
                        "jobTemplate",
                        builder().nested("metadata", OBJECT_META).nested("spec", jobSpec).build())
                    .build())
            .build());
    // PodDisruptionBudgetSpec.selector is patchStrategy "replace".
    kinds.put(
        "policy/v1/PodDisruptionBudget",
        builder()
            .nested("metadata", OBJECT_META)
            .nested("spec", builder().atomicStruct("selector").build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    // PersistentVolumeSpec.nodeAffinity.required is a NodeSelector (+structType=atomic); claimRef
    // is granular.
    kinds.put(
        "v1/PersistentVolume",
        builder()
            .nested("metadata", OBJECT_META)
            .nested(
                "spec",
                builder()
                    .nested("nodeAffinity", builder().atomicStruct("required").build())
                    .build())
            .build());
    kinds.put(
        "v1/PersistentVolumeClaim",
        builder()
            .nested("metadata", OBJECT_META)
            .nested("spec", builder().atomicStruct("selector").build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    // HorizontalPodAutoscalerStatus.conditions merges by type; spec.metrics is atomic.
    kinds.put(
        "autoscaling/v2/HorizontalPodAutoscaler",
        builder().nested("metadata", OBJECT_META).nested("status", CONDITIONS_BY_TYPE).build());
    kinds.put("autoscaling/v1/HorizontalPodAutoscaler", METADATA_ONLY);
    kinds.put(
        "v1/PodTemplate",
        builder().nested("metadata", OBJECT_META).nested("template", POD_TEMPLATE_SPEC).build());
    kinds.put(
        "v1/ReplicationController",
        builder()
            .nested("metadata", OBJECT_META)
            .nested("spec", builder().nested("template", POD_TEMPLATE_SPEC).build())
            .nested("status", CONDITIONS_BY_TYPE)
            .build());
    kinds.put(
        "storage.k8s.io/v1/CSINode",
        builder()
            .nested("metadata", OBJECT_META)
            .nested("spec", builder().mergeList("drivers", "name").build())
            .build());
    PatchSchema conditionsByType =
        builder().nested("metadata", OBJECT_META).nested("status", CONDITIONS_BY_TYPE).build();
    kinds.put("flowcontrol.apiserver.k8s.io/v1/FlowSchema", conditionsByType);
    kinds.put("flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration", conditionsByType);
    // cidrs is an atomic list: a patch replaces it whole.
    kinds.put("networking.k8s.io/v1beta1/ServiceCIDR", conditionsByType);
    for (String kind :
        new String[] {
          "v1/ConfigMap",
          "v1/Secret",
          "v1/Event",
          "events.k8s.io/v1/Event",
          "v1/ResourceQuota",
          "v1/LimitRange",
          "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration",
          "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration",
          "coordination.k8s.io/v1/Lease",
          "rbac.authorization.k8s.io/v1/Role",
          "rbac.authorization.k8s.io/v1/ClusterRole",
          "rbac.authorization.k8s.io/v1/RoleBinding",
          "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
          "apps/v1/ControllerRevision",
          "scheduling.k8s.io/v1/PriorityClass",
          "networking.k8s.io/v1/IngressClass",
          "networking.k8s.io/v1/Ingress",
          "networking.k8s.io/v1/NetworkPolicy",
          "networking.k8s.io/v1beta1/IPAddress",
          "storage.k8s.io/v1/StorageClass",
          "storage.k8s.io/v1/CSIDriver",
          "storage.k8s.io/v1/CSIStorageCapacity",
          "storage.k8s.io/v1/VolumeAttachment",
          "certificates.k8s.io/v1/CertificateSigningRequest",
          "node.k8s.io/v1/RuntimeClass",
          // endpoints and ports are atomic lists: a patch replaces them whole.
          "discovery.k8s.io/v1/EndpointSlice",
          // every list of the admission policies is atomic.
          "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
          "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding"
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
