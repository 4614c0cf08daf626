package io.streamplane.kinds.admissionregistration;

import io.streamplane.kinds.cel.CelExpressions;
import java.util.Set;
import java.util.TreeSet;

/**
 * The CEL expressions of a ValidatingAdmissionPolicy, as kube-apiserver compiles them: which
 * variables each kind of expression sees ({@code object}, {@code oldObject}, {@code request},
 * {@code namespaceObject}, {@code variables}, and {@code params} when the policy has a {@code
 * paramKind}), over the one CEL engine CRD validation rules use ({@link CelExpressions}). The
 * strategy compiles them to refuse a policy whose expressions do not compile; the admission plugin
 * compiles (from the same cache) and evaluates them.
 *
 * <p>Limits: every variable is dynamically typed, so what kube-apiserver's type checking against
 * the matched kinds' schemas would find is found only when an expression is evaluated; {@code
 * authorizer} is not declared, so an expression naming it does not compile.
 */
public final class PolicyExpressions {

  /** The engine, shared: an expression is compiled once per text and variables. */
  public static final CelExpressions CEL = new CelExpressions();

  private static final Set<String> BASE =
      Set.of("object", "oldObject", "request", "namespaceObject", "variables");

  private PolicyExpressions() {}

  /** The variables an expression of a policy with ({@code hasParams}) or without params sees. */
  public static Set<String> variables(boolean hasParams) {
    Set<String> variables = new TreeSet<>(BASE);
    if (hasParams) {
      variables.add("params");
    }
    return variables;
  }

  /** The expression compiled with the variables of a policy with or without params. */
  public static CelExpressions.Compiled compile(String expression, boolean hasParams) {
    return CEL.compile(expression, variables(hasParams));
  }
}
