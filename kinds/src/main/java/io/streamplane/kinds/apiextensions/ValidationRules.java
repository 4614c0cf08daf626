package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
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
 * update where the node had a value. A false rule is reported at the node's path (or at {@code
 * fieldPath} under it) with its {@code message}, else the string its {@code messageExpression}
 * evaluates to, else {@code failed rule: <rule>}; {@code reason} picks the kind of field error
 * (FieldValueInvalid, the default, shows the node's type as the value: {@code spec: Invalid value:
 * "object": ...}; FieldValueForbidden, FieldValueRequired, FieldValueDuplicate).
 *
 * <p>Limits: see {@link CelExpressions} for the CEL functions provided; {@code optionalOldSelf} is
 * not supported.
 */
final class ValidationRules {

  static final CelExpressions CEL = new CelExpressions();
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
      if (text.isEmpty() || (transition && (old == null || old.isMissingNode()))) {
        continue;
      }
      Map<String, JsonNode> variables = new LinkedHashMap<>();
      variables.put("self", value);
      if (transition) {
        variables.put("oldSelf", old);
      }
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
      Object result;
      try {
        result = CEL.evaluate(compiled, variables);
      } catch (Exception e) {
        causes.add(
            FieldErrors.invalid(
                at, typeShown(schema, value), "rule evaluation error: " + e.getMessage()));
        continue;
      }
      if (Boolean.TRUE.equals(result)) {
        continue;
      }
      causes.add(cause(rule, at, message(rule, text, variables), typeShown(schema, value)));
    }
  }

  private static String message(JsonNode rule, String text, Map<String, JsonNode> variables) {
    String expression = rule.path("messageExpression").asText("");
    if (!expression.isEmpty()) {
      CelExpressions.Compiled compiled = CEL.compile(expression, VARIABLES);
      if (compiled.ok()) {
        try {
          Object message = CEL.evaluate(compiled, variables);
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
