package io.streamplane.kinds.policy;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.LabelSelectorRequirement;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodDisruptionBudgetSpec;
import io.streamplane.api.PodDisruptionBudgetStatus;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.avro.specific.SpecificRecord;

/**
 * policy/v1 PodDisruptionBudget: a created budget starts with an empty status (every count 0), as
 * kube-apiserver's {@code PrepareForCreate}; {@code ValidatePodDisruptionBudgetSpec}'s essentials
 * (minAvailable and maxUnavailable exclusive, each a non-negative integer or a percentage of at
 * most 100%, a valid label selector, unhealthyPodEvictionPolicy IfHealthyBudget or AlwaysAllow) and
 * the status counts non-negative; a generation raised by every spec change; kube-apiserver's
 * columns (Name, Min Available, Max Unavailable, Allowed Disruptions, Age).
 *
 * <p>Limits: the selector's label keys and values are checked for their syntax only through the
 * operators' rules (In and NotIn need values, Exists and DoesNotExist take none); the spec is not
 * printed in Go's {@code %#v} in the error for both bounds set.
 */
public final class PodDisruptionBudgetStrategy implements KindStrategy {

  private static final Pattern PERCENT = Pattern.compile("^[0-9]+%$");

  @Override
  public void prepareForCreate(ObjectNode object) {
    object
        .putObject("status")
        .put("disruptionsAllowed", 0)
        .put("currentHealthy", 0)
        .put("desiredHealthy", 0)
        .put("expectedPods", 0);
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    PodDisruptionBudget pdb = (PodDisruptionBudget) object;
    List<StatusCause> causes = new ArrayList<>();
    PodDisruptionBudgetSpec spec = pdb.getSpec();
    if (spec != null) {
      spec(spec, causes);
    }
    status(pdb.getStatus(), causes);
    return causes;
  }

  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    return validate(object);
  }

  private static void spec(PodDisruptionBudgetSpec spec, List<StatusCause> causes) {
    if (spec.getMinAvailable() != null && spec.getMaxUnavailable() != null) {
      causes.add(
          invalid(
              "spec",
              "policy.PodDisruptionBudgetSpec{MinAvailable:"
                  + spec.getMinAvailable()
                  + ", MaxUnavailable:"
                  + spec.getMaxUnavailable()
                  + "}",
              "minAvailable and maxUnavailable cannot be both set"));
    }
    intOrPercent(spec.getMinAvailable(), "spec.minAvailable", causes);
    intOrPercent(spec.getMaxUnavailable(), "spec.maxUnavailable", causes);
    selector(spec.getSelector(), "spec.selector", causes);
    String policy = spec.getUnhealthyPodEvictionPolicy();
    if (policy != null && !List.of("AlwaysAllow", "IfHealthyBudget").contains(policy)) {
      causes.add(
          notSupported(
              "spec.unhealthyPodEvictionPolicy",
              policy,
              List.of("AlwaysAllow", "IfHealthyBudget")));
    }
  }

  /** {@code ValidatePositiveIntOrPercent} and {@code IsNotMoreThan100Percent}. */
  private static void intOrPercent(Object value, String field, List<StatusCause> causes) {
    if (value == null) {
      return;
    }
    if (value instanceof Integer i) {
      if (i < 0) {
        causes.add(invalid(field, i.toString(), "must be greater than or equal to 0"));
      }
      return;
    }
    String s = value.toString();
    if (!PERCENT.matcher(s).matches()) {
      causes.add(
          invalid(
              field,
              FieldErrors.quote(s),
              "a valid percent string must be a numeric string followed by an ending '%' (e.g."
                  + " '1%',  or '93%', regex used for validation is '[0-9]+%')"));
      return;
    }
    if (Integer.parseInt(s.substring(0, s.length() - 1)) > 100) {
      causes.add(invalid(field, FieldErrors.quote(s), "must not be greater than 100%"));
    }
  }

  /** {@code ValidateLabelSelector}: valid labels, and each expression's operator and values. */
  public static void selector(LabelSelector selector, String field, List<StatusCause> causes) {
    if (selector == null) {
      return;
    }
    Map<String, String> labels = selector.getMatchLabels();
    if (labels != null) {
      for (var label : labels.entrySet()) {
        causes.addAll(Names.qualifiedName(field + ".matchLabels", label.getKey()));
        causes.addAll(Names.labelValue(field + ".matchLabels", label.getValue()));
      }
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    for (int i = 0; expressions != null && i < expressions.size(); i++) {
      LabelSelectorRequirement r = expressions.get(i);
      String at = field + ".matchExpressions[" + i + "]";
      String operator = String.valueOf(r.getOperator());
      int values = r.getValues() == null ? 0 : r.getValues().size();
      switch (operator) {
        case "In", "NotIn" -> {
          if (values == 0) {
            causes.add(
                required(at + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
          }
        }
        case "Exists", "DoesNotExist" -> {
          if (values > 0) {
            causes.add(
                FieldErrors.forbidden(
                    at + ".values",
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
          }
        }
        default ->
            causes.add(
                notSupported(
                    at + ".operator", operator, List.of("In", "NotIn", "Exists", "DoesNotExist")));
      }
      causes.addAll(Names.qualifiedName(at + ".key", String.valueOf(r.getKey())));
    }
  }

  /** {@code ValidatePodDisruptionBudgetStatusUpdate}: no negative count. */
  private static void status(PodDisruptionBudgetStatus status, List<StatusCause> causes) {
    if (status == null) {
      return;
    }
    nonNegative(status.getDisruptionsAllowed(), "status.disruptionsAllowed", causes);
    nonNegative(status.getCurrentHealthy(), "status.currentHealthy", causes);
    nonNegative(status.getDesiredHealthy(), "status.desiredHealthy", causes);
    nonNegative(status.getExpectedPods(), "status.expectedPods", causes);
  }

  private static void nonNegative(Integer value, String field, List<StatusCause> causes) {
    if (value != null && value < 0) {
      causes.add(invalid(field, value.toString(), "must be greater than or equal to 0"));
    }
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
                  "Min Available",
                  "string",
                  "The minimum number or percentage of available pods this budget requires."),
              col(
                  "Max Unavailable",
                  "string",
                  "The maximum number or percentage of unavailable pods this budget requires."),
              col(
                  "Allowed Disruptions",
                  "integer",
                  "Calculated number of pods that may be disrupted at this time."),
              age()),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(spec.hasNonNull("minAvailable") ? spec.get("minAvailable").asText() : "N/A");
            cells.add(
                spec.hasNonNull("maxUnavailable") ? spec.get("maxUnavailable").asText() : "N/A");
            cells.add(o.path("status").path("disruptionsAllowed").asLong(0));
            cells.add(age(o, now));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
