package io.streamplane.gateway.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Admissionregistration;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Authentication;
import io.kubernetes.client.proto.V1Authorization;
import io.kubernetes.client.proto.V1Autoscaling;
import io.kubernetes.client.proto.V1Batch;
import io.kubernetes.client.proto.V1Certificates;
import io.kubernetes.client.proto.V1Networking;
import io.kubernetes.client.proto.V1Policy;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1Scheduling;
import io.kubernetes.client.proto.V1Storage;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decodes request bodies sent as {@code application/vnd.kubernetes.protobuf} into the Kubernetes
 * JSON the rest of the gateway works on. kubectl's typed clients ({@code create namespace}, {@code
 * create deployment|configmap|secret|serviceaccount|role|rolebinding|priorityclass|ingress|job...},
 * {@code auth can-i}, {@code certificate approve|deny}) send this form: the magic {@code k8s\0},
 * then a {@code runtime.Unknown} whose {@code typeMeta} names the kind and whose {@code raw} is the
 * object's own message.
 *
 * <p>Mapping. The messages come from {@code io.kubernetes:client-java-proto} 24 (Kubernetes 1.32);
 * their proto field names are the JSON names. Kubernetes' wrapper messages become their JSON forms:
 * {@code Time} to RFC 3339 seconds (a zero Time, sent as an empty message, is left out as Go's
 * {@code null}), {@code MicroTime} to RFC 3339 with microseconds, {@code Quantity} to its string,
 * {@code IntOrString} to a number or string, {@code RawExtension} and {@code FieldsV1} to the JSON
 * they wrap, bytes to base64, maps to objects; a struct Go embeds inline ({@link #embedded}) to its
 * fields in place, a named slice to its items.
 *
 * <p>Zero values. Go marshals every non-pointer scalar, set or not, so presence on the wire says
 * nothing for them; JSON would have left them out ({@code omitempty}) or written a zero that means
 * the same to a decoder. Empty strings, zeros and false are therefore dropped, except for the
 * pointer fields where an explicit zero means something ({@link #POINTER_FIELDS}: {@code replicas:
 * 0}, {@code automountServiceAccountToken: false}, ...). Nested messages are always kept, as Go
 * prints empty structs ({@code resources: {}}).
 *
 * <p>Responses: a client that accepts protobuf always also lists JSON (kubectl sends {@code
 * application/vnd.kubernetes.protobuf,application/json}), so the gateway answers JSON; decoding is
 * one-way. Limits: only the kinds in {@link #MESSAGES}; Lease is absent from client-java-proto and
 * arrives as JSON anyway (node workers send JSON); unknown fields in {@code raw} are dropped, as
 * protobuf decoding in kube-apiserver drops them.
 */
public final class ProtobufBodies {

  public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

  private static final byte[] MAGIC = {'k', '8', 's', 0};
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * The files of client-java-proto whose messages a request body may hold: those of the groups
   * Streamplane serves (coordination.k8s.io is not among them).
   */
  static final List<FileDescriptor> FILES =
      List.of(
          V1.getDescriptor(),
          V1Admissionregistration.getDescriptor(),
          V1Apps.getDescriptor(),
          V1Authentication.getDescriptor(),
          V1Authorization.getDescriptor(),
          V1Autoscaling.getDescriptor(),
          V1Batch.getDescriptor(),
          V1Certificates.getDescriptor(),
          V1Networking.getDescriptor(),
          V1Policy.getDescriptor(),
          V1Rbac.getDescriptor(),
          V1Scheduling.getDescriptor(),
          V1Storage.getDescriptor());

  /** apiVersion/kind to the message decoding it: every served kind the files above hold. */
  static final Map<String, Message> MESSAGES = messages(ResourceRegistry.kubernetes());

  /**
   * The message of each kind of the table of kinds (and of its subresources: autoscaling/v1 Scale,
   * authentication.k8s.io/v1 TokenRequest, policy/v1 Eviction) found in {@link #FILES}, by
   * Kubernetes' proto package: {@code k8s.io.api.<the group's first label, core for
   * "">.<version>.<Kind>}; and DeleteOptions.
   */
  static Map<String, Message> messages(ResourceRegistry kinds) {
    Map<String, Descriptor> byName = new HashMap<>();
    FILES.forEach(f -> f.getMessageTypes().forEach(m -> byName.put(m.getFullName(), m)));
    Map<String, Message> messages = new HashMap<>();
    for (ResourceType t : kinds.all()) {
      addMessage(messages, byName, t.group(), t.version(), t.kind());
      for (ResourceType.Subresource s : t.subresources()) {
        addMessage(messages, byName, s.group(), s.version(), s.kind());
      }
    }
    messages.put("v1/DeleteOptions", Meta.DeleteOptions.getDefaultInstance());
    return Map.copyOf(messages);
  }

  private static void addMessage(
      Map<String, Message> messages,
      Map<String, Descriptor> byName,
      String group,
      String version,
      String kind) {
    String pkg = group.isEmpty() ? "core" : group.split("\\.")[0];
    Descriptor message = byName.get("k8s.io.api." + pkg + "." + version + "." + kind);
    if (message != null) {
      String apiVersion = group.isEmpty() ? version : group + "/" + version;
      messages.put(apiVersion + "/" + kind, DynamicMessage.getDefaultInstance(message));
    }
  }

  /** Scalar fields that are pointers in Go: an explicit zero or false is kept. */
  static final Set<String> POINTER_FIELDS =
      Set.of(
          "k8s.io.api.apps.v1.DeploymentSpec.replicas",
          "k8s.io.api.apps.v1.DeploymentSpec.revisionHistoryLimit",
          "k8s.io.api.apps.v1.DeploymentSpec.progressDeadlineSeconds",
          "k8s.io.api.apps.v1.ReplicaSetSpec.replicas",
          "k8s.io.api.core.v1.ReplicationControllerSpec.replicas",
          "k8s.io.api.storage.v1.StorageClass.allowVolumeExpansion",
          "k8s.io.api.storage.v1.CSIDriverSpec.attachRequired",
          "k8s.io.api.storage.v1.CSIDriverSpec.podInfoOnMount",
          "k8s.io.api.storage.v1.CSIDriverSpec.storageCapacity",
          "k8s.io.api.storage.v1.CSIDriverSpec.requiresRepublish",
          "k8s.io.api.storage.v1.CSIDriverSpec.seLinuxMount",
          "k8s.io.api.autoscaling.v1.ScaleSpec.replicas",
          "k8s.io.api.batch.v1.JobSpec.parallelism",
          "k8s.io.api.batch.v1.JobSpec.completions",
          "k8s.io.api.batch.v1.JobSpec.activeDeadlineSeconds",
          "k8s.io.api.batch.v1.JobSpec.backoffLimit",
          "k8s.io.api.batch.v1.JobSpec.backoffLimitPerIndex",
          "k8s.io.api.batch.v1.JobSpec.maxFailedIndexes",
          "k8s.io.api.batch.v1.JobSpec.manualSelector",
          "k8s.io.api.batch.v1.JobSpec.ttlSecondsAfterFinished",
          "k8s.io.api.batch.v1.JobSpec.suspend",
          "k8s.io.api.batch.v1.CronJobSpec.startingDeadlineSeconds",
          "k8s.io.api.batch.v1.CronJobSpec.suspend",
          "k8s.io.api.batch.v1.CronJobSpec.successfulJobsHistoryLimit",
          "k8s.io.api.batch.v1.CronJobSpec.failedJobsHistoryLimit",
          "k8s.io.api.core.v1.PodSpec.terminationGracePeriodSeconds",
          "k8s.io.api.core.v1.PodSpec.activeDeadlineSeconds",
          "k8s.io.api.core.v1.PodSpec.automountServiceAccountToken",
          "k8s.io.api.core.v1.PodSpec.enableServiceLinks",
          "k8s.io.api.core.v1.PodSpec.shareProcessNamespace",
          "k8s.io.api.core.v1.PodSpec.hostUsers",
          "k8s.io.api.core.v1.PodSpec.setHostnameAsFQDN",
          "k8s.io.api.core.v1.PodSpec.priority",
          "k8s.io.api.core.v1.ServiceAccount.automountServiceAccountToken",
          "k8s.io.api.core.v1.ConfigMap.immutable",
          "k8s.io.api.core.v1.Secret.immutable",
          "k8s.io.api.core.v1.SecurityContext.privileged",
          "k8s.io.api.core.v1.SecurityContext.runAsUser",
          "k8s.io.api.core.v1.SecurityContext.runAsGroup",
          "k8s.io.api.core.v1.SecurityContext.runAsNonRoot",
          "k8s.io.api.core.v1.SecurityContext.readOnlyRootFilesystem",
          "k8s.io.api.core.v1.SecurityContext.allowPrivilegeEscalation",
          "k8s.io.api.core.v1.PodSecurityContext.runAsUser",
          "k8s.io.api.core.v1.PodSecurityContext.runAsGroup",
          "k8s.io.api.core.v1.PodSecurityContext.runAsNonRoot",
          "k8s.io.api.core.v1.PodSecurityContext.fsGroup",
          "k8s.io.api.core.v1.ConfigMapVolumeSource.defaultMode",
          "k8s.io.api.core.v1.ConfigMapVolumeSource.optional",
          "k8s.io.api.core.v1.SecretVolumeSource.defaultMode",
          "k8s.io.api.core.v1.SecretVolumeSource.optional",
          "k8s.io.api.core.v1.KeyToPath.mode",
          "k8s.io.api.core.v1.ConfigMapKeySelector.optional",
          "k8s.io.api.core.v1.SecretKeySelector.optional",
          "k8s.io.api.core.v1.ConfigMapEnvSource.optional",
          "k8s.io.api.core.v1.SecretEnvSource.optional",
          "k8s.io.api.core.v1.Toleration.tolerationSeconds",
          "k8s.io.api.core.v1.ContainerStatus.started",
          "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.deletionGracePeriodSeconds",
          "k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.controller",
          "k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.blockOwnerDeletion",
          "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.gracePeriodSeconds",
          "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.orphanDependents",
          "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential");

  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private ProtobufBodies() {}

  /** Whether a Content-Type names Kubernetes protobuf (parameters ignored). */
  public static boolean isProtobuf(String contentType) {
    return contentType != null
        && contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT).equals(MEDIA_TYPE);
  }

  /**
   * Decodes a protobuf request body to Kubernetes JSON with {@code apiVersion} and {@code kind} set
   * from the envelope. Throws {@code ApiException}: 400 for a body that is not a Kubernetes
   * protobuf envelope or does not parse, 415 for a kind this decoder has no message for.
   */
  public static ObjectNode decode(byte[] body) {
    if (body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
      throw Statuses.exception(
          Statuses.badRequest("provided object is not a Kubernetes protobuf envelope"));
    }
    Runtime.Unknown unknown;
    try {
      unknown = Runtime.Unknown.parseFrom(ByteString.copyFrom(body, 4, body.length - 4));
    } catch (InvalidProtocolBufferException e) {
      throw Statuses.exception(
          Statuses.badRequest("unable to decode protobuf body: " + e.getMessage()));
    }
    if (!unknown.getContentEncoding().isEmpty()) {
      throw Statuses.exception(
          Statuses.badRequest("unsupported content encoding " + unknown.getContentEncoding()));
    }
    String apiVersion = unknown.getTypeMeta().getApiVersion();
    String kind = unknown.getTypeMeta().getKind();
    Message prototype = MESSAGES.get(apiVersion + "/" + kind);
    if (prototype == null) {
      throw Statuses.exception(
          Statuses.unsupportedMediaType(List.of("application/json", "application/yaml")));
    }
    Message message;
    try {
      message = prototype.getParserForType().parseFrom(unknown.getRaw());
    } catch (InvalidProtocolBufferException e) {
      throw Statuses.exception(
          Statuses.badRequest(
              "unable to decode " + apiVersion + " " + kind + " from protobuf: " + e.getMessage()));
    }
    ObjectNode out = JSON.objectNode();
    out.put("apiVersion", apiVersion);
    out.put("kind", kind);
    out.setAll(toJson(message));
    return out;
  }

  /** Renders any Kubernetes proto message as Kubernetes JSON (exposed for tests and encoders). */
  public static ObjectNode toJson(Message message) {
    ObjectNode out = JSON.objectNode();
    Descriptor type = message.getDescriptorForType();
    for (Map.Entry<FieldDescriptor, Object> e : message.getAllFields().entrySet()) {
      FieldDescriptor field = e.getKey();
      if (embedded(field)) {
        out.setAll(toJson((Message) e.getValue()));
        continue;
      }
      JsonNode value;
      if (field.isMapField()) {
        ObjectNode map = JSON.objectNode();
        for (Object entry : (List<?>) e.getValue()) {
          Message m = (Message) entry;
          FieldDescriptor k = m.getDescriptorForType().findFieldByName("key");
          FieldDescriptor v = m.getDescriptorForType().findFieldByName("value");
          JsonNode converted = value(v, m.getField(v), true);
          map.set(String.valueOf(m.getField(k)), converted == null ? JSON.nullNode() : converted);
        }
        value = map;
      } else if (field.isRepeated()) {
        ArrayNode array = JSON.arrayNode();
        for (Object item : (List<?>) e.getValue()) {
          JsonNode converted = value(field, item, true);
          array.add(converted == null ? JSON.nullNode() : converted);
        }
        value = array;
      } else {
        boolean keepZero = POINTER_FIELDS.contains(type.getFullName() + "." + field.getName());
        value = value(field, e.getValue(), keepZero);
      }
      if (value != null) {
        out.set(jsonName(field), value);
      }
    }
    return out;
  }

  /**
   * The JSON name of a proto field. go-to-protobuf names a field by lower-casing the first letter
   * of the Go field, so a Go name opening with an acronym ({@code APIGroup}) becomes {@code
   * aPIGroup} where the JSON tag says {@code apiGroup}: the acronym is lower-cased whole.
   */
  static String jsonName(FieldDescriptor field) {
    String name = field.getName();
    if (name.length() < 3
        || !Character.isLowerCase(name.charAt(0))
        || !Character.isUpperCase(name.charAt(1))) {
      return name;
    }
    int end = 1;
    while (end < name.length() && Character.isUpperCase(name.charAt(end))) {
      end++;
    }
    if (end < name.length()) {
      end--; // the last capital opens the next word ("Group")
    }
    return name.substring(0, end).toLowerCase(Locale.ROOT) + name.substring(end);
  }

  /**
   * Whether a field stands for a struct Go embeds inline ({@code IngressRuleValue} in {@code
   * IngressRule}, {@code VolumeSource} in {@code Volume}), whose fields JSON writes in place: a
   * message field of Kubernetes' API that the official client's model of its message does not have,
   * as the schemas generator tells them apart.
   */
  static boolean embedded(FieldDescriptor field) {
    if (field.getType() != FieldDescriptor.Type.MESSAGE
        || field.isRepeated()
        || field.getMessageType().getFile().getPackage().startsWith("k8s.io.apimachinery")) {
      return false;
    }
    Set<String> fields =
        MODEL_FIELDS.computeIfAbsent(field.getContainingType(), ProtobufBodies::modelFields);
    return !fields.isEmpty() && !fields.contains(jsonName(field));
  }

  private static final Map<Descriptor, Set<String>> MODEL_FIELDS = new ConcurrentHashMap<>();

  /** The JSON fields of client-java-api's model of a message; empty when it has none. */
  @SuppressWarnings("unchecked")
  private static Set<String> modelFields(Descriptor message) {
    String[] pkg = message.getFile().getPackage().split("\\.");
    String version = capitalize(pkg[pkg.length - 1]);
    String group = capitalize(pkg[pkg.length - 2]);
    for (String model : List.of(version + message.getName(), group + version + message.getName())) {
      try {
        Class<?> type = Class.forName("io.kubernetes.client.openapi.models." + model);
        return Set.copyOf((Set<String>) type.getField("openapiFields").get(null));
      } catch (ReflectiveOperationException e) {
        // try the group-qualified name
      }
    }
    return Set.of();
  }

  private static String capitalize(String word) {
    return word.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1);
  }

  /** One value; null when it is to be left out. */
  private static JsonNode value(FieldDescriptor field, Object v, boolean keepZero) {
    switch (field.getJavaType()) {
      case MESSAGE:
        return message((Message) v);
      case STRING:
        String s = (String) v;
        return s.isEmpty() && !keepZero ? null : JSON.textNode(s);
      case BYTE_STRING:
        ByteString b = (ByteString) v;
        return b.isEmpty() && !keepZero
            ? null
            : JSON.textNode(Base64.getEncoder().encodeToString(b.toByteArray()));
      case BOOLEAN:
        return !(Boolean) v && !keepZero ? null : JSON.booleanNode((Boolean) v);
      case INT:
        return (Integer) v == 0 && !keepZero ? null : JSON.numberNode((Integer) v);
      case LONG:
        return (Long) v == 0 && !keepZero ? null : JSON.numberNode((Long) v);
      case DOUBLE:
        return (Double) v == 0 && !keepZero ? null : JSON.numberNode((Double) v);
      case FLOAT:
        return (Float) v == 0 && !keepZero ? null : JSON.numberNode((Float) v);
      case ENUM:
        return JSON.textNode(v.toString());
      default:
        return JSON.textNode(String.valueOf(v));
    }
  }

  /** A nested message, with Kubernetes' wrapper types rendered as their JSON forms. */
  private static JsonNode message(Message m) {
    Descriptor d = m.getDescriptorForType();
    switch (d.getFullName()) {
      case "k8s.io.apimachinery.pkg.apis.meta.v1.Time" -> {
        FieldDescriptor seconds = d.findFieldByName("seconds");
        // kube-apiserver's Time keeps seconds only; an empty message is the zero Time.
        return m.hasField(seconds)
            ? JSON.textNode(
                DateTimeFormatter.ISO_INSTANT.format(
                    Instant.ofEpochSecond((Long) m.getField(seconds))))
            : null;
      }
      case "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime" -> {
        FieldDescriptor seconds = d.findFieldByName("seconds");
        FieldDescriptor nanos = d.findFieldByName("nanos");
        if (!m.hasField(seconds)) {
          return null;
        }
        Instant t = Instant.ofEpochSecond((Long) m.getField(seconds), (Integer) m.getField(nanos));
        return JSON.textNode(MICRO_TIME.format(t));
      }
      case "k8s.io.apimachinery.pkg.api.resource.Quantity" -> {
        return JSON.textNode((String) m.getField(d.findFieldByName("string")));
      }
      case "k8s.io.apimachinery.pkg.util.intstr.IntOrString" -> {
        long type = ((Number) m.getField(d.findFieldByName("type"))).longValue();
        return type == 1
            ? JSON.textNode((String) m.getField(d.findFieldByName("strVal")))
            : JSON.numberNode((Integer) m.getField(d.findFieldByName("intVal")));
      }
      case "k8s.io.apimachinery.pkg.runtime.RawExtension",
          "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1" -> {
        // RawExtension names its one field raw, FieldsV1 Raw.
        ByteString raw = (ByteString) m.getField(d.findFieldByNumber(1));
        if (raw.isEmpty()) {
          return null;
        }
        try {
          return MAPPER.readTree(raw.toByteArray());
        } catch (IOException e) {
          return JSON.textNode(Base64.getEncoder().encodeToString(raw.toByteArray()));
        }
      }
      default -> {
        FieldDescriptor items = d.getFields().size() == 1 ? d.getFields().get(0) : null;
        if (items != null && items.isRepeated() && items.getName().equals("items")) {
          // go-to-protobuf wraps a named slice (certificates' ExtraValue) in a message of its
          // items; JSON writes the slice itself.
          ArrayNode array = JSON.arrayNode();
          for (Object item : (List<?>) m.getField(items)) {
            JsonNode converted = value(items, item, true);
            array.add(converted == null ? JSON.nullNode() : converted);
          }
          return array;
        }
        return toJson(m);
      }
    }
  }
}
