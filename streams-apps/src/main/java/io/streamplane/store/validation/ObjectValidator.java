package io.streamplane.store.validation;

import io.streamplane.api.ClusterRole;
import io.streamplane.api.ClusterRoleBinding;
import io.streamplane.api.Container;
import io.streamplane.api.ContainerPort;
import io.streamplane.api.Deployment;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.LabelSelectorRequirement;
import io.streamplane.api.Namespace;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.Role;
import io.streamplane.api.RoleBinding;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;

/**
 * The store's validation of an object before it is written, reproducing the checks and messages of
 * Kubernetes' {@code ValidateObjectMeta}, {@code ValidatePodSpec} and the apps validations that
 * users meet most: names, required fields, container names and ports, selectors matching template
 * labels, non-negative replicas. Returns the causes of a 422 Invalid; empty when valid.
 *
 * <p>Limits: the many deeper Kubernetes checks (resource quantities against limits, volume sources,
 * probes, security contexts) are not reproduced.
 */
public final class ObjectValidator {

  private static final String DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final Pattern LABEL = Pattern.compile(DNS1123_LABEL);
  private static final Pattern SUBDOMAIN =
      Pattern.compile(DNS1123_LABEL + "(\\." + DNS1123_LABEL + ")*");
  private static final String LABEL_MESSAGE =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and"
          + " must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc',"
          + " regex used for validation is '"
          + DNS1123_LABEL
          + "')";
  private static final String SUBDOMAIN_MESSAGE =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or"
          + " '.', and must start and end with an alphanumeric character (e.g. 'example.com',"
          + " regex used for validation is '"
          + DNS1123_LABEL
          + "(\\."
          + DNS1123_LABEL
          + ")*')";

  private ObjectValidator() {}

  /** Everything wrong with {@code object}, which is to be stored under {@code namespace}. */
  public static List<StatusCause> validate(SpecificRecord object, boolean namespaced) {
    List<StatusCause> causes = new ArrayList<>();
    ObjectMeta meta = KubeObjects.meta(object);
    if (object instanceof Role
        || object instanceof ClusterRole
        || object instanceof RoleBinding
        || object instanceof ClusterRoleBinding) {
      validatePathSegmentName(meta.getName(), causes);
    } else {
      validateName(meta.getName(), object instanceof Namespace, causes);
    }
    if (namespaced && isBlank(meta.getNamespace())) {
      causes.add(required("metadata.namespace"));
    } else if (namespaced && !LABEL.matcher(meta.getNamespace()).matches()) {
      causes.add(invalid("metadata.namespace", quote(meta.getNamespace()), LABEL_MESSAGE));
    }
    if (object instanceof Pod pod) {
      validatePodSpec(pod.getSpec(), "spec", causes);
    } else if (object instanceof Deployment deployment && deployment.getSpec() != null) {
      var spec = deployment.getSpec();
      validateReplicas(spec.getReplicas(), causes);
      validateSelectorAndTemplate(spec.getSelector(), spec.getTemplate(), causes);
    } else if (object instanceof Deployment) {
      causes.add(required("spec.selector"));
    } else if (object instanceof ReplicaSet replicaSet && replicaSet.getSpec() != null) {
      var spec = replicaSet.getSpec();
      validateReplicas(spec.getReplicas(), causes);
      validateSelectorAndTemplate(spec.getSelector(), spec.getTemplate(), causes);
    } else if (object instanceof ReplicaSet) {
      causes.add(required("spec.selector"));
    }
    return causes;
  }

  private static void validateName(String name, boolean label, List<StatusCause> causes) {
    if (isBlank(name)) {
      causes.add(required("metadata.name", "name or generateName is required"));
    } else if (label && (name.length() > 63 || !LABEL.matcher(name).matches())) {
      causes.add(invalid("metadata.name", quote(name), LABEL_MESSAGE));
    } else if (!label && (name.length() > 253 || !SUBDOMAIN.matcher(name).matches())) {
      causes.add(invalid("metadata.name", quote(name), SUBDOMAIN_MESSAGE));
    }
  }

  /**
   * RBAC objects are named as path segments (Kubernetes' {@code ValidateRBACName}), so that the
   * default roles' names such as {@code system:controller:job-controller} are valid.
   */
  private static void validatePathSegmentName(String name, List<StatusCause> causes) {
    if (isBlank(name)) {
      causes.add(required("metadata.name", "name or generateName is required"));
    } else if (name.equals(".") || name.equals("..")) {
      causes.add(invalid("metadata.name", quote(name), "may not be '" + name + "'"));
    } else {
      for (String forbidden : List.of("/", "%")) {
        if (name.contains(forbidden)) {
          causes.add(invalid("metadata.name", quote(name), "may not contain '" + forbidden + "'"));
        }
      }
    }
  }

  private static void validateReplicas(Integer replicas, List<StatusCause> causes) {
    if (replicas != null && replicas < 0) {
      causes.add(
          invalid("spec.replicas", replicas.toString(), "must be greater than or equal to 0"));
    }
  }

  private static void validateSelectorAndTemplate(
      LabelSelector selector, PodTemplateSpec template, List<StatusCause> causes) {
    if (selector == null
        || (empty(selector.getMatchLabels()) && empty(selector.getMatchExpressions()))) {
      causes.add(required("spec.selector"));
    }
    if (template == null) {
      causes.add(required("spec.template"));
      return;
    }
    Map<String, String> labels =
        template.getMetadata() == null || template.getMetadata().getLabels() == null
            ? Map.of()
            : template.getMetadata().getLabels();
    if (selector != null && !matches(selector, labels)) {
      causes.add(
          invalid(
              "spec.template.metadata.labels",
              goMap(labels),
              "`selector` does not match template `labels`"));
    }
    validatePodSpec(template.getSpec(), "spec.template.spec", causes);
  }

  private static void validatePodSpec(PodSpec spec, String path, List<StatusCause> causes) {
    if (spec == null || empty(spec.getContainers())) {
      causes.add(required(path + ".containers"));
      return;
    }
    Set<String> names = new HashSet<>();
    validateContainers(spec.getInitContainers(), path + ".initContainers", names, causes);
    validateContainers(spec.getContainers(), path + ".containers", names, causes);
    String restartPolicy = spec.getRestartPolicy();
    if (restartPolicy != null && !Set.of("Always", "OnFailure", "Never").contains(restartPolicy)) {
      causes.add(
          new StatusCause(
              "FieldValueNotSupported",
              "Unsupported value: "
                  + quote(restartPolicy)
                  + ": supported values: \"Always\", \"OnFailure\", \"Never\"",
              path + ".restartPolicy"));
    }
  }

  private static void validateContainers(
      List<Container> containers, String path, Set<String> names, List<StatusCause> causes) {
    if (containers == null) {
      return;
    }
    for (int i = 0; i < containers.size(); i++) {
      Container container = containers.get(i);
      String at = path + "[" + i + "]";
      String name = container.getName();
      if (isBlank(name)) {
        causes.add(required(at + ".name"));
      } else if (name.length() > 63 || !LABEL.matcher(name).matches()) {
        causes.add(invalid(at + ".name", quote(name), LABEL_MESSAGE));
      } else if (!names.add(name)) {
        causes.add(
            new StatusCause(
                "FieldValueDuplicate", "Duplicate value: " + quote(name), at + ".name"));
      }
      if (isBlank(container.getImage())) {
        causes.add(required(at + ".image"));
      }
      List<ContainerPort> ports = container.getPorts();
      for (int p = 0; ports != null && p < ports.size(); p++) {
        Integer port = ports.get(p).getContainerPort();
        String portPath = at + ".ports[" + p + "].containerPort";
        if (port == null) {
          causes.add(required(portPath));
        } else if (port < 1 || port > 65535) {
          causes.add(invalid(portPath, port.toString(), "must be between 1 and 65535, inclusive"));
        }
      }
    }
  }

  /** Label selector matching, as Kubernetes' {@code metav1.LabelSelectorAsSelector}. */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector.getMatchLabels() != null) {
      for (var entry : selector.getMatchLabels().entrySet()) {
        if (!entry.getValue().equals(labels.get(entry.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement requirement : selector.getMatchExpressions()) {
        String value = labels.get(requirement.getKey());
        List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        boolean ok =
            switch (String.valueOf(requirement.getOperator())) {
              case "In" -> value != null && values.contains(value);
              case "NotIn" -> value == null || !values.contains(value);
              case "Exists" -> value != null;
              case "DoesNotExist" -> value == null;
              default -> false;
            };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }

  /** A summary message in Kubernetes' shape: {@code Pod "x" is invalid: [a: ..., b: ...]}. */
  public static String message(String qualifiedKind, String name, List<StatusCause> causes) {
    String details =
        causes.stream()
            .map(c -> c.getField() + ": " + c.getMessage())
            .collect(Collectors.joining(", "));
    return qualifiedKind
        + " \""
        + (name == null ? "" : name)
        + "\" is invalid: "
        + (causes.size() == 1 ? details : "[" + details + "]");
  }

  private static StatusCause required(String field) {
    return new StatusCause("FieldValueRequired", "Required value", field);
  }

  private static StatusCause required(String field, String detail) {
    return new StatusCause("FieldValueRequired", "Required value: " + detail, field);
  }

  private static StatusCause invalid(String field, String value, String detail) {
    return new StatusCause("FieldValueInvalid", "Invalid value: " + value + ": " + detail, field);
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }

  /** Formats labels as Go prints a map[string]string, as Kubernetes' messages show them. */
  private static String goMap(Map<String, String> map) {
    return new TreeMap<>(map)
        .entrySet().stream()
            .map(e -> quote(e.getKey()) + ":" + quote(e.getValue()))
            .collect(Collectors.joining(", ", "map[string]string{", "}"));
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }

  private static boolean empty(Collection<?> c) {
    return c == null || c.isEmpty();
  }

  private static boolean empty(Map<?, ?> m) {
    return m == null || m.isEmpty();
  }
}
