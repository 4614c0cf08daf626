package io.streamplane.schema.generator;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the official Java client (client-java-api, generated from the same Kubernetes release's
 * OpenAPI) knows of a message that its protobuf descriptor does not say: which fields kube-openapi
 * marks required, and whether the object carries {@code apiVersion} and {@code kind}.
 *
 * <p>kube-openapi marks a field required when its Go JSON tag has no {@code omitempty} and it is
 * not {@code +optional}: exactly the fields Kubernetes writes even when empty. The client carries
 * that set as each model's {@code openapiRequiredFields} (and as {@code @ApiModelProperty(required
 * = true)} on the getters).
 */
public final class KubernetesModels {

  static final String MODELS = "io.kubernetes.client.openapi.models.";
  private static final String SERIALIZED_NAME = "com.google.gson.annotations.SerializedName";

  private KubernetesModels() {}

  /** The model of a message, for this release of client-java-api. */
  public record Model(Class<?> type, Set<String> fields, Set<String> required) {

    /** The model class's fields by JSON name, sorted by JSON name (OpenAPI's order). */
    SortedMap<String, Field> javaFields() {
      SortedMap<String, Field> byJsonName = new TreeMap<>();
      for (Field field : type.getDeclaredFields()) {
        String json = serializedName(field);
        if (json != null && fields.contains(json)) {
          byJsonName.put(json, field);
        }
      }
      return byJsonName;
    }

    /**
     * The JSON name of a proto field: its own when the model has it, else the model's field of the
     * same name but for case, else the name with its first letter in lower case. Kubernetes'
     * generated.proto names a few fields after the Go struct's ({@code Webhooks} of the webhook
     * configurations, JSON {@code webhooks}; {@code aPIGroup} of IngressClassParametersReference,
     * JSON {@code apiGroup}); some JSON names do start with a capital ({@code Port} of
     * DaemonEndpoint).
     */
    String jsonName(FieldDescriptor field) {
      String name = field.getName();
      if (fields.contains(name) || name.isEmpty()) {
        return name;
      }
      List<String> sameButCase =
          fields.stream().filter(f -> f.equalsIgnoreCase(name)).sorted().toList();
      if (sameButCase.size() == 1) {
        return sameButCase.get(0);
      }
      return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    /** Whether the Kubernetes object carries {@code apiVersion} and {@code kind} (its TypeMeta). */
    boolean hasTypeMeta() {
      return fields.contains("apiVersion") && fields.contains("kind");
    }

    /**
     * The JSON fields of a message, in order: its proto fields, where a field the model does not
     * have is a Go struct embedded inline ({@code VolumeSource} in {@code Volume}, {@code
     * ProbeHandler} in {@code Probe}) and stands for its own fields, at its place.
     *
     * @throws IllegalStateException when a field is neither in the model nor an embedded struct
     */
    List<FieldDescriptor> jsonFields(Descriptor message) {
      List<FieldDescriptor> json = new ArrayList<>();
      for (FieldDescriptor field : message.getFields()) {
        if (fields.contains(jsonName(field))) {
          json.add(field);
        } else if (isEmbeddable(field)) {
          json.addAll(jsonFields(field.getMessageType()));
        } else {
          throw new IllegalStateException(
              type.getName() + " has no field " + field.getFullName() + " of the proto");
        }
      }
      return json;
    }

    private boolean covers(Descriptor message) {
      for (FieldDescriptor field : message.getFields()) {
        if (!fields.contains(jsonName(field))
            && !(isEmbeddable(field) && covers(field.getMessageType()))) {
          return false;
        }
      }
      return true;
    }

    private static boolean isEmbeddable(FieldDescriptor field) {
      return field.getType() == FieldDescriptor.Type.MESSAGE
          && !field.isRepeated()
          && !field.getMessageType().getFile().getPackage().startsWith("k8s.io.apimachinery");
    }
  }

  /**
   * The client model of a message: {@code V1<Name>}, or {@code <Group>V1<Name>} where the client
   * tells a shared name apart ({@code CoreV1Event}); the first whose fields include every field of
   * the message, those of its embedded structs included.
   *
   * @throws IllegalStateException when no model matches, so no message goes without its required
   *     fields
   */
  public static Model of(Descriptor message) {
    List<String> tried = new ArrayList<>();
    for (String candidate : candidates(message)) {
      Class<?> type;
      try {
        type = Class.forName(candidate, true, KubernetesModels.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        tried.add(candidate + " (absent)");
        continue;
      }
      Model model =
          new Model(
              type, stringSet(type, "openapiFields"), stringSet(type, "openapiRequiredFields"));
      if (model.covers(message)) {
        return model;
      }
      tried.add(candidate + " (lacks fields of the proto)");
    }
    throw new IllegalStateException(
        "no client-java-api model for " + message.getFullName() + ": tried " + tried);
  }

  /** Whether client-java-api has a model class of a message's name. */
  static boolean has(Descriptor message) {
    for (String candidate : candidates(message)) {
      try {
        Class.forName(candidate, false, KubernetesModels.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException e) {
        // try the next name
      }
    }
    return false;
  }

  private static List<String> candidates(Descriptor message) {
    String version = RecordNames.capitalize(RecordNames.version(message));
    return List.of(
        MODELS + version + message.getName(),
        MODELS + RecordNames.capitalize(RecordNames.group(message)) + version + message.getName());
  }

  /** The model of a client-java-api class, for a type its models have and the protos lack. */
  static Model ofClass(Class<?> type) {
    return new Model(
        type, stringSet(type, "openapiFields"), stringSet(type, "openapiRequiredFields"));
  }

  /** The JSON name gson gives a model field ({@code @SerializedName}), or null for none. */
  private static String serializedName(Field field) {
    for (Annotation annotation : field.getAnnotations()) {
      if (annotation.annotationType().getName().equals(SERIALIZED_NAME)) {
        try {
          return (String) annotation.annotationType().getMethod("value").invoke(annotation);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(field + ": unreadable @SerializedName", e);
        }
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private static Set<String> stringSet(Class<?> type, String name) {
    try {
      Field field = type.getField(name);
      return Set.copyOf((Set<String>) field.get(null));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(type.getName() + " has no static " + name, e);
    }
  }
}
