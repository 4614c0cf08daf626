package io.streamplane.gateway.eviction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The {@code DisruptionAllowed} condition as the eviction REST sets it when it spends a budget's
 * last disruption ({@code pdbhelper.UpdateDisruptionAllowedCondition}): False with reason {@code
 * InsufficientPods}, its transition time moved only when its status changes.
 */
final class DisruptionCondition {

  private DisruptionCondition() {}

  static void set(ObjectNode status, boolean allowed, Instant now) {
    String value = allowed ? "True" : "False";
    ArrayNode conditions =
        status.path("conditions").isArray()
            ? (ArrayNode) status.get("conditions")
            : status.putArray("conditions");
    ObjectNode condition = null;
    for (JsonNode c : conditions) {
      if ("DisruptionAllowed".equals(c.path("type").asText())) {
        condition = (ObjectNode) c;
      }
    }
    if (condition == null) {
      condition = conditions.addObject().put("type", "DisruptionAllowed");
    }
    if (!value.equals(condition.path("status").asText())) {
      condition.put("lastTransitionTime", now.truncatedTo(ChronoUnit.SECONDS).toString());
    }
    condition.put("status", value);
    condition.put("reason", allowed ? "SufficientPods" : "InsufficientPods");
    condition.put("message", "");
    if (status.has("observedGeneration")) {
      condition.put("observedGeneration", status.get("observedGeneration").asLong());
    }
  }
}
