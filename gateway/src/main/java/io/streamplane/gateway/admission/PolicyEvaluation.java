package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.admissionregistration.PolicyExpressions;
import io.streamplane.kinds.cel.CelCost;
import io.streamplane.kinds.cel.CelExpressions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One ValidatingAdmissionPolicy evaluated over one write with one param, as kube-apiserver's policy
 * validator ({@code validating/validator.go}) does, as a pure function of the policy and the CEL
 * inputs:
 *
 * <ol>
 *   <li>the {@code matchConditions}: one false skips the policy (no decision); an error in any when
 *       none is false is one decision, Deny under {@code failurePolicy: Fail}, Admit under Ignore;
 *   <li>the {@code variables}, in order, each seeing those before it as {@code variables.name};
 *   <li>each of the {@code validations}: true admits; an error is a decision as above, with the
 *       message {@code expression '...' resulted in error: ...}; anything else denies with the
 *       trimmed string of its {@code messageExpression} (if it evaluates to a non-empty string of
 *       one line), else its {@code message}, else {@code failed expression: <expression>}, and its
 *       {@code reason} (Invalid by default);
 *   <li>each of the {@code auditAnnotations}: a non-empty string is published, null or an empty
 *       string left out, an error or another type is an error under Fail and left out under Ignore.
 * </ol>
 *
 * <p>Limits: a variable is evaluated before the expressions, not when first named: a variable whose
 * evaluation fails is left out of {@code variables}, so an expression naming it fails with the
 * engine's "no such key" rather than the variable's own error. Each expression is evaluated within
 * Kubernetes' per-call cost limit ({@code operation cancelled: actual cost limit exceeded}), and
 * the expressions of one evaluation share the runtime budget of a request ({@code validation failed
 * due to running out of cost budget, ...}), where kube-apiserver shares it between every policy of
 * the request.
 */
public final class PolicyEvaluation {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_MESSAGE_LENGTH = 5 * 1024;

  /** What the expressions see; {@code params} null when the policy has no paramKind. */
  public record Inputs(
      JsonNode object,
      JsonNode oldObject,
      JsonNode request,
      JsonNode params,
      JsonNode namespaceObject) {}

  /**
   * The outcome of one validation (its index in {@code validations}), or of the match conditions or
   * the evaluation as a whole (index 0); {@code reason} is the Status reason a Deny answers with.
   */
  public record Decision(boolean deny, boolean error, String message, String reason, int index) {}

  /** An audit annotation to publish under {@code <policy>/<key>}. */
  public record AuditAnnotation(String key, String value) {}

  /** The decisions and audit annotations of the evaluation; both empty when it was skipped. */
  public record Result(List<Decision> decisions, List<AuditAnnotation> auditAnnotations) {
    static final Result SKIPPED = new Result(List.of(), List.of());
  }

  private PolicyEvaluation() {}

  /** Evaluates {@code policy} (its JSON) over {@code inputs}. */
  public static Result evaluate(JsonNode policy, Inputs inputs) {
    JsonNode spec = policy.path("spec");
    boolean fail = !spec.path("failurePolicy").asText("Fail").equals("Ignore");
    boolean hasParams = spec.path("paramKind").isObject();
    Map<String, JsonNode> variables = new LinkedHashMap<>();
    variables.put("object", inputs.object());
    variables.put("oldObject", inputs.oldObject());
    variables.put("request", inputs.request());
    variables.put("namespaceObject", inputs.namespaceObject());
    if (hasParams) {
      variables.put("params", inputs.params());
    }
    variables.put("variables", JSON.createObjectNode());
    Budget budget = new Budget();

    List<String> conditionErrors = new ArrayList<>();
    for (JsonNode condition : spec.path("matchConditions")) {
      String expression = condition.path("expression").asText("");
      Outcome outcome = run(expression, hasParams, variables, budget);
      if (outcome.error() != null) {
        conditionErrors.add(outcome.error());
      } else if (Boolean.FALSE.equals(outcome.value())) {
        return Result.SKIPPED;
      } else if (!(outcome.value() instanceof Boolean)) {
        conditionErrors.add(
            "expression '" + expression + "' resulted in error: the result is not a bool");
      }
    }
    if (!conditionErrors.isEmpty()) {
      String message =
          conditionErrors.size() == 1
              ? conditionErrors.get(0)
              : "[" + String.join(", ", conditionErrors) + "]";
      return new Result(List.of(new Decision(fail, true, message, null, 0)), List.of());
    }

    ObjectNode declared = JSON.createObjectNode();
    for (JsonNode variable : spec.path("variables")) {
      variables.put("variables", declared.deepCopy());
      Outcome outcome = run(variable.path("expression").asText(""), hasParams, variables, budget);
      if (outcome.error() == null) {
        declared.set(variable.path("name").asText(""), json(outcome.value()));
      }
    }
    variables.put("variables", declared);

    List<Decision> decisions = new ArrayList<>();
    JsonNode validations = spec.path("validations");
    for (int i = 0; i < validations.size(); i++) {
      decisions.add(validation(validations.get(i), i, fail, hasParams, variables, budget));
    }
    List<AuditAnnotation> annotations = new ArrayList<>();
    for (JsonNode annotation : spec.path("auditAnnotations")) {
      String expression = annotation.path("valueExpression").asText("");
      Outcome outcome = run(expression, hasParams, variables, budget);
      String error = outcome.error();
      if (error == null && outcome.value() instanceof String s) {
        if (!s.strip().isEmpty()) {
          annotations.add(new AuditAnnotation(annotation.path("key").asText(""), s.strip()));
        }
        continue;
      }
      if (error == null && isNull(outcome.value())) {
        continue;
      }
      if (error == null) {
        error =
            "valueExpression '"
                + expression
                + "' resulted in unsupported return type: "
                + typeName(outcome.value())
                + ". Return type must be either string or null.";
      }
      if (fail) {
        decisions.add(new Decision(true, true, error, null, 0));
      }
    }
    return new Result(decisions, annotations);
  }

  private static Decision validation(
      JsonNode validation,
      int index,
      boolean fail,
      boolean hasParams,
      Map<String, JsonNode> variables,
      Budget budget) {
    String expression = validation.path("expression").asText("");
    Outcome outcome = run(expression, hasParams, variables, budget);
    if (outcome.error() != null) {
      return new Decision(fail, true, outcome.error(), null, index);
    }
    if (Boolean.TRUE.equals(outcome.value())) {
      return new Decision(false, false, null, null, index);
    }
    String message = "";
    String messageExpression = validation.path("messageExpression").asText("");
    if (!messageExpression.isBlank()) {
      Outcome evaluated = run(messageExpression, hasParams, variables, budget);
      if (evaluated.error() == null && evaluated.value() instanceof String s) {
        message = s.strip();
        if (message.length() > MAX_MESSAGE_LENGTH || message.contains("\n")) {
          message = "";
        }
      }
    }
    if (message.isEmpty()) {
      message = validation.path("message").asText("").strip();
    }
    if (message.isEmpty()) {
      message = "failed expression: " + expression.strip();
    }
    return new Decision(true, false, message, validation.path("reason").asText("Invalid"), index);
  }

  /** A value, or the error its expression ran into. */
  private record Outcome(Object value, String error) {}

  private static final String OUT_OF_BUDGET =
      "validation failed due to running out of cost budget, no further validation rules will be"
          + " run";

  /** The runtime cost the expressions of one evaluation may still spend. */
  private static final class Budget {
    long remaining = CelCost.RUNTIME_BUDGET;
  }

  private static Outcome run(
      String expression, boolean hasParams, Map<String, JsonNode> inputs, Budget budget) {
    if (budget.remaining < 0) {
      return new Outcome(null, OUT_OF_BUDGET);
    }
    CelExpressions.Compiled compiled = PolicyExpressions.compile(expression, hasParams);
    if (!compiled.ok()) {
      return new Outcome(
          null, "expression '" + expression + "' resulted in error: " + compiled.error());
    }
    try {
      CelExpressions.Evaluation evaluation =
          PolicyExpressions.CEL.evaluate(compiled, inputs, CelCost.PER_CALL_LIMIT);
      budget.remaining -= evaluation.cost();
      if (budget.remaining < 0) {
        return new Outcome(null, OUT_OF_BUDGET);
      }
      return new Outcome(evaluation.value(), null);
    } catch (Exception e) {
      return new Outcome(
          null, "expression '" + expression + "' resulted in error: " + e.getMessage());
    }
  }

  private static boolean isNull(Object value) {
    return value == null || value instanceof dev.cel.common.values.NullValue;
  }

  private static String typeName(Object value) {
    if (value instanceof Long) {
      return "int";
    }
    if (value instanceof Boolean) {
      return "bool";
    }
    if (value instanceof Double) {
      return "double";
    }
    if (value instanceof Map) {
      return "map";
    }
    if (value instanceof List) {
      return "list";
    }
    return value == null ? "null_type" : value.getClass().getSimpleName();
  }

  /** A CEL value back as JSON, so that a later expression sees it as {@code variables.name}. */
  static JsonNode json(Object value) {
    return JSON.valueToTree(isNull(value) ? null : celToJava(value));
  }

  private static Object celToJava(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(k), celToJava(v)));
      return out;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(v -> out.add(celToJava(v)));
      return out;
    }
    if (isNull(value)) {
      return null;
    }
    if (value instanceof com.google.protobuf.ByteString bytes) {
      return bytes.toByteArray();
    }
    if (value instanceof Long || value instanceof Double || value instanceof Boolean) {
      return value;
    }
    if (value instanceof String) {
      return value;
    }
    return value.toString();
  }
}
