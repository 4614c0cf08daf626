package io.streamplane.kinds.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.quota.QuotaEvaluator;
import io.streamplane.schema.objects.Quantities;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kubernetes' pod quota evaluator: a pod counts as {@code pods} until it is terminal, with its
 * compute resources ({@code requests.cpu}, {@code cpu}, {@code limits.memory}, ...: containers
 * summed, init containers at their largest), and a quota on cpu or memory requires every container
 * to declare them ({@code enforcePodContainerConstraints}).
 */
public final class PodQuota implements QuotaEvaluator {

  static final PodQuota EVALUATOR = new PodQuota();

  private static final Set<String> COMPUTE =
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

  /** The resources whose quota the pod evaluator requires every container to declare. */
  private static final Set<String> DECLARED =
      Set.of("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory");

  private PodQuota() {}

  @Override
  public boolean uses(String resource) {
    return resource.equals("pods")
        || COMPUTE.contains(resource)
        || resource.startsWith("requests.")
        || resource.startsWith("limits.");
  }

  @Override
  public Map<String, BigDecimal> usage(JsonNode pod, Instant now) {
    return counted(pod, now) ? compute(pod.path("spec")) : Map.of();
  }

  @Override
  public List<String> unmet(JsonNode pod, Set<String> required) {
    TreeSet<String> checked = new TreeSet<>(required);
    checked.retainAll(DECLARED);
    TreeMap<String, TreeSet<String>> missing = new TreeMap<>();
    if (!checked.isEmpty()) {
      JsonNode spec = pod.path("spec");
      for (String list : new String[] {"containers", "initContainers"}) {
        for (JsonNode container : spec.path(list)) {
          TreeSet<String> undeclared = new TreeSet<>(checked);
          undeclared.removeAll(containerCompute(container).keySet());
          for (String resource : undeclared) {
            missing
                .computeIfAbsent(resource, r -> new TreeSet<>())
                .add(container.path("name").asText(""));
          }
        }
      }
    }
    List<String> parts = new ArrayList<>();
    missing.forEach((resource, names) -> parts.add(resource + " for: " + String.join(",", names)));
    return parts;
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
  static TreeMap<String, BigDecimal> compute(JsonNode spec) {
    TreeMap<String, BigDecimal> usage = new TreeMap<>();
    usage.put("pods", BigDecimal.ONE);
    total(spec, "requests")
        .forEach(
            (resource, value) -> {
              if (resource.equals("cpu")
                  || resource.equals("memory")
                  || resource.equals("ephemeral-storage")) {
                usage.put(resource, value);
              }
              usage.put("requests." + resource, value);
            });
    total(spec, "limits").forEach((resource, value) -> usage.put("limits." + resource, value));
    return usage;
  }

  private static TreeMap<String, BigDecimal> containerCompute(JsonNode container) {
    return compute(
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
            .objectNode()
            .set(
                "containers",
                com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                    .arrayNode()
                    .add(container)));
  }

  /**
   * Kubernetes' PodRequests/PodLimits of {@code field} ({@code requests} or {@code limits}): the
   * containers summed, then each resource at least the largest single init container's; the
   * LimitRanger and the quota evaluator both total a pod so.
   */
  public static Map<String, BigDecimal> total(JsonNode spec, String field) {
    TreeMap<String, BigDecimal> total = new TreeMap<>();
    for (JsonNode container : spec.path("containers")) {
      resourceList(container.path("resources").path(field))
          .forEach((k, v) -> total.merge(k, v, BigDecimal::add));
    }
    for (JsonNode container : spec.path("initContainers")) {
      resourceList(container.path("resources").path(field))
          .forEach((k, v) -> total.merge(k, v, BigDecimal::max));
    }
    return total;
  }

  /** A ResourceList as exact numbers, by name; entries that are not quantities are left out. */
  private static TreeMap<String, BigDecimal> resourceList(JsonNode list) {
    TreeMap<String, BigDecimal> values = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : list.properties()) {
      try {
        values.put(e.getKey(), Quantities.parse(e.getValue().asText("")));
      } catch (IllegalArgumentException notAQuantity) {
        // Left out, as the LimitRanger and the quota evaluator skip what they cannot parse.
      }
    }
    return values;
  }
}
