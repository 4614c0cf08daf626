package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.streamplane.kinds.cel.CelCost;
import io.streamplane.kinds.cel.CelExpressions;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code x-kubernetes-validations} of a schema node, as apiextensions-apiserver's {@code
 * validation/cel} checks them: each {@code rule} is a CEL expression over {@code self} (the node's
 * value) that must be true; a rule naming {@code oldSelf} is a transition rule, checked only on an
 * update where the node had a value, unless its {@code optionalOldSelf} makes {@code oldSelf} an
 * optional that is none on a create. A false rule is reported at the node's path (or at {@code
 * fieldPath} under it) with its {@code message}, else the string its {@code messageExpression}
 * evaluates to, else {@code failed rule: <rule>}; {@code reason} picks the kind of field error
 * (FieldValueInvalid, the default, shows the node's type as the value: {@code spec: Invalid value:
 * "object": ...}; FieldValueForbidden, FieldValueRequired, FieldValueDuplicate).
 *
 * <p>Kubernetes' cost limits apply ({@link CelCost}): a definition is refused when a rule's
 * estimated cost is over them ({@link #costErrors}); one evaluation may cost {@link
 * CelCost#PER_CALL_LIMIT} and the rules of one validation ({@link #budget}) {@link
 * CelCost#RUNTIME_BUDGET} together, after which no further rule is evaluated.
 *
 * <p>Limits: see {@link CelExpressions} for the CEL functions provided.
 */
final class ValidationRules {

  static final CelExpressions CEL = new CelExpressions();

  private static final String OUT_OF_BUDGET =
      "validation failed due to running out of cost budget, no further validation rules will be"
          + " run";

  /** The runtime cost the rules of one validation may still spend. */
  static final class Budget implements AutoCloseable {
    private final Budget outer;
    private long remaining = CelCost.RUNTIME_BUDGET;

    private Budget(Budget outer) {
      this.outer = outer;
    }

    @Override
    public void close() {
      if (outer == null) {
        BUDGET.remove();
      } else {
        BUDGET.set(outer);
      }
    }
  }

  private static final ThreadLocal<Budget> BUDGET = new ThreadLocal<>();

  /**
   * A fresh budget of {@link CelCost#RUNTIME_BUDGET} for the rules checked on this thread until it
   * is closed: one validation of an object, as kube-apiserver gives one to each request.
   */
  static Budget budget() {
    Budget budget = new Budget(BUDGET.get());
    BUDGET.set(budget);
    return budget;
  }

  private static final Set<String> VARIABLES = Set.of("self", "oldSelf");
  private static final Pattern OLD_SELF = Pattern.compile("\\boldSelf\\b");

  private ValidationRules() {}

  /** Adds the causes of the node's rules that {@code value} (and {@code old}) do not satisfy. */
  static void check(
      JsonNode schema, JsonNode value, JsonNode old, String path, List<StatusCause> causes) {
    JsonNode rules = schema.path("x-kubernetes-validations");
    if (!rules.isArray() || rules.isEmpty() || value.isNull() || value.isMissingNode()) {
      return;
    }
    for (JsonNode rule : rules) {
      String text = rule.path("rule").asText("");
      boolean transition = OLD_SELF.matcher(text).find();
      boolean hasOld = old != null && !old.isMissingNode();
      boolean optionalOld = transition && rule.path("optionalOldSelf").asBoolean(false);
      if (text.isEmpty() || (transition && !hasOld && !optionalOld)) {
        continue;
      }
      Map<String, JsonNode> variables = new LinkedHashMap<>();
      variables.put("self", value);
      if (transition) {
        variables.put("oldSelf", hasOld ? old : MissingNode.getInstance());
      }
      Set<String> optionals = optionalOld ? Set.of("oldSelf") : Set.of();
      String at = path;
      String fieldPath = rule.path("fieldPath").asText("");
      if (!fieldPath.isEmpty()) {
        at = path.isEmpty() ? fieldPath.substring(1) : path + fieldPath;
      }
      CelExpressions.Compiled compiled = CEL.compile(text, VARIABLES);
      if (!compiled.ok()) {
        causes.add(
            FieldErrors.invalid(
                at, typeShown(schema, value), "compilation failed: " + compiled.error()));
        continue;
      }
      Budget budget = BUDGET.get() != null ? BUDGET.get() : new Budget(null);
      if (budget.remaining < 0) {
        return;
      }
      Object result;
      try {
        CelExpressions.Evaluation evaluation =
            CEL.evaluate(compiled, variables, optionals, CelCost.PER_CALL_LIMIT);
        result = evaluation.value();
        if (evaluation.cost() > budget.remaining) {
          causes.add(FieldErrors.invalid(path, typeShown(schema, value), OUT_OF_BUDGET));
          budget.remaining = -1;
          return;
        }
        budget.remaining -= evaluation.cost();
      } catch (Exception e) {
        String error = e.getMessage();
        String shown = ruleErrorString(rule);
        if (error.startsWith("no such overload")) {
          causes.add(
              FieldErrors.invalid(
                  path,
                  typeShown(schema, value),
                  "'"
                      + error
                      + "': call arguments did not match a supported operator, function or macro"
                      + " signature for rule: "
                      + shown));
        } else if (error.startsWith(CelCost.LIMIT_EXCEEDED)) {
          causes.add(
              FieldErrors.invalid(
                  path,
                  typeShown(schema, value),
                  "'"
                      + error
                      + "': no further validation rules will be run due to call cost exceeds limit"
                      + " for rule: "
                      + shown));
          budget.remaining = -1;
          return;
        } else {
          causes.add(
              FieldErrors.invalid(
                  path, typeShown(schema, value), error + " evaluating rule: " + shown));
        }
        continue;
      }
      if (Boolean.TRUE.equals(result)) {
        continue;
      }
      causes.add(
          cause(rule, at, message(rule, text, variables, optionals), typeShown(schema, value)));
    }
  }

  /** {@code ruleErrorString}: the rule's message, else its text, trimmed. */
  private static String ruleErrorString(JsonNode rule) {
    String message = rule.path("message").asText("").strip();
    return message.isEmpty() ? rule.path("rule").asText("").strip() : message;
  }

  private static String message(
      JsonNode rule, String text, Map<String, JsonNode> variables, Set<String> optionals) {
    String expression = rule.path("messageExpression").asText("");
    if (!expression.isEmpty()) {
      CelExpressions.Compiled compiled = CEL.compile(expression, VARIABLES);
      if (compiled.ok()) {
        try {
          Object message =
              CEL.evaluate(compiled, variables, optionals, CelCost.PER_CALL_LIMIT).value();
          if (message instanceof String s && !s.isBlank()) {
            return s;
          }
        } catch (Exception e) {
          // kube-apiserver falls back to the static message when the expression fails.
        }
      }
    }
    String message = rule.path("message").asText("");
    return message.isEmpty() ? "failed rule: " + text : message;
  }

  private static StatusCause cause(JsonNode rule, String at, String message, String type) {
    return switch (rule.path("reason").asText("FieldValueInvalid")) {
      case "FieldValueForbidden" -> FieldErrors.forbidden(at, message);
      case "FieldValueRequired" -> FieldErrors.required(at, message);
      case "FieldValueDuplicate" ->
          new StatusCause("FieldValueDuplicate", "Duplicate value: " + message, at);
      default -> FieldErrors.invalid(at, type, message);
    };
  }

  /** The value kube-apiserver shows for a failed rule: the node's schema type, quoted. */
  private static String typeShown(JsonNode schema, JsonNode value) {
    String type = schema.path("type").asText("");
    return FieldErrors.quote(type.isEmpty() ? StructuralSchema.jsonType(value) : type);
  }

  /** A rule's estimated cost times the number of values it may be checked on, and its path. */
  private record Cost(String path, long cost) {}

  /**
   * The rules of a version's schema whose estimated cost is over Kubernetes' limits, as CRD
   * validation refuses them: a rule whose cost times the number of values it may be checked on (the
   * sizes of the arrays and maps above it) is over {@link CelCost#STATIC_ESTIMATED_COST_LIMIT},
   * and, when the total of them all is over {@link CelCost#STATIC_ESTIMATED_CRD_COST_LIMIT}, the
   * four costliest rules and the schema.
   */
  static List<StatusCause> costErrors(JsonNode schema, String path) {
    List<StatusCause> causes = new ArrayList<>();
    List<Cost> costs = new ArrayList<>();
    estimateCosts(schema, path, 1, null, causes, costs);
    long total = 0;
    for (Cost cost : costs) {
      total = Math.min(Long.MAX_VALUE - cost.cost(), total) + cost.cost();
    }
    if (total > CelCost.STATIC_ESTIMATED_CRD_COST_LIMIT) {
      costs.sort((a, b) -> Long.compare(b.cost(), a.cost()));
      for (Cost cost : costs.subList(0, Math.min(4, costs.size()))) {
        causes.add(
            FieldErrors.forbidden(
                cost.path(),
                "contributed to estimated rule cost total exceeding cost limit for entire"
                    + " OpenAPIv3 schema"));
      }
      causes.add(
          FieldErrors.forbidden(
              path,
              CelCost.exceedsBudget(
                  "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                  total,
                  CelCost.STATIC_ESTIMATED_CRD_COST_LIMIT)));
    }
    return causes;
  }

  private static void estimateCosts(
      JsonNode schema,
      String path,
      long cardinality,
      String uncorrelatable,
      List<StatusCause> causes,
      List<Cost> costs) {
    if (!schema.isObject()) {
      return;
    }
    JsonNode rules = schema.path("x-kubernetes-validations");
    for (int i = 0; i < rules.size(); i++) {
      String text = rules.get(i).path("rule").asText("");
      if (uncorrelatable != null && OLD_SELF.matcher(text).find()) {
        causes.add(
            FieldErrors.invalid(
                path + ".x-kubernetes-validations[" + i + "].rule",
                FieldErrors.quote(text),
                "oldSelf cannot be used on the uncorrelatable portion of the schema within "
                    + uncorrelatable));
      }
      CelExpressions.Compiled compiled = CEL.compile(text, VARIABLES);
      Map<String, JsonNode> types = new LinkedHashMap<>();
      types.put("self", schema);
      types.put("oldSelf", schema);
      long cost = CelCost.multiply(CelExpressions.estimate(compiled, types), cardinality);
      String at = path + ".x-kubernetes-validations[" + i + "].rule";
      if (cost > CelCost.STATIC_ESTIMATED_COST_LIMIT) {
        causes.add(
            FieldErrors.forbidden(
                at,
                CelCost.exceedsBudget(
                    "estimated rule cost", cost, CelCost.STATIC_ESTIMATED_COST_LIMIT)));
      }
      costs.add(new Cost(at, cost));
    }
    schema
        .path("properties")
        .fields()
        .forEachRemaining(
            p ->
                estimateCosts(
                    p.getValue(),
                    path + ".properties[" + p.getKey() + "]",
                    cardinality,
                    uncorrelatable,
                    causes,
                    costs));
    long below = CelCost.multiply(cardinality, CelCost.maxSize(schema));
    if (schema.path("items").isObject()) {
      // only the items of a list-type map are correlated with the old list's (by their keys)
      String within =
          uncorrelatable != null || schema.path("x-kubernetes-list-type").asText("").equals("map")
              ? uncorrelatable
              : path;
      estimateCosts(schema.get("items"), path + ".items", below, within, causes, costs);
    }
    if (schema.path("additionalProperties").isObject()) {
      estimateCosts(
          schema.get("additionalProperties"),
          path + ".additionalProperties",
          below,
          uncorrelatable,
          causes,
          costs);
    }
  }

  /** Every rule of a schema that does not compile, as CRD validation reports it. */
  static List<StatusCause> compileErrors(JsonNode schema, String path) {
    List<StatusCause> causes = new ArrayList<>();
    JsonNode rules = schema.path("x-kubernetes-validations");
    for (int i = 0; i < rules.size(); i++) {
      JsonNode rule = rules.get(i);
      String at = path + ".x-kubernetes-validations[" + i + "]";
      String text = rule.path("rule").asText("");
      if (text.isEmpty()) {
        causes.add(FieldErrors.required(at + ".rule"));
        continue;
      }
      CelExpressions.Compiled compiled = CEL.compile(text, VARIABLES);
      if (!compiled.ok()) {
        causes.add(
            FieldErrors.invalid(
                at + ".rule", FieldErrors.quote(text), "compilation failed: " + compiled.error()));
      }
      String expression = rule.path("messageExpression").asText("");
      if (!expression.isEmpty() && !CEL.compile(expression, VARIABLES).ok()) {
        causes.add(
            FieldErrors.invalid(
                at + ".messageExpression",
                FieldErrors.quote(expression),
                "messageExpression compilation failed: "
                    + CEL.compile(expression, VARIABLES).error()));
      }
      if (rule.has("optionalOldSelf") && !OLD_SELF.matcher(text).find()) {
        causes.add(
            FieldErrors.invalid(
                at + ".optionalOldSelf",
                rule.get("optionalOldSelf").asText(),
                "may not be set if oldSelf is not used in rule"));
      }
      String reason = rule.path("reason").asText("");
      if (!reason.isEmpty()
          && !Set.of(
                  "FieldValueInvalid",
                  "FieldValueForbidden",
                  "FieldValueRequired",
                  "FieldValueDuplicate")
              .contains(reason)) {
        causes.add(
            FieldErrors.notSupported(
                at + ".reason",
                reason,
                List.of(
                    "FieldValueDuplicate",
                    "FieldValueForbidden",
                    "FieldValueInvalid",
                    "FieldValueRequired")));
      }
    }
    return causes;
  }
}
