package io.streamplane.kinds.apps;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.containerCells;
import static io.streamplane.kinds.printers.Cells.formatSelector;
import static io.streamplane.kinds.printers.Cells.labels;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.DaemonSetSpec;
import io.streamplane.api.DaemonSetUpdateStrategy;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.LabelSelectorRequirement;
import io.streamplane.api.RollingUpdateDaemonSet;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.kinds.validation.PodSpecs;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;

/**
 * apps/v1 DaemonSet: {@code SetDefaults_DaemonSet} (RollingUpdate with maxUnavailable 1 and
 * maxSurge 0, revision history 10, the template's pod spec defaults); {@code ValidateDaemonSet}'s
 * essentials (a selector that selects the template, restartPolicy Always, no activeDeadlineSeconds,
 * an update strategy of RollingUpdate or OnDelete whose maxUnavailable and maxSurge are
 * non-negative, at most 100% and exactly one of them non-zero, non-negative minReadySeconds and
 * revisionHistoryLimit) and, on update, an immutable selector; a generation raised by every spec
 * change; kube-apiserver's daemon set columns.
 *
 * <p>Limits: the {@code deprecated.daemonset.template.generation} annotation kube-apiserver keeps
 * is not written (the controller tells pods apart by their {@code controller-revision-hash} label
 * alone).
 */
public final class DaemonSetStrategy implements KindStrategy {

  private static final Pattern PERCENT = Pattern.compile("^[0-9]+%$");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    ObjectNode strategy = spec.with("updateStrategy");
    if (strategy.path("type").asText("").isEmpty()) {
      strategy.put("type", "RollingUpdate");
    }
    if (strategy.path("type").asText().equals("RollingUpdate")) {
      ObjectNode rolling = strategy.with("rollingUpdate");
      putIfAbsent(rolling, "maxUnavailable", 1);
      putIfAbsent(rolling, "maxSurge", 0);
    }
    putIfAbsent(spec, "revisionHistoryLimit", 10);
    PodSpecDefaults.template(spec);
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    DaemonSetSpec spec = ((DaemonSet) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    if (spec == null) {
      causes.add(required("spec.selector"));
      return causes;
    }
    LabelSelector selector = spec.getSelector();
    PodSpecs.selectorAndTemplate(selector, spec.getTemplate(), causes);
    if (spec.getTemplate() != null && spec.getTemplate().getSpec() != null) {
      var podSpec = spec.getTemplate().getSpec();
      String restartPolicy = podSpec.getRestartPolicy();
      if (restartPolicy != null && !"Always".equals(restartPolicy)) {
        causes.add(
            notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
      }
      if (podSpec.getActiveDeadlineSeconds() != null) {
        causes.add(
            forbidden(
                "spec.template.spec.activeDeadlineSeconds",
                "activeDeadlineSeconds in DaemonSet is not Supported"));
      }
    }
    nonNegative(spec.getMinReadySeconds(), "spec.minReadySeconds", causes);
    nonNegative(spec.getRevisionHistoryLimit(), "spec.revisionHistoryLimit", causes);
    updateStrategy(spec.getUpdateStrategy(), causes);
    return causes;
  }

  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    LabelSelector selector = selector((DaemonSet) object);
    if (!KubeObjects.same(selector, selector((DaemonSet) old))) {
      causes.add(0, invalid("spec.selector", goValue(selector), "field is immutable"));
    }
    return causes;
  }

  private static LabelSelector selector(DaemonSet ds) {
    return ds.getSpec() == null ? null : ds.getSpec().getSelector();
  }

  private static void updateStrategy(DaemonSetUpdateStrategy strategy, List<StatusCause> causes) {
    String type = strategy == null ? null : strategy.getType();
    if (type == null || !(type.equals("RollingUpdate") || type.equals("OnDelete"))) {
      causes.add(
          notSupported(
              "spec.updateStrategy.type",
              type == null ? "" : type,
              List.of("OnDelete", "RollingUpdate")));
      return;
    }
    RollingUpdateDaemonSet rolling = strategy.getRollingUpdate();
    if (type.equals("RollingUpdate") && rolling == null) {
      causes.add(required("spec.updateStrategy.rollingUpdate"));
      return;
    }
    if (rolling == null) {
      return;
    }
    String at = "spec.updateStrategy.rollingUpdate.";
    Integer unavailable = intOrPercent(rolling.getMaxUnavailable(), at + "maxUnavailable", causes);
    Integer surge = intOrPercent(rolling.getMaxSurge(), at + "maxSurge", causes);
    if (unavailable == null || surge == null) {
      return;
    }
    if (unavailable != 0 && surge != 0) {
      causes.add(
          invalid(
              at + "maxSurge",
              printed(rolling.getMaxSurge()),
              "may not be set when maxUnavailable is non-zero"));
    } else if (unavailable == 0 && surge == 0) {
      causes.add(required(at + "maxUnavailable", "cannot be 0 when maxSurge is 0"));
    }
  }

  /**
   * {@code ValidatePositiveIntOrPercent} and {@code IsNotMoreThan100Percent}: the value's number (a
   * percentage's), or null when it is invalid.
   */
  private static Integer intOrPercent(Object value, String field, List<StatusCause> causes) {
    if (value == null) {
      return 0;
    }
    if (value instanceof Integer i) {
      if (i < 0) {
        causes.add(invalid(field, i.toString(), "must be greater than or equal to 0"));
        return null;
      }
      return i;
    }
    String s = value.toString();
    if (!PERCENT.matcher(s).matches()) {
      causes.add(
          invalid(
              field,
              FieldErrors.quote(s),
              "a valid percent string must be a numeric string followed by an ending '%' (e.g."
                  + " '1%',  or '93%', regex used for validation is '[0-9]+%')"));
      return null;
    }
    int percent = Integer.parseInt(s.substring(0, s.length() - 1));
    if (percent > 100) {
      causes.add(invalid(field, FieldErrors.quote(s), "must not be greater than 100%"));
      return null;
    }
    return percent;
  }

  private static String printed(Object intOrString) {
    return intOrString instanceof Integer ? intOrString.toString() : "\"" + intOrString + "\"";
  }

  private static void nonNegative(Integer value, String field, List<StatusCause> causes) {
    if (value != null && value < 0) {
      causes.add(invalid(field, value.toString(), "must be greater than or equal to 0"));
    }
  }

  /** A selector as Go's {@code %#v} prints a {@code v1.LabelSelector} in a field.Invalid. */
  static String goValue(LabelSelector selector) {
    if (selector == null) {
      return "null";
    }
    Map<String, String> labels = selector.getMatchLabels();
    String matchLabels =
        labels == null
            ? "map[string]string(nil)"
            : new TreeMap<>(labels)
                .entrySet().stream()
                    .map(e -> FieldErrors.quote(e.getKey()) + ":" + FieldErrors.quote(e.getValue()))
                    .collect(Collectors.joining(", ", "map[string]string{", "}"));
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    String matchExpressions =
        expressions == null
            ? "[]v1.LabelSelectorRequirement(nil)"
            : expressions.stream()
                .map(
                    r ->
                        "v1.LabelSelectorRequirement{Key:"
                            + FieldErrors.quote(String.valueOf(r.getKey()))
                            + ", Operator:"
                            + FieldErrors.quote(String.valueOf(r.getOperator()))
                            + ", Values:"
                            + (r.getValues() == null
                                ? "[]string(nil)"
                                : r.getValues().stream()
                                    .map(FieldErrors::quote)
                                    .collect(Collectors.joining(", ", "[]string{", "}")))
                            + "}")
                .collect(Collectors.joining(", ", "[]v1.LabelSelectorRequirement{", "}"));
    return "v1.LabelSelector{MatchLabels:"
        + matchLabels
        + ", MatchExpressions:"
        + matchExpressions
        + "}";
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Desired",
                  "integer",
                  "The total number of nodes that should be running the daemon pod (including nodes"
                      + " correctly running the daemon pod). More info:"
                      + " https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
              col(
                  "Current",
                  "integer",
                  "The number of nodes that are running at least 1 daemon pod and are supposed to"
                      + " run the daemon pod. More info:"
                      + " https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
              col(
                  "Ready",
                  "integer",
                  "numberReady is the number of nodes that should be running the daemon pod and"
                      + " have one or more of the daemon pod running with a Ready Condition."),
              col(
                  "Up-to-date",
                  "integer",
                  "The total number of nodes that are running updated daemon pod"),
              col(
                  "Available",
                  "integer",
                  "The number of nodes that should be running the daemon pod and have one or more"
                      + " of the daemon pod running and available (ready for at least"
                      + " spec.minReadySeconds)"),
              col(
                  "Node Selector",
                  "string",
                  "NodeSelector is a selector which must be true for the pod to fit on a node."
                      + " Selector which must match a node's labels for the pod to be scheduled on"
                      + " that node. More info:"
                      + " https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template."),
              wide(
                  "Selector",
                  "A label query over pods that are managed by the daemon set. Must match in order"
                      + " to be controlled. It must match the pod template's labels. More info:"
                      + " https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")),
          (o, now) -> {
            JsonNode status = o.path("status");
            JsonNode podSpec = o.path("spec").path("template").path("spec");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(status.path("desiredNumberScheduled").asLong(0));
            cells.add(status.path("currentNumberScheduled").asLong(0));
            cells.add(status.path("numberReady").asLong(0));
            cells.add(status.path("updatedNumberScheduled").asLong(0));
            cells.add(status.path("numberAvailable").asLong(0));
            cells.add(labels(podSpec.path("nodeSelector")));
            cells.add(age(o, now));
            cells.addAll(containerCells(podSpec));
            cells.add(formatSelector(o.path("spec").path("selector")));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
