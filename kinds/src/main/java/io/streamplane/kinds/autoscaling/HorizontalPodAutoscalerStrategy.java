package io.streamplane.kinds.autoscaling;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.CrossVersionObjectReference;
import io.streamplane.api.HPAScalingPolicy;
import io.streamplane.api.HPAScalingRules;
import io.streamplane.api.HorizontalPodAutoscaler;
import io.streamplane.api.HorizontalPodAutoscalerSpec;
import io.streamplane.api.MetricSpec;
import io.streamplane.api.MetricTarget;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.Quantities;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * autoscaling/v2 HorizontalPodAutoscaler, the storage version (autoscaling/v1 is served from it
 * through {@link HorizontalPodAutoscalerV1Conversion}): kube-apiserver's defaults ({@code
 * minReplicas} 1, an 80% average CPU utilization when no metric is given, and a behavior's missing
 * rules and fields filled as {@code GenerateHPAScaleUpRules} and {@code GenerateHPAScaleDownRules}
 * fill them: scale up by 4 pods or 100% per 15 s with no stabilization, scale down by 100% per 15
 * s, {@code selectPolicy} Max; the scale-down window left unset means the controller's 300 s), a
 * created autoscaler's empty status, {@code ValidateHorizontalPodAutoscalerSpec}'s rules (the
 * target reference, replica bounds, each metric's source and target, each behavior's rules), a
 * generation raised by every spec change, and kube-apiserver's columns (Name, Reference, Targets,
 * MinPods, MaxPods, Replicas, Age), the targets as {@code cpu: 25%/50%}.
 *
 * <p>Limits: the metrics of types Object, Pods and External are validated for their source and
 * target only; a metric's selector is not validated.
 */
public final class HorizontalPodAutoscalerStrategy implements KindStrategy {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final List<String> METRIC_TYPES =
      List.of("ContainerResource", "External", "Object", "Pods", "Resource");
  private static final List<String> TARGET_TYPES = List.of("AverageValue", "Utilization", "Value");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    if (!object.path("spec").isObject()) {
      return;
    }
    ObjectNode spec = (ObjectNode) object.get("spec");
    if (!spec.hasNonNull("minReplicas")) {
      spec.put("minReplicas", 1);
    }
    if (!spec.path("metrics").isArray() || spec.path("metrics").isEmpty()) {
      ArrayNode metrics = spec.putArray("metrics");
      metrics
          .addObject()
          .put("type", "Resource")
          .putObject("resource")
          .put("name", "cpu")
          .putObject("target")
          .put("type", "Utilization")
          .put("averageUtilization", 80);
    }
    if (spec.path("behavior").isObject()) {
      ObjectNode behavior = (ObjectNode) spec.get("behavior");
      rules(behavior, "scaleUp", 0, scaleUpPolicies());
      rules(behavior, "scaleDown", null, scaleDownPolicies());
    }
  }

  private static ArrayNode scaleUpPolicies() {
    ArrayNode policies = JSON.arrayNode();
    policies.addObject().put("type", "Pods").put("value", 4).put("periodSeconds", 15);
    policies.addObject().put("type", "Percent").put("value", 100).put("periodSeconds", 15);
    return policies;
  }

  private static ArrayNode scaleDownPolicies() {
    ArrayNode policies = JSON.arrayNode();
    policies.addObject().put("type", "Percent").put("value", 100).put("periodSeconds", 15);
    return policies;
  }

  /** {@code copyHPAScalingRules}: each unset field of the rules from the defaults. */
  private static void rules(ObjectNode behavior, String field, Integer window, ArrayNode policies) {
    ObjectNode rules =
        behavior.path(field).isObject()
            ? (ObjectNode) behavior.get(field)
            : behavior.putObject(field);
    if (!rules.hasNonNull("stabilizationWindowSeconds") && window != null) {
      rules.put("stabilizationWindowSeconds", window);
    }
    if (!rules.hasNonNull("selectPolicy")) {
      rules.put("selectPolicy", "Max");
    }
    if (!rules.path("policies").isArray()) {
      rules.set("policies", policies);
    }
  }

  @Override
  public void prepareForCreate(ObjectNode object) {
    object.putObject("status").put("desiredReplicas", 0);
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    HorizontalPodAutoscaler hpa = (HorizontalPodAutoscaler) object;
    List<StatusCause> causes = new ArrayList<>();
    HorizontalPodAutoscalerSpec spec = hpa.getSpec();
    if (spec == null) {
      causes.add(required("spec.maxReplicas"));
      return causes;
    }
    reference(spec.getScaleTargetRef(), "spec.scaleTargetRef", causes);
    Integer min = spec.getMinReplicas();
    int max = spec.getMaxReplicas() == null ? 0 : spec.getMaxReplicas();
    if (min != null && min < 1) {
      causes.add(invalid("spec.minReplicas", min.toString(), "must be greater than or equal to 1"));
    }
    if (max < 1) {
      causes.add(invalid("spec.maxReplicas", Integer.toString(max), "must be greater than 0"));
    }
    if (min != null && max < min) {
      causes.add(
          invalid(
              "spec.maxReplicas",
              Integer.toString(max),
              "must be greater than or equal to `minReplicas`"));
    }
    List<MetricSpec> metrics = spec.getMetrics();
    for (int i = 0; metrics != null && i < metrics.size(); i++) {
      metric(metrics.get(i), "spec.metrics[" + i + "]", causes);
    }
    if (spec.getBehavior() != null) {
      scalingRules(spec.getBehavior().getScaleUp(), "spec.behavior.scaleUp", causes);
      scalingRules(spec.getBehavior().getScaleDown(), "spec.behavior.scaleDown", causes);
    }
    return causes;
  }

  /** {@code ValidateCrossVersionObjectReference}. */
  private static void reference(
      CrossVersionObjectReference ref, String field, List<StatusCause> causes) {
    String kind = ref == null ? null : ref.getKind();
    String name = ref == null ? null : ref.getName();
    if (kind == null || kind.isEmpty()) {
      causes.add(required(field + ".kind"));
    } else {
      causes.addAll(Names.pathSegmentName(field + ".kind", kind));
    }
    if (name == null || name.isEmpty()) {
      causes.add(required(field + ".name"));
    } else {
      causes.addAll(Names.pathSegmentName(field + ".name", name));
    }
  }

  /** {@code validateMetricSpec}: a known type and exactly its source, with a valid target. */
  private static void metric(MetricSpec m, String field, List<StatusCause> causes) {
    String type = m.getType();
    if (type == null || type.isEmpty()) {
      causes.add(required(field + ".type", "must specify a metric source type"));
      return;
    }
    if (!METRIC_TYPES.contains(type)) {
      causes.add(notSupported(field + ".type", type, METRIC_TYPES));
      return;
    }
    List<String> populated = new ArrayList<>();
    if (m.getResource() != null) {
      populated.add("Resource");
    }
    if (m.getContainerResource() != null) {
      populated.add("ContainerResource");
    }
    if (m.getPods() != null) {
      populated.add("Pods");
    }
    if (m.getObject() != null) {
      populated.add("Object");
    }
    if (m.getExternal() != null) {
      populated.add("External");
    }
    if (!populated.contains(type)) {
      causes.add(
          required(
              field + "." + Character.toLowerCase(type.charAt(0)) + type.substring(1),
              "must populate information for the given metric source"));
      return;
    }
    if (populated.size() > 1) {
      causes.add(invalid(field + ".type", type, "must populate the given metric source only"));
    }
    switch (type) {
      case "Resource" -> {
        String at = field + ".resource";
        if (m.getResource().getName() == null || m.getResource().getName().isEmpty()) {
          causes.add(required(at + ".name", "must specify a resource name"));
        }
        target(m.getResource().getTarget(), at + ".target", causes);
      }
      case "ContainerResource" -> {
        String at = field + ".containerResource";
        if (m.getContainerResource().getName() == null
            || m.getContainerResource().getName().isEmpty()) {
          causes.add(required(at + ".name", "must specify a resource name"));
        }
        if (m.getContainerResource().getContainer() == null
            || m.getContainerResource().getContainer().isEmpty()) {
          causes.add(required(at + ".container", "must specify a container"));
        }
        target(m.getContainerResource().getTarget(), at + ".target", causes);
      }
      case "Pods" -> target(m.getPods().getTarget(), field + ".pods.target", causes);
      case "Object" -> target(m.getObject().getTarget(), field + ".object.target", causes);
      default -> target(m.getExternal().getTarget(), field + ".external.target", causes);
    }
  }

  /** {@code validateMetricTarget}. */
  private static void target(MetricTarget t, String field, List<StatusCause> causes) {
    if (t == null || t.getType() == null || t.getType().isEmpty()) {
      causes.add(required(field + ".type", "must specify a metric target type"));
      return;
    }
    if (!TARGET_TYPES.contains(t.getType())) {
      causes.add(notSupported(field + ".type", t.getType(), TARGET_TYPES));
    }
    if (t.getAverageUtilization() != null && t.getAverageUtilization() < 1) {
      causes.add(
          invalid(
              field + ".averageUtilization",
              t.getAverageUtilization().toString(),
              "must be greater than 0"));
    }
    quantity(t.getAverageValue(), field + ".averageValue", causes);
    quantity(t.getValue(), field + ".value", causes);
    boolean set =
        switch (t.getType()) {
          case "Utilization" -> t.getAverageUtilization() != null;
          case "AverageValue" -> t.getAverageValue() != null;
          case "Value" -> t.getValue() != null;
          default -> true;
        };
    if (!set) {
      causes.add(
          required(field, "must set either a target value or averageValue or averageUtilization"));
    }
  }

  private static void quantity(String value, String field, List<StatusCause> causes) {
    if (value != null && Quantities.parse(value).signum() <= 0) {
      causes.add(invalid(field, value, "must be positive"));
    }
  }

  /** {@code validateScalingRules}. */
  private static void scalingRules(HPAScalingRules rules, String field, List<StatusCause> causes) {
    if (rules == null) {
      return;
    }
    Integer window = rules.getStabilizationWindowSeconds();
    if (window != null && window < 0) {
      causes.add(
          invalid(
              field + ".stabilizationWindowSeconds",
              window.toString(),
              "must be greater than or equal to zero"));
    }
    if (window != null && window > 3600) {
      causes.add(
          invalid(
              field + ".stabilizationWindowSeconds",
              window.toString(),
              "must be less than or equal to 3600"));
    }
    String select = rules.getSelectPolicy();
    if (select != null && !List.of("Disabled", "Max", "Min").contains(select)) {
      causes.add(notSupported(field + ".selectPolicy", select, List.of("Disabled", "Max", "Min")));
    }
    List<HPAScalingPolicy> policies = rules.getPolicies();
    if (policies == null || policies.isEmpty()) {
      causes.add(required(field + ".policies", "must specify at least one Policy"));
      return;
    }
    for (int i = 0; i < policies.size(); i++) {
      HPAScalingPolicy p = policies.get(i);
      String at = field + ".policies[" + i + "]";
      if (p.getType() == null || !List.of("Percent", "Pods").contains(p.getType())) {
        causes.add(
            notSupported(at + ".type", String.valueOf(p.getType()), List.of("Percent", "Pods")));
      }
      int value = p.getValue() == null ? 0 : p.getValue();
      if (value <= 0) {
        causes.add(invalid(at + ".value", Integer.toString(value), "must be greater than zero"));
      }
      int period = p.getPeriodSeconds() == null ? 0 : p.getPeriodSeconds();
      if (period <= 0) {
        causes.add(
            invalid(at + ".periodSeconds", Integer.toString(period), "must be greater than zero"));
      }
      if (period > 1800) {
        causes.add(
            invalid(
                at + ".periodSeconds",
                Integer.toString(period),
                "must be less than or equal to 1800"));
      }
    }
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Reference", "string", "Reference to the target resource, as kind/name."),
              col("Targets", "string", "The current and target values of each metric."),
              col("MinPods", "string", "Lower limit for the number of pods."),
              col("MaxPods", "integer", "Upper limit for the number of pods."),
              col(
                  "Replicas",
                  "integer",
                  "Current number of replicas of pods managed by this autoscaler."),
              age()),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(
                spec.path("scaleTargetRef").path("kind").asText()
                    + "/"
                    + spec.path("scaleTargetRef").path("name").asText());
            cells.add(targets(spec.path("metrics"), o.path("status").path("currentMetrics")));
            cells.add(
                spec.hasNonNull("minReplicas") ? spec.get("minReplicas").asText() : "<unset>");
            cells.add(spec.path("maxReplicas").asLong(0));
            cells.add(o.path("status").path("currentReplicas").asLong(0));
            cells.add(age(o, now));
            return cells;
          });

  /**
   * kubectl's {@code formatHPAMetrics}: each metric as {@code <name>: <current>/<target>}, the
   * current {@code <unknown>} until the status has it, the first four and {@code + N more...}.
   */
  static String targets(JsonNode metrics, JsonNode current) {
    if (!metrics.isArray() || metrics.isEmpty()) {
      return "<none>";
    }
    List<String> list = new ArrayList<>();
    for (int i = 0; i < metrics.size(); i++) {
      JsonNode m = metrics.get(i);
      JsonNode status = current.isArray() && i < current.size() ? current.get(i) : null;
      String type = m.path("type").asText();
      switch (type) {
        case "Resource", "ContainerResource" -> {
          String source = type.equals("Resource") ? "resource" : "containerResource";
          JsonNode target = m.path(source).path("target");
          JsonNode now = status == null ? JSON.missingNode() : status.path(source).path("current");
          String name = m.path(source).path("name").asText();
          if (target.hasNonNull("averageUtilization")) {
            String value =
                now.hasNonNull("averageUtilization")
                    ? now.get("averageUtilization").asText() + "%"
                    : "<unknown>";
            list.add(name + ": " + value + "/" + target.get("averageUtilization").asText() + "%");
          } else {
            String value =
                now.hasNonNull("averageValue") ? now.get("averageValue").asText() : "<unknown>";
            list.add(name + ": " + value + "/" + target.path("averageValue").asText());
          }
        }
        default -> {
          String source = Character.toLowerCase(type.charAt(0)) + type.substring(1);
          JsonNode target = m.path(source).path("target");
          JsonNode now = status == null ? JSON.missingNode() : status.path(source).path("current");
          String name = m.path(source).path("metric").path("name").asText();
          String want =
              target.hasNonNull("value")
                  ? target.get("value").asText()
                  : target.path("averageValue").asText() + " (avg)";
          String have =
              now.hasNonNull("value")
                  ? now.get("value").asText()
                  : now.hasNonNull("averageValue") ? now.get("averageValue").asText() : "<unknown>";
          list.add(name + ": " + have + "/" + want);
        }
      }
    }
    if (list.size() > 4) {
      return String.join(", ", list.subList(0, 4)) + " + " + (list.size() - 4) + " more...";
    }
    return String.join(", ", list);
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
