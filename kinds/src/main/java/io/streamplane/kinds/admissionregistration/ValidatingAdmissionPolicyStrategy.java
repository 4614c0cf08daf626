package io.streamplane.kinds.admissionregistration;

import static io.streamplane.kinds.admissionregistration.AdmissionRules.orEmpty;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.AuditAnnotation;
import io.streamplane.api.MatchCondition;
import io.streamplane.api.ParamKind;
import io.streamplane.api.ValidatingAdmissionPolicy;
import io.streamplane.api.ValidatingAdmissionPolicySpec;
import io.streamplane.api.Validation;
import io.streamplane.api.Variable;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.cel.CelExpressions;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.specific.SpecificRecord;

/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy, as kube-apiserver's registry keeps it:
 * defaulted ({@code failurePolicy: Fail}; matchConstraints' {@code matchPolicy: Equivalent}, empty
 * selectors, rules of scope {@code *}), validated as {@code ValidateValidatingAdmissionPolicy}
 * (failurePolicy, paramKind, matchConstraints with at least one resource rule, match conditions,
 * variables, validations or audit annotations, validation reasons) with every CEL expression
 * compiled: one that does not compile is a 422 with the compiler's error, as {@code spec.
 * validations[0].expression: Invalid value: "object.spec.replicas >": compilation failed: ...};
 * generation raised by spec changes; kube-apiserver's columns (Name, Validations, ParamKind, Age).
 *
 * <p>Limits: see {@link PolicyExpressions} (dynamic types, no {@code authorizer}); a variable is
 * checked to be declared before the expressions naming it as {@code variables.name}, not through
 * the types; no cost estimation; {@code status.typeChecking} is not written.
 */
public final class ValidatingAdmissionPolicyStrategy implements KindStrategy {

  static final List<String> FAILURE_POLICIES = List.of("Fail", "Ignore");
  static final List<String> REASONS =
      List.of("Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized");
  private static final Pattern CEL_IDENTIFIER = Pattern.compile("^[_a-zA-Z][_a-zA-Z0-9]*$");
  private static final Set<String> CEL_RESERVED =
      Set.of(
          "true",
          "false",
          "null",
          "in",
          "as",
          "break",
          "const",
          "continue",
          "else",
          "for",
          "function",
          "if",
          "import",
          "let",
          "loop",
          "package",
          "namespace",
          "return",
          "var",
          "void",
          "while");
  private static final Pattern VARIABLE_REFERENCE =
      Pattern.compile("\\bvariables\\s*\\.\\s*([_a-zA-Z][_a-zA-Z0-9]*)");
  private static final int MAX_AUDIT_ANNOTATIONS = 20;
  private static final int MAX_AUDIT_ANNOTATION_EXPRESSION_LENGTH = 5 * 1024;

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    if (!(object.path("spec") instanceof ObjectNode spec)) {
      return;
    }
    if (!spec.hasNonNull("failurePolicy")) {
      spec.put("failurePolicy", "Fail");
    }
    AdmissionRules.defaultMatchResources(spec.path("matchConstraints"));
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    ValidatingAdmissionPolicy policy = (ValidatingAdmissionPolicy) object;
    List<StatusCause> causes = new ArrayList<>();
    ValidatingAdmissionPolicySpec spec = policy.getSpec();
    if (spec == null) {
      spec = ValidatingAdmissionPolicySpec.newBuilder().build();
    }
    String name = policy.getMetadata() == null ? null : policy.getMetadata().getName();
    spec(spec, name, causes);
    return causes;
  }

  private static void spec(ValidatingAdmissionPolicySpec spec, String name, List<StatusCause> c) {
    if (spec.getFailurePolicy() == null) {
      c.add(required("spec.failurePolicy"));
    } else if (!FAILURE_POLICIES.contains(spec.getFailurePolicy())) {
      c.add(notSupported("spec.failurePolicy", spec.getFailurePolicy(), FAILURE_POLICIES));
    }
    boolean hasParams = spec.getParamKind() != null;
    if (hasParams) {
      paramKind(spec.getParamKind(), c);
    }
    if (spec.getMatchConstraints() == null) {
      c.add(required("spec.matchConstraints"));
    } else {
      AdmissionRules.validateMatchResources(spec.getMatchConstraints(), "spec.matchConstraints", c);
      if (orEmpty(spec.getMatchConstraints().getResourceRules()).isEmpty()) {
        c.add(required("spec.matchConstraints.resourceRules"));
      }
    }
    matchConditions(orEmpty(spec.getMatchConditions()), "spec.matchConditions", hasParams, c);
    Set<String> declared = new HashSet<>();
    List<Variable> variables = orEmpty(spec.getVariables());
    for (int i = 0; i < variables.size(); i++) {
      Variable v = variables.get(i);
      String at = "spec.variables[" + i + "]";
      String variableName = v.getName() == null ? "" : v.getName();
      if (variableName.isBlank()) {
        c.add(required(at + ".name", "name is not specified"));
      } else if (!isCelIdentifier(variableName)) {
        c.add(invalid(at + ".name", quote(variableName), "name is not a valid CEL identifier"));
      }
      String expression = v.getExpression() == null ? "" : v.getExpression();
      if (expression.isBlank()) {
        c.add(required(at + ".expression", "expression is not specified"));
      } else {
        expression(expression, at + ".expression", hasParams, declared, c);
      }
      declared.add(variableName);
    }
    List<Validation> validations = orEmpty(spec.getValidations());
    List<AuditAnnotation> annotations = orEmpty(spec.getAuditAnnotations());
    if (validations.isEmpty() && annotations.isEmpty()) {
      String detail = "validations or auditAnnotations must contain at least one item";
      c.add(required("spec.validations", detail));
      c.add(required("spec.auditAnnotations", detail));
      return;
    }
    for (int i = 0; i < validations.size(); i++) {
      validation(validations.get(i), "spec.validations[" + i + "]", hasParams, declared, c);
    }
    if (annotations.size() > MAX_AUDIT_ANNOTATIONS) {
      c.add(
          invalid(
              "spec.auditAnnotations",
              "[]admissionregistration.AuditAnnotation{...}",
              "must not have more than " + MAX_AUDIT_ANNOTATIONS + " auditAnnotations"));
    }
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < annotations.size(); i++) {
      AuditAnnotation a = annotations.get(i);
      String at = "spec.auditAnnotations[" + i + "]";
      String key = a.getKey() == null ? "" : a.getKey();
      if (name != null && !name.isEmpty()) {
        c.addAll(Names.qualifiedName(at + ".key", name + "/" + key));
      } else {
        c.add(invalid(at + ".key", quote(key), "requires metadata.name be non-empty"));
      }
      String value = a.getValueExpression() == null ? "" : a.getValueExpression().strip();
      if (value.isEmpty()) {
        c.add(required(at + ".valueExpression", "valueExpression is not specified"));
      } else if (value.length() > MAX_AUDIT_ANNOTATION_EXPRESSION_LENGTH) {
        c.add(
            required(
                at + ".valueExpression",
                "must not exceed " + MAX_AUDIT_ANNOTATION_EXPRESSION_LENGTH + " bytes in length"));
      } else {
        expression(a.getValueExpression(), at + ".valueExpression", hasParams, declared, c);
      }
      if (!keys.add(key)) {
        c.add(duplicate(at + ".key", key));
      }
    }
  }

  private static void validation(
      Validation v, String at, boolean hasParams, Set<String> declared, List<StatusCause> c) {
    String expression = v.getExpression() == null ? "" : v.getExpression();
    if (expression.isBlank()) {
      c.add(required(at + ".expression", "expression is not specified"));
    } else {
      expression(expression, at + ".expression", hasParams, declared, c);
    }
    String messageExpression = v.getMessageExpression();
    if (messageExpression != null && !messageExpression.isEmpty()) {
      if (messageExpression.isBlank()) {
        c.add(
            invalid(
                at + ".messageExpression",
                quote(messageExpression),
                "must be non-empty if specified"));
      } else {
        expression(messageExpression, at + ".messageExpression", hasParams, declared, c);
      }
    }
    String message = v.getMessage();
    if (message != null && !message.isEmpty()) {
      if (message.isBlank()) {
        c.add(invalid(at + ".message", quote(message), "message must be non-empty if specified"));
      } else if (message.strip().contains("\n") || message.strip().contains("\r")) {
        c.add(invalid(at + ".message", quote(message), "message must not contain line breaks"));
      }
    }
    if (v.getReason() != null && !REASONS.contains(v.getReason())) {
      c.add(notSupported(at + ".reason", v.getReason(), REASONS));
    }
  }

  /** {@code validateMatchConditions}, shared with nothing else yet but kept apart as Kubernetes. */
  static void matchConditions(
      List<MatchCondition> conditions, String at, boolean hasParams, List<StatusCause> c) {
    if (conditions.size() > 64) {
      c.add(
          new StatusCause(
              "FieldValueTooMany",
              "Too many: " + conditions.size() + ": must have at most 64 items",
              at));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < conditions.size(); i++) {
      MatchCondition condition = conditions.get(i);
      String item = at + "[" + i + "]";
      String expression = condition.getExpression() == null ? "" : condition.getExpression();
      if (expression.isBlank()) {
        c.add(required(item + ".expression"));
      } else {
        expression(expression.strip(), item + ".expression", hasParams, Set.of(), c);
      }
      String name = condition.getName() == null ? "" : condition.getName();
      if (name.isEmpty()) {
        c.add(required(item + ".name"));
      } else {
        c.addAll(Names.qualifiedName(item + ".name", name));
        if (!names.add(name)) {
          c.add(duplicate(item + ".name", name));
        }
      }
    }
  }

  /**
   * The expression compiles with the policy's variables, and names no variable not declared before
   * it: kube-apiserver's {@code compilation failed: ...} or {@code undefined field 'x'}.
   */
  private static void expression(
      String expression, String at, boolean hasParams, Set<String> declared, List<StatusCause> c) {
    CelExpressions.Compiled compiled = PolicyExpressions.compile(expression, hasParams);
    if (!compiled.ok()) {
      c.add(invalid(at, quote(expression), "compilation failed: " + compiled.error()));
      return;
    }
    Matcher reference = VARIABLE_REFERENCE.matcher(expression);
    while (reference.find()) {
      if (!declared.contains(reference.group(1))) {
        c.add(
            invalid(
                at,
                quote(expression),
                "compilation failed: ERROR: <input>: undefined field '"
                    + reference.group(1)
                    + "'"));
        return;
      }
    }
  }

  private static void paramKind(ParamKind kind, List<StatusCause> c) {
    String apiVersion = kind.getApiVersion() == null ? "" : kind.getApiVersion();
    if (apiVersion.isEmpty()) {
      c.add(required("spec.paramKind.apiVersion"));
    } else {
      int slashes = apiVersion.length() - apiVersion.replace("/", "").length();
      String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
      if (slashes > 1) {
        c.add(
            invalid(
                "spec.paramKind.apiVersion",
                quote(apiVersion),
                "unexpected GroupVersion string: " + apiVersion));
      } else if (version.isEmpty()) {
        c.add(invalid("spec.paramKind.apiVersion", quote(apiVersion), "version must be specified"));
      }
    }
    if (kind.getKind() == null || kind.getKind().isEmpty()) {
      c.add(required("spec.paramKind.kind"));
    }
  }

  static boolean isCelIdentifier(String name) {
    return CEL_IDENTIFIER.matcher(name).matches() && !CEL_RESERVED.contains(name);
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Validations",
                  "integer",
                  "Validations indicates the number of validation rules defined in this"
                      + " configuration"),
              col(
                  "ParamKind",
                  "string",
                  "ParamKind specifies the kind of resources used to parameterize this policy"),
              age()),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            JsonNode paramKind = spec.path("paramKind");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add((long) spec.path("validations").size());
            cells.add(
                paramKind.isObject()
                    ? paramKind.path("apiVersion").asText("")
                        + "/"
                        + paramKind.path("kind").asText("")
                    : "<unset>");
            cells.add(age(o, now));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
