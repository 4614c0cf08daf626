package io.streamplane.gateway.podautoscaler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.podautoscaler.ReplicaCalculator.CalculationException;
import io.streamplane.gateway.podautoscaler.ReplicaCalculator.PodInfo;
import io.streamplane.gateway.podautoscaler.ReplicaCalculator.PodMetric;
import io.streamplane.gateway.podautoscaler.ScalingBehavior.Recommendation;
import io.streamplane.gateway.podautoscaler.ScalingBehavior.ScaleEvent;
import io.streamplane.schema.objects.Quantities;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * kube-controller-manager's {@code reconcileAutoscaler} for one HorizontalPodAutoscaler, as a pure
 * function: from the autoscaler (autoscaling/v2 JSON), its target's Scale (or why it could not be
 * read), the pods the Scale's selector selects, their resource metrics, the autoscaler's recent
 * recommendations and scale events and the time, it decides the replicas to set (if any) and the
 * status to write, with kube-controller-manager's conditions, reasons and messages.
 *
 * <p>Limits: resource metrics (Resource and ContainerResource) with a Utilization target only;
 * other metric types and targets leave the autoscaler ScalingActive False. No Events are recorded.
 */
public final class HorizontalReconciler {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** What the autoscaler remembers between passes, in memory as kube-controller-manager does. */
  public record Memory(List<Recommendation> recommendations, List<ScaleEvent> events) {
    public static final Memory EMPTY = new Memory(List.of(), List.of());

    public Memory {
      recommendations = List.copyOf(recommendations);
      events = List.copyOf(events);
    }
  }

  /**
   * The replicas to set on the target (null: none) and why (the {@code SuccessfulRescale} Event's
   * reason), the status to have, what to remember.
   */
  public record Outcome(Integer scaleTo, String rescaleReason, ObjectNode status, Memory memory) {}

  /** The target's Scale, or the error reading it. */
  public record Target(JsonNode scale, String error) {}

  private HorizontalReconciler() {}

  public static Outcome reconcile(
      JsonNode hpa,
      Target target,
      List<JsonNode> pods,
      Map<String, ContainerMetrics> metrics,
      Memory memory,
      Instant now) {
    JsonNode spec = hpa.path("spec");
    ObjectNode status =
        hpa.path("status").isObject() ? hpa.path("status").deepCopy() : JSON.objectNode();
    status.put("observedGeneration", hpa.path("metadata").path("generation").asLong(0));
    List<ObjectNode> conditions = new ArrayList<>();
    status.path("conditions").forEach(c -> conditions.add(((ObjectNode) c).deepCopy()));
    if (target.error() != null) {
      condition(
          conditions,
          "AbleToScale",
          "False",
          "FailedGetScale",
          "the HPA controller was unable to get the target's current scale: " + target.error(),
          now);
      return new Outcome(null, null, finish(status, conditions), memory);
    }
    JsonNode scale = target.scale();
    // The replicas asked for, not those observed: a target whose controller has not caught up
    // (a custom resource's status written late or never) is judged by what it was last set to.
    int currentReplicas = scale.path("spec").path("replicas").asInt(0);
    int min = spec.path("minReplicas").asInt(1);
    int max = spec.path("maxReplicas").asInt(1);
    condition(
        conditions,
        "AbleToScale",
        "True",
        "SucceededGetScale",
        "the HPA controller was able to get the target's current scale",
        now);
    ArrayNode metricStatuses = JSON.arrayNode();
    int desired = 0;
    boolean rescale;
    String rescaleReason = null;
    Memory remembered = memory;
    String invalidSelector = invalidSelector(scale);
    if (currentReplicas == 0 && min != 0) {
      condition(
          conditions,
          "ScalingActive",
          "False",
          "ScalingDisabled",
          "scaling is disabled since the replica count of the target is zero",
          now);
      rescale = false;
    } else if (currentReplicas > max) {
      desired = max;
      rescale = true;
      rescaleReason = "Current number of replicas above Spec.MaxReplicas";
    } else if (currentReplicas < min) {
      desired = min;
      rescale = true;
      rescaleReason = "Current number of replicas below Spec.MinReplicas";
    } else if (invalidSelector != null) {
      // The metrics are those of the pods the Scale's selector selects: without one, nothing.
      condition(conditions, "ScalingActive", "False", "InvalidSelector", invalidSelector, now);
      status.put("currentReplicas", currentReplicas);
      return new Outcome(null, null, finish(status, conditions), memory);
    } else {
      int metricDesired = -1;
      String failure = null;
      String failureReason = null;
      String metricName = "";
      for (JsonNode metric : spec.path("metrics")) {
        try {
          Computed computed = compute(metric, currentReplicas, pods, metrics, now);
          metricStatuses.add(computed.status());
          if (computed.replicas() > metricDesired) {
            metricDesired = computed.replicas();
            metricName = computed.name();
          }
        } catch (CalculationException e) {
          failure = e.getMessage();
          failureReason =
              e instanceof Unsupported ? "InvalidMetricSourceType" : "FailedGetResourceMetric";
        }
      }
      if (metricDesired == -1) {
        condition(
            conditions,
            "ScalingActive",
            "False",
            failureReason == null ? "InvalidMetricSourceType" : failureReason,
            "the HPA was unable to compute the replica count: "
                + (failure == null ? "no metrics" : failure),
            now);
        status.put("currentReplicas", currentReplicas);
        status.set("currentMetrics", metricStatuses.isEmpty() ? null : metricStatuses);
        return new Outcome(null, null, finish(status, conditions), memory);
      }
      condition(
          conditions,
          "ScalingActive",
          "True",
          "ValidMetricFound",
          "the HPA was able to successfully calculate a replica count from " + metricName,
          now);
      ScalingBehavior.Decision decision =
          ScalingBehavior.normalize(
              spec.hasNonNull("behavior") ? spec.get("behavior") : null,
              min,
              max,
              currentReplicas,
              metricDesired,
              memory.recommendations(),
              memory.events(),
              now);
      condition(
          conditions, "AbleToScale", "True", decision.ableReason(), decision.ableMessage(), now);
      condition(
          conditions,
          "ScalingLimited",
          decision.limited() ? "True" : "False",
          decision.limitReason(),
          decision.limitMessage(),
          now);
      desired = decision.replicas();
      rescale = desired != currentReplicas;
      rescaleReason =
          desired > currentReplicas ? metricName + " above target" : "All metrics below target";
      remembered = new Memory(decision.recommendations(), memory.events());
    }
    Integer scaleTo = null;
    if (rescale) {
      scaleTo = desired;
      condition(
          conditions,
          "AbleToScale",
          "True",
          "SucceededRescale",
          "the HPA controller was able to update the target scale to " + desired,
          now);
      List<ScaleEvent> events = new ArrayList<>();
      int longest = 1800;
      for (ScaleEvent e : remembered.events()) {
        if (e.at().isAfter(now.minusSeconds(longest))) {
          events.add(e);
        }
      }
      events.add(new ScaleEvent(desired - currentReplicas, now));
      remembered = new Memory(remembered.recommendations(), events);
      status.put("lastScaleTime", now.truncatedTo(ChronoUnit.SECONDS).toString());
    } else {
      desired = currentReplicas;
    }
    status.put("currentReplicas", currentReplicas);
    status.put("desiredReplicas", desired);
    status.set("currentMetrics", metricStatuses.isEmpty() ? null : metricStatuses);
    return new Outcome(
        scaleTo, rescale ? rescaleReason : null, finish(status, conditions), remembered);
  }

  /**
   * Why the pods of a target cannot be selected, as the {@code InvalidSelector} condition says it:
   * a Scale without {@code status.selector} (a custom resource without {@code labelSelectorPath},
   * or whose field there is not set), or one that does not parse; null when it selects.
   */
  static String invalidSelector(JsonNode scale) {
    String selector = scale.path("status").path("selector").asText("");
    if (selector.isEmpty()) {
      return "the HPA target's scale is missing a selector";
    }
    try {
      Selectors.parseLabels(selector);
      return null;
    } catch (ApiException e) {
      return "couldn't convert selector into a corresponding internal selector object: "
          + e.getMessage();
    }
  }

  private static ObjectNode finish(ObjectNode status, List<ObjectNode> conditions) {
    if (status.path("currentMetrics").isNull()) {
      status.remove("currentMetrics");
    }
    if (!status.has("desiredReplicas")) {
      status.put("desiredReplicas", 0);
    }
    ArrayNode array = JSON.arrayNode();
    conditions.forEach(array::add);
    if (!conditions.isEmpty()) {
      status.set("conditions", array);
    }
    return status;
  }

  /** {@code setCondition}: a new status moves lastTransitionTime; the same keeps it. */
  private static void condition(
      List<ObjectNode> conditions,
      String type,
      String status,
      String reason,
      String message,
      Instant now) {
    for (ObjectNode c : conditions) {
      if (c.path("type").asText().equals(type)) {
        if (!c.path("status").asText().equals(status)) {
          c.put("lastTransitionTime", now.truncatedTo(ChronoUnit.SECONDS).toString());
        }
        c.put("status", status);
        c.put("reason", reason);
        c.put("message", message);
        return;
      }
    }
    ObjectNode c = JSON.objectNode();
    c.put("type", type);
    c.put("status", status);
    c.put("lastTransitionTime", now.truncatedTo(ChronoUnit.SECONDS).toString());
    c.put("reason", reason);
    c.put("message", message);
    conditions.add(c);
  }

  /** A pod's figures per container, in milli-units (millicores, millibytes). */
  public record ContainerMetrics(
      Map<String, Long> cpuMilli,
      Map<String, Long> memoryMilli,
      Instant timestamp,
      java.time.Duration window) {}

  private record Computed(int replicas, String name, ObjectNode status) {}

  private static final class Unsupported extends CalculationException {
    Unsupported(String message) {
      super(message);
    }
  }

  /** {@code computeStatusForResourceMetric} and its container variant. */
  private static Computed compute(
      JsonNode metric,
      int currentReplicas,
      List<JsonNode> pods,
      Map<String, ContainerMetrics> metrics,
      Instant now)
      throws CalculationException {
    String type = metric.path("type").asText();
    boolean container = type.equals("ContainerResource");
    if (!type.equals("Resource") && !container) {
      throw new Unsupported("the autoscaler reads resource metrics only, not " + type + " metrics");
    }
    JsonNode source = metric.path(container ? "containerResource" : "resource");
    String resource = source.path("name").asText();
    String containerName = container ? source.path("container").asText() : null;
    JsonNode target = source.path("target");
    if (!target.hasNonNull("averageUtilization")) {
      throw new Unsupported("the autoscaler reads resource metrics with a Utilization target only");
    }
    if (!resource.equals("cpu") && !resource.equals("memory")) {
      throw new CalculationException(
          "failed to get "
              + resource
              + " utilization: the resource metrics API has no "
              + resource);
    }
    java.util.Map<String, PodMetric> values = new java.util.HashMap<>();
    metrics.forEach(
        (pod, m) -> {
          Map<String, Long> byContainer = resource.equals("cpu") ? m.cpuMilli() : m.memoryMilli();
          long sum = 0;
          boolean found = false;
          for (Map.Entry<String, Long> e : byContainer.entrySet()) {
            if (containerName == null || containerName.equals(e.getKey())) {
              sum += e.getValue();
              found = true;
            }
          }
          if (found) {
            values.put(pod, new PodMetric(sum, m.timestamp(), m.window()));
          }
        });
    ReplicaCalculator.Result result;
    try {
      result =
          ReplicaCalculator.resourceReplicas(
              currentReplicas,
              target.get("averageUtilization").asInt(),
              resource,
              podInfos(pods, resource, containerName),
              values,
              now);
    } catch (CalculationException e) {
      throw new CalculationException(
          "failed to get " + resource + " utilization: " + e.getMessage());
    }
    ObjectNode status = JSON.objectNode();
    status.put("type", type);
    ObjectNode s = status.putObject(container ? "containerResource" : "resource");
    s.put("name", resource);
    if (container) {
      s.put("container", containerName);
    }
    s.putObject("current")
        .put("averageUtilization", result.utilization())
        .put("averageValue", milliQuantity(result.averageValue()));
    String name =
        container
            ? resource + " container resource utilization (percentage of request)"
            : resource + " resource utilization (percentage of request)";
    return new Computed(result.replicas(), name, status);
  }

  /** {@code resource.NewMilliQuantity(v, DecimalSI)} in its canonical form. */
  static String milliQuantity(long milli) {
    if (milli == 0) {
      return "0";
    }
    String[] suffixes = {"m", "", "k", "M", "G", "T", "P", "E"};
    long value = milli;
    int i = 0;
    while (i < suffixes.length - 1 && value % 1000 == 0) {
      value /= 1000;
      i++;
    }
    return value + suffixes[i];
  }

  /**
   * What the calculation needs of each pod: phase, deletion, start, readiness and the sum of its
   * containers' requests of {@code resource} (of {@code container} alone when named), in
   * milli-units; {@code calculatePodRequests}' error for a container without one.
   */
  static List<PodInfo> podInfos(List<JsonNode> pods, String resource, String container)
      throws CalculationException {
    List<PodInfo> infos = new ArrayList<>();
    for (JsonNode pod : pods) {
      String name = pod.path("metadata").path("name").asText();
      long request = 0;
      for (JsonNode c : pod.path("spec").path("containers")) {
        if (container != null && !container.equals(c.path("name").asText())) {
          continue;
        }
        JsonNode value = c.path("resources").path("requests").path(resource);
        if (value.isMissingNode() || value.isNull()) {
          throw new CalculationException(
              "missing request for "
                  + resource
                  + " in container "
                  + c.path("name").asText()
                  + " of Pod "
                  + name);
        }
        request += Quantities.milliValue(value.asText());
      }
      Boolean ready = null;
      Instant readySince = null;
      for (JsonNode condition : pod.path("status").path("conditions")) {
        if (condition.path("type").asText().equals("Ready")) {
          ready = condition.path("status").asText().equals("True");
          readySince = time(condition.path("lastTransitionTime"));
        }
      }
      infos.add(
          new PodInfo(
              name,
              pod.path("status").path("phase").asText(""),
              pod.path("metadata").hasNonNull("deletionTimestamp"),
              time(pod.path("status").path("startTime")),
              ready,
              readySince,
              request));
    }
    return infos;
  }

  private static Instant time(JsonNode value) {
    return value.isTextual() ? Instant.parse(value.asText()) : null;
  }
}
