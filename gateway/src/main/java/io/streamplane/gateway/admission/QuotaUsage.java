package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.ResourceType;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.TreeMap;

/**
 * What an object counts against a ResourceQuota: one of {@code count/<resource>[.<group>]}, as
 * Kubernetes' generic object-count evaluator counts every kind, and what its kind's {@link
 * io.streamplane.kinds.quota.QuotaEvaluator} adds (a pod's compute resources, a config map as
 * {@code configmaps}). A pure function of the object and the time.
 */
public final class QuotaUsage {

  private QuotaUsage() {}

  /** A quantity of a quota resource as Kubernetes prints it in a quota's status. */
  public static String format(String resource, BigDecimal value) {
    return ResourceLists.format(resource, value);
  }

  /** The object count resource of a type: {@code count/pods}, {@code count/deployments.apps}. */
  public static String countName(ResourceType type) {
    return "count/" + type.plural() + (type.group().isEmpty() ? "" : "." + type.group());
  }

  /** Whether a quota resource is one this type's objects use. */
  public static boolean matches(ResourceType type, String resource) {
    return resource.equals(countName(type)) || type.strategy().quota().uses(resource);
  }

  /** What one object of the type uses, by quota resource name. */
  public static TreeMap<String, BigDecimal> of(ResourceType type, JsonNode object, Instant now) {
    TreeMap<String, BigDecimal> usage = new TreeMap<>(type.strategy().quota().usage(object, now));
    usage.put(countName(type), BigDecimal.ONE);
    return usage;
  }
}
