package io.streamplane.kinds.autoscaling;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;

/**
 * autoscaling/v1 HorizontalPodAutoscaler served from the stored autoscaling/v2 objects, as
 * kube-apiserver converts them through the internal version ({@code
 * pkg/apis/autoscaling/v1/conversion.go}): v1's {@code targetCPUUtilizationPercentage} is v2's
 * Resource metric of {@code cpu} with a Utilization target, v1's {@code
 * currentCPUUtilizationPercentage} that metric's current average utilization. What v1 cannot hold
 * rides in annotations, both ways: the conditions in {@code
 * autoscaling.alpha.kubernetes.io/conditions} and the behavior in {@code
 * autoscaling.alpha.kubernetes.io/behavior} (JSON, v2's shape), so that a v1 read-modify-write
 * keeps them.
 *
 * <p>Limits: v2 metrics other than the CPU utilization (memory, Pods, Object, External), which
 * Kubernetes carries in {@code autoscaling.alpha.kubernetes.io/metrics} and {@code
 * .../current-metrics} in the v2beta1 shape, are not carried: a v1 write keeps only the CPU target.
 */
public final class HorizontalPodAutoscalerV1Conversion implements ResourceType.Conversion {

  static final String CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions";
  static final String BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public ObjectNode toStorage(ObjectNode served) {
    ObjectNode v2 = served.deepCopy();
    v2.put("apiVersion", "autoscaling/v2");
    ObjectNode annotations = annotations(v2);
    if (v2.path("spec").isObject()) {
      ObjectNode spec = (ObjectNode) v2.get("spec");
      JsonNode cpu = spec.remove("targetCPUUtilizationPercentage");
      if (cpu != null && !cpu.isNull()) {
        spec.putArray("metrics")
            .addObject()
            .put("type", "Resource")
            .putObject("resource")
            .put("name", "cpu")
            .putObject("target")
            .put("type", "Utilization")
            .set("averageUtilization", cpu);
      }
      JsonNode behavior = annotations == null ? null : annotations.remove(BEHAVIOR);
      if (behavior != null) {
        parse(behavior).ifPresent(b -> spec.set("behavior", b));
      }
    }
    JsonNode conditions = annotations == null ? null : annotations.remove(CONDITIONS);
    if (v2.path("status").isObject()) {
      ObjectNode status = (ObjectNode) v2.get("status");
      JsonNode current = status.remove("currentCPUUtilizationPercentage");
      if (current != null && !current.isNull()) {
        ObjectNode metric = status.putArray("currentMetrics").addObject();
        metric.put("type", "Resource");
        ObjectNode resource = metric.putObject("resource");
        resource.put("name", "cpu");
        resource.putObject("current").set("averageUtilization", current);
      }
      if (conditions != null) {
        parse(conditions).ifPresent(c -> status.set("conditions", c));
      }
    }
    if (annotations != null && annotations.isEmpty()) {
      ((ObjectNode) v2.get("metadata")).remove("annotations");
    }
    return v2;
  }

  @Override
  public ObjectNode fromStorage(ObjectNode stored) {
    ObjectNode v1 = stored.deepCopy();
    v1.put("apiVersion", "autoscaling/v1");
    if (v1.path("spec").isObject()) {
      ObjectNode spec = (ObjectNode) v1.get("spec");
      JsonNode metrics = spec.remove("metrics");
      for (JsonNode m : metrics == null ? JSON.createArrayNode() : metrics) {
        JsonNode target = m.path("resource").path("target");
        if (m.path("type").asText().equals("Resource")
            && m.path("resource").path("name").asText().equals("cpu")
            && target.hasNonNull("averageUtilization")) {
          spec.set("targetCPUUtilizationPercentage", target.get("averageUtilization"));
        }
      }
      JsonNode behavior = spec.remove("behavior");
      if (behavior != null && !behavior.isNull()) {
        annotate(v1, BEHAVIOR, behavior);
      }
    }
    if (v1.path("status").isObject()) {
      ObjectNode status = (ObjectNode) v1.get("status");
      JsonNode metrics = status.remove("currentMetrics");
      for (JsonNode m : metrics == null ? JSON.createArrayNode() : metrics) {
        JsonNode current = m.path("resource").path("current");
        if (m.path("type").asText().equals("Resource")
            && m.path("resource").path("name").asText().equals("cpu")
            && current.hasNonNull("averageUtilization")) {
          status.set("currentCPUUtilizationPercentage", current.get("averageUtilization"));
        }
      }
      JsonNode conditions = status.remove("conditions");
      if (conditions != null && conditions.isArray() && !conditions.isEmpty()) {
        annotate(v1, CONDITIONS, conditions);
      }
      if (!status.has("desiredReplicas")) {
        status.put("desiredReplicas", 0);
      }
    }
    return v1;
  }

  private static ObjectNode annotations(ObjectNode object) {
    JsonNode a = object.path("metadata").path("annotations");
    return a.isObject() ? (ObjectNode) a : null;
  }

  private static void annotate(ObjectNode object, String key, JsonNode value) {
    ObjectNode metadata = object.with("metadata");
    try {
      metadata.with("annotations").put(key, JSON.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static java.util.Optional<JsonNode> parse(JsonNode annotation) {
    try {
      JsonNode value = JSON.readTree(annotation.asText());
      return value instanceof ArrayNode || value instanceof ObjectNode
          ? java.util.Optional.of(value)
          : java.util.Optional.empty();
    } catch (JsonProcessingException e) {
      return java.util.Optional.empty();
    }
  }
}
