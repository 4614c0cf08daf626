package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.PodSecurityChecks.Level;
import io.streamplane.gateway.admission.PodSecurityChecks.Violation;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The PodSecurity admission plugin: a namespace's {@code pod-security.kubernetes.io/enforce} label
 * refuses the pods that break its level (baseline or restricted, {@link PodSecurityChecks}), with
 * kube-apiserver's 403 {@code violates PodSecurity "restricted:latest": ...}; its {@code warn}
 * label answers the pods and the pod templates of workloads that would break it with a {@code
 * Warning}. A namespace without labels is privileged: everything is allowed.
 *
 * <p>As Kubernetes: enforce applies to pods only (a Deployment is admitted, its pods are refused
 * when its ReplicaSet creates them, which every controller does through admission); an update is
 * checked only when it changes the pod's spec; status and other subresources are not checked.
 * Limits: the {@code audit} mode is not implemented, and {@code *-version} labels only name the
 * version in messages (every version is checked as the latest).
 */
public final class PodSecurity implements ValidatingAdmission {

  static final String PREFIX = "pod-security.kubernetes.io/";

  /** The kinds whose pod template {@code warn} looks at, with where the pod spec is. */
  private static final Set<String> TEMPLATE_KINDS =
      Set.of(
          "ReplicaSet.apps",
          "Deployment.apps",
          "StatefulSet.apps",
          "DaemonSet.apps",
          "ReplicationController",
          "Job.batch",
          "PodTemplate");

  private final ClusterObjects objects;

  public PodSecurity(ClusterObjects objects) {
    this.objects = objects;
  }

  @Override
  public void validate(AdmissionRequest request) {
    if (!isPod(request) || !specChanged(request)) {
      return;
    }
    Optional<Policy> enforce = policy(request.namespace(), "enforce");
    if (enforce.isEmpty()) {
      return;
    }
    List<Violation> violations =
        PodSecurityChecks.check(request.object().path("spec"), enforce.get().level());
    if (!violations.isEmpty()) {
      throw new ApiException(
          Statuses.forbidden(
              "",
              "pods",
              request.name(),
              "violates PodSecurity \"" + enforce.get() + "\": " + join(violations)));
    }
  }

  @Override
  public List<String> warnings(AdmissionRequest request) {
    JsonNode spec = podSpec(request);
    if (spec == null || !specChanged(request)) {
      return List.of();
    }
    Optional<Policy> warn = policy(request.namespace(), "warn");
    if (warn.isEmpty()) {
      return List.of();
    }
    List<Violation> violations = PodSecurityChecks.check(spec, warn.get().level());
    return violations.isEmpty()
        ? List.of()
        : List.of("would violate PodSecurity \"" + warn.get() + "\": " + join(violations));
  }

  private record Policy(Level level, String version) {
    @Override
    public String toString() {
      return level.label() + ":" + version;
    }
  }

  /** The namespace's policy for a mode, if it names a level other than privileged. */
  private Optional<Policy> policy(String namespace, String mode) {
    if (namespace == null || namespace.isEmpty()) {
      return Optional.empty();
    }
    JsonNode labels =
        objects
            .get("", "namespaces", null, namespace)
            .map(n -> n.path("metadata").path("labels"))
            .orElse(null);
    if (labels == null) {
      return Optional.empty();
    }
    Level level = Level.parse(labels.path(PREFIX + mode).asText(""));
    if (level == null || level == Level.PRIVILEGED) {
      return Optional.empty();
    }
    String version = labels.path(PREFIX + mode + "-version").asText("");
    return Optional.of(new Policy(level, version.isEmpty() ? "latest" : version));
  }

  private static boolean isPod(AdmissionRequest request) {
    return request.type().group().isEmpty()
        && request.type().plural().equals("pods")
        && request.subresource().isEmpty()
        && request.object() != null
        && (request.operation() == Operation.CREATE || request.operation() == Operation.UPDATE);
  }

  /** The pod spec a write carries: a pod's, or a workload's template's; null otherwise. */
  private static JsonNode podSpec(AdmissionRequest request) {
    if (request.object() == null
        || !request.subresource().isEmpty()
        || request.operation() == Operation.DELETE) {
      return null;
    }
    if (isPod(request)) {
      return request.object().path("spec");
    }
    if (!TEMPLATE_KINDS.contains(request.type().qualifiedKind())) {
      return null;
    }
    JsonNode template =
        request.type().kind().equals("PodTemplate")
            ? request.object().path("template")
            : request.object().path("spec").path("template");
    return template.path("spec").isObject() ? template.path("spec") : null;
  }

  /** An update is checked only when it changes the pod spec (labels and status are not). */
  private static boolean specChanged(AdmissionRequest request) {
    ObjectNode old = request.oldObject();
    return old == null || !old.path("spec").equals(request.object().path("spec"));
  }

  private static String join(List<Violation> violations) {
    return violations.stream().map(Violation::toString).collect(Collectors.joining(", "));
  }
}
