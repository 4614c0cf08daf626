package io.streamplane.kinds.cel;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.extensions.CelStringExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Common Expression Language over Kubernetes JSON, as kube-apiserver 1.32 evaluates the expressions
 * of CRD validation rules and admission policies: expressions are compiled once per text and set of
 * variables (every variable dynamically typed, the standard macros {@code has}, {@code all}, {@code
 * exists}, {@code exists_one}, {@code map}, {@code filter}), with the extensions Kubernetes enables
 * (strings at version 2, sets, optional types) and Kubernetes' own libraries ({@link
 * KubernetesLibrary}: lists, regex, urls, quantity, ip, cidr, format), and evaluated over JSON
 * values turned into CEL's: objects into maps, arrays into lists, integers into {@code int}, other
 * numbers into {@code double}; a JSON null leaves its field out, so {@code has()} is false for it.
 *
 * <p>Contract: thread-safe; a compiled expression is shared; an evaluation is bounded by its cost
 * ({@link CelCost}), as in Kubernetes, not by a count of iterations. Limits: no two-variable
 * comprehensions (Kubernetes 1.32 does not offer them either).
 */
public final class CelExpressions {

  /** A compiled expression, or why it does not compile. */
  public record Compiled(CelRuntime.Program program, CelAbstractSyntaxTree ast, String error) {
    public boolean ok() {
      return program != null;
    }
  }

  /** What an expression evaluated to, and its runtime cost. */
  public record Evaluation(Object value, long cost) {}

  private static final CelOptions OPTIONS =
      CelOptions.current().enableHeterogeneousNumericComparisons(true).build();

  /** Kubernetes 1.32's strings extension is version 2: everything but {@code reverse}. */
  private static final CelStringExtensions STRINGS =
      CelExtensions.strings(EnumSet.complementOf(EnumSet.of(CelStringExtensions.Function.REVERSE)));

  /**
   * The strings extension for the compiler: its {@code indexOf} and {@code lastIndexOf} are
   * declared by {@link KubernetesLibrary#indexDeclarations} together with the list library's.
   */
  private static final CelStringExtensions STRINGS_BUT_INDEXES =
      CelExtensions.strings(
          EnumSet.complementOf(
              EnumSet.of(
                  CelStringExtensions.Function.REVERSE,
                  CelStringExtensions.Function.INDEX_OF,
                  CelStringExtensions.Function.LAST_INDEX_OF)));

  private final Map<String, Compiled> compiled = new ConcurrentHashMap<>();
  private final CelRuntime runtime =
      CelRuntimeFactory.standardCelRuntimeBuilder()
          .setOptions(OPTIONS)
          .addLibraries(STRINGS, CelExtensions.sets(OPTIONS), CelExtensions.optional())
          .addFunctionBindings(KubernetesLibrary.bindings())
          .build();

  /** The expression compiled with these variables declared; cached by text and variables. */
  public Compiled compile(String expression, Set<String> variables) {
    return compiled.computeIfAbsent(
        String.join(",", new java.util.TreeSet<>(variables)) + "\n" + expression,
        key -> compileAnew(expression, variables));
  }

  private Compiled compileAnew(String expression, Set<String> variables) {
    var builder =
        CelCompilerFactory.standardCelCompilerBuilder()
            .setOptions(OPTIONS)
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addLibraries(
                STRINGS_BUT_INDEXES, CelExtensions.sets(OPTIONS), CelExtensions.optional())
            .addFunctionDeclarations(KubernetesLibrary.declarations())
            .addFunctionDeclarations(
                KubernetesLibrary.indexDeclarations(
                    CelExtensions.strings(
                            CelStringExtensions.Function.INDEX_OF,
                            CelStringExtensions.Function.LAST_INDEX_OF)
                        .functions()));
    for (String variable : variables) {
      builder.addVar(variable, SimpleType.DYN);
    }
    CelCompiler compiler = builder.build();
    try {
      CelValidationResult result = compiler.compile(expression);
      if (result.hasError()) {
        return new Compiled(null, null, result.getErrorString());
      }
      CelAbstractSyntaxTree ast = result.getAst();
      return new Compiled(runtime.createProgram(ast), ast, null);
    } catch (CelValidationException | CelEvaluationException | RuntimeException e) {
      return new Compiled(null, null, e.getMessage());
    }
  }

  /**
   * Evaluates a compiled expression with the variables bound to these JSON values, within the
   * per-call cost limit ({@link CelCost#PER_CALL_LIMIT}).
   *
   * @throws CelEvaluationException when evaluation fails (no such key, a type mismatch, the cost
   *     limit reached: {@link CelCost#LIMIT_EXCEEDED}, ...)
   */
  public Object evaluate(Compiled expression, Map<String, JsonNode> variables)
      throws CelEvaluationException {
    return evaluate(expression, variables, CelCost.PER_CALL_LIMIT).value();
  }

  /**
   * Evaluates a compiled expression, cancelled with {@link CelCost#LIMIT_EXCEEDED} once its runtime
   * cost passes {@code limit}; answers the value and the cost.
   */
  public Evaluation evaluate(Compiled expression, Map<String, JsonNode> variables, long limit)
      throws CelEvaluationException {
    return evaluate(expression, variables, Set.of(), limit);
  }

  /**
   * As {@link #evaluate(Compiled, Map, long)}, the variables named in {@code optionals} bound as
   * CEL optionals: {@code optional.none()} for a missing value, else {@code optional.of(value)}.
   */
  public Evaluation evaluate(
      Compiled expression, Map<String, JsonNode> variables, Set<String> optionals, long limit)
      throws CelEvaluationException {
    Map<String, Object> bound = new LinkedHashMap<>();
    variables.forEach(
        (name, value) -> {
          if (!optionals.contains(name)) {
            bound.put(name, value(value));
          } else if (value == null || value.isMissingNode()) {
            bound.put(name, java.util.Optional.empty());
          } else {
            bound.put(name, java.util.Optional.of(value(value)));
          }
        });
    CelCost.Tracker tracker = new CelCost.Tracker(limit);
    try {
      return new Evaluation(expression.program().trace(bound, tracker), tracker.cost());
    } catch (CelCost.LimitExceeded e) {
      throw new CelEvaluationException(CelCost.LIMIT_EXCEEDED);
    } catch (CelEvaluationException e) {
      if (hasCause(e, CelCost.LimitExceeded.class)) {
        throw new CelEvaluationException(CelCost.LIMIT_EXCEEDED);
      }
      throw e;
    } catch (RuntimeException e) {
      if (hasCause(e, CelCost.LimitExceeded.class)) {
        throw new CelEvaluationException(CelCost.LIMIT_EXCEEDED);
      }
      throw e;
    }
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The estimated largest cost of a compiled expression, its variables typed by these schema nodes
   * ({@link CelCost#estimate}); 0 for an expression that did not compile.
   */
  public static long estimate(Compiled expression, Map<String, JsonNode> schemas) {
    return expression.ok() ? CelCost.estimate(expression.ast().getExpr(), schemas) : 0;
  }

  /** A JSON value as CEL holds it. */
  public static Object value(JsonNode json) {
    if (json == null || json.isNull() || json.isMissingNode()) {
      return dev.cel.common.values.NullValue.NULL_VALUE;
    }
    if (json.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (!field.getValue().isNull()) {
          map.put(field.getKey(), value(field.getValue()));
        }
      }
      return map;
    }
    if (json.isArray()) {
      List<Object> list = new ArrayList<>();
      json.forEach(item -> list.add(value(item)));
      return list;
    }
    if (json.isIntegralNumber()) {
      return json.longValue();
    }
    if (json.isNumber()) {
      return json.doubleValue();
    }
    if (json.isBoolean()) {
      return json.booleanValue();
    }
    return json.asText();
  }
}
