package io.streamplane.kinds.quota;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What an object of a kind counts against a ResourceQuota beyond its object count ({@code
 * count/<resource>[.<group>]}, which every kind has), as Kubernetes' quota evaluators ({@code
 * pkg/quota/v1/evaluator/core}) count it. A kind's {@code KindStrategy#quota()} gives its
 * evaluator; most kinds count nothing more.
 *
 * <p>Contract: stateless; pure functions of the object and the time.
 */
public interface QuotaEvaluator {

  /** The evaluator of a kind that counts its objects only. */
  QuotaEvaluator COUNT_ONLY = new QuotaEvaluator() {};

  /** Whether a quota resource other than the object count is one this kind's objects use. */
  default boolean uses(String resource) {
    return false;
  }

  /** What one object uses of the resources {@link #uses} names, by quota resource name. */
  default Map<String, BigDecimal> usage(JsonNode object, Instant now) {
    return Map.of();
  }

  /**
   * The evaluator's {@code Constraints}: what the object fails to declare of {@code required} (the
   * resources a quota limits), each as the part of kube-apiserver's "must specify ..." message
   * ({@code cpu for: app,sidecar}); empty when nothing is missing.
   */
  default List<String> unmet(JsonNode object, Set<String> required) {
    return List.of();
  }

  /**
   * A kind that also counts as the quota resource of its own name ({@code configmaps}, {@code
   * secrets}, {@code resourcequotas}): one per object.
   */
  static QuotaEvaluator ownCount(String resource) {
    return new QuotaEvaluator() {
      @Override
      public boolean uses(String r) {
        return r.equals(resource);
      }

      @Override
      public Map<String, BigDecimal> usage(JsonNode object, Instant now) {
        return Map.of(resource, BigDecimal.ONE);
      }
    };
  }
}
