package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What an object counts against a ResourceQuota, as Kubernetes' quota evaluators
 * (pkg/quota/v1/evaluator/core) count it: every object {@code count/<resource>[.<group>]}; pods
 * {@code pods} while not terminal, and their compute resources ({@code requests.cpu}, {@code cpu},
 * {@code limits.memory}, ...: containers summed, init containers at their largest); config maps,
 * secrets and resource quotas their own count. A pure function of the object and the time.
 */
public final class QuotaUsage {

  private static final Set<String> POD_COMPUTE =
      Set.of(
          "cpu",
          "memory",
          "ephemeral-storage",
          "requests.cpu",
          "requests.memory",
          "requests.ephemeral-storage",
          "limits.cpu",
          "limits.memory",
          "limits.ephemeral-storage");

  /** The resources whose quota Kubernetes' pod evaluator requires every container to declare. */
  static final Set<String> POD_VALIDATION =
      Set.of("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory");

  private QuotaUsage() {}

  /** A quantity of a quota resource as Kubernetes prints it in a quota's status. */
  public static String format(String resource, BigDecimal value) {
    return ResourceLists.format(resource, value);
  }

  /** The object count resource of a type: {@code count/pods}, {@code count/deployments.apps}. */
  public static String countName(String group, String plural) {
    return "count/" + plural + (group.isEmpty() ? "" : "." + group);
  }

  /** Whether a quota resource is one this type's objects can use. */
  public static boolean matches(String group, String plural, String resource) {
    if (resource.equals(countName(group, plural))) {
      return true;
    }
    if (!group.isEmpty()) {
      return false;
    }
    return switch (plural) {
      case "pods" ->
          resource.equals("pods")
              || POD_COMPUTE.contains(resource)
              || resource.startsWith("requests.")
              || resource.startsWith("limits.");
      case "configmaps", "secrets", "resourcequotas", "services", "persistentvolumeclaims" ->
          resource.equals(plural);
      default -> false;
    };
  }

  /** What one object of the type uses, by quota resource name. */
  public static TreeMap<String, BigDecimal> of(
      String group, String plural, JsonNode object, Instant now) {
    TreeMap<String, BigDecimal> usage = new TreeMap<>();
    usage.put(countName(group, plural), BigDecimal.ONE);
    if (!group.isEmpty()) {
      return usage;
    }
    switch (plural) {
      case "configmaps", "secrets", "resourcequotas" -> usage.put(plural, BigDecimal.ONE);
      case "pods" -> {
        if (counted(object, now)) {
          usage.putAll(podCompute(object.path("spec")));
        }
      }
      default -> {}
    }
    return usage;
  }

  /**
   * Kubernetes' QuotaV1Pod: a pod counts until it is Succeeded or Failed, or its deletion grace
   * period has passed.
   */
  static boolean counted(JsonNode pod, Instant now) {
    String phase = pod.path("status").path("phase").asText("");
    if (phase.equals("Succeeded") || phase.equals("Failed")) {
      return false;
    }
    String deletion = pod.path("metadata").path("deletionTimestamp").asText("");
    if (!deletion.isEmpty() && pod.path("metadata").has("deletionGracePeriodSeconds")) {
      Instant end =
          Instant.parse(deletion)
              .plusSeconds(pod.path("metadata").path("deletionGracePeriodSeconds").asLong());
      return !now.isAfter(end);
    }
    return true;
  }

  /** Kubernetes' podComputeUsageHelper over the pod's total requests and limits. */
  static TreeMap<String, BigDecimal> podCompute(JsonNode spec) {
    TreeMap<String, BigDecimal> usage = new TreeMap<>();
    usage.put("pods", BigDecimal.ONE);
    Map<String, BigDecimal> requests = LimitRanger.podTotal(spec, "requests");
    Map<String, BigDecimal> limits = LimitRanger.podTotal(spec, "limits");
    requests.forEach(
        (resource, value) -> {
          if (resource.equals("cpu")
              || resource.equals("memory")
              || resource.equals("ephemeral-storage")) {
            usage.put(resource, value);
          }
          usage.put("requests." + resource, value);
        });
    limits.forEach((resource, value) -> usage.put("limits." + resource, value));
    return usage;
  }

  /** Kubernetes' enforcePodContainerConstraints: what one container leaves undeclared. */
  static Set<String> undeclared(JsonNode container, Set<String> required) {
    Set<String> declared =
        podCompute(
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                    .objectNode()
                    .set(
                        "containers",
                        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                            .arrayNode()
                            .add(container)))
            .keySet();
    java.util.TreeSet<String> missing = new java.util.TreeSet<>(required);
    missing.removeAll(declared);
    return missing;
  }
}
