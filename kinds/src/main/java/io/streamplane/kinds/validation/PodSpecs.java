package io.streamplane.kinds.validation;

import static io.streamplane.kinds.validation.FieldErrors.goMap;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.required;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerPort;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks of Kubernetes' {@code ValidatePodSpec} and of the workload validations that users meet
 * most: container names (unique across init and app containers), images, ports, restartPolicy;
 * selectors that match their template's labels, non-negative replicas.
 *
 * <p>Limits: the many deeper checks (quantities against limits, volume sources, probes, security
 * contexts) are not reproduced.
 */
public final class PodSpecs {

  private PodSpecs() {}

  private static final List<String> RESTART_POLICIES = List.of("Always", "OnFailure", "Never");

  /** A pod spec at {@code path} ({@code spec}, {@code spec.template.spec}). */
  public static void validate(PodSpec spec, String path, List<StatusCause> causes) {
    if (spec == null || empty(spec.getContainers())) {
      causes.add(required(path + ".containers"));
      return;
    }
    Set<String> names = new HashSet<>();
    containers(spec.getInitContainers(), path + ".initContainers", names, causes);
    containers(spec.getContainers(), path + ".containers", names, causes);
    String restartPolicy = spec.getRestartPolicy();
    if (restartPolicy != null && !RESTART_POLICIES.contains(restartPolicy)) {
      causes.add(
          FieldErrors.notSupported(path + ".restartPolicy", restartPolicy, RESTART_POLICIES));
    }
  }

  /**
   * A workload's spec (Deployment, ReplicaSet, ...): non-negative replicas, a selector that selects
   * the pod template, and the template's pod spec; {@code hasSpec} false is a missing selector.
   */
  public static List<StatusCause> workload(
      boolean hasSpec, Integer replicas, LabelSelector selector, PodTemplateSpec template) {
    List<StatusCause> causes = new ArrayList<>();
    if (!hasSpec) {
      causes.add(required("spec.selector"));
      return causes;
    }
    replicas(replicas, causes);
    selectorAndTemplate(selector, template, causes);
    return causes;
  }

  /** {@code spec.replicas} of a workload. */
  public static void replicas(Integer replicas, List<StatusCause> causes) {
    if (replicas != null && replicas < 0) {
      causes.add(
          invalid("spec.replicas", replicas.toString(), "must be greater than or equal to 0"));
    }
  }

  /** A workload's selector and pod template: the selector is required and selects the template. */
  public static void selectorAndTemplate(
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
    if (selector != null && !LabelSelectors.matches(selector, labels)) {
      causes.add(
          invalid(
              "spec.template.metadata.labels",
              goMap(labels),
              "`selector` does not match template `labels`"));
    }
    validate(template.getSpec(), "spec.template.spec", causes);
  }

  private static void containers(
      List<Container> containers, String path, Set<String> names, List<StatusCause> causes) {
    if (containers == null) {
      return;
    }
    for (int i = 0; i < containers.size(); i++) {
      Container container = containers.get(i);
      String at = path + "[" + i + "]";
      String name = container.getName();
      if (name == null || name.isBlank()) {
        causes.add(required(at + ".name"));
      } else if (Names.label(at + ".name", name) != null) {
        causes.add(Names.label(at + ".name", name));
      } else if (!names.add(name)) {
        causes.add(FieldErrors.duplicate(at + ".name", name));
      }
      if (container.getImage() == null || container.getImage().isBlank()) {
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

  private static boolean empty(Collection<?> c) {
    return c == null || c.isEmpty();
  }

  private static boolean empty(Map<?, ?> m) {
    return m == null || m.isEmpty();
  }
}
