package io.streamplane.kinds.cel;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kubernetes' cost limits of CEL expressions ({@code k8s.io/apiserver/pkg/apis/cel/config.go}) and
 * the static estimate they are checked against when a CustomResourceDefinition is written.
 *
 * <p>cel-java has no cost estimator and no cost tracker, so both are here. The estimate walks the
 * checked expression as cel-go's {@code checker/cost.go} does, with the sizes of {@code self} and
 * what is selected from it taken from the schema as apiextensions-apiserver sizes them ({@code
 * maxLength}, {@code maxItems}, {@code maxProperties}, else what fits in a request of {@value
 * #MAX_REQUEST_SIZE_BYTES} bytes given the smallest JSON an element can be): every identifier and
 * field selection costs 1; a function that traverses a string costs a tenth of its length, one that
 * traverses a list its length ({@code matches} the string's tenth times a quarter of the regex's
 * length); a comprehension costs its range's size times its step. The runtime cost ({@link
 * Tracker}) counts what was evaluated the same way, with the values' real sizes.
 *
 * <p>Limits: an estimate, not cel-go's to the unit: the functions' sizes of results are the largest
 * of their arguments' sizes, so a rule close to a limit may be refused here and not by
 * kube-apiserver (or the reverse).
 */
public final class CelCost {

  /** {@code PerCallLimit}: the runtime cost one evaluation of an expression may reach. */
  public static final long PER_CALL_LIMIT = 1_000_000;

  /**
   * {@code RuntimeCELCostBudget}: the runtime cost all the expressions of one request may reach.
   */
  public static final long RUNTIME_BUDGET = 10_000_000;

  /** {@code StaticEstimatedCostLimit}: the estimated cost one rule may have. */
  public static final long STATIC_ESTIMATED_COST_LIMIT = 10_000_000;

  /** {@code StaticEstimatedCRDCostLimit}: the estimated cost of all a definition's rules. */
  public static final long STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

  /** {@code DefaultMaxRequestSizeBytes}: what sizes a schema node without a bound. */
  public static final long MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

  /** cel-go's error when an evaluation reaches its cost limit. */
  public static final String LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded";

  private static final double STRING_TRAVERSAL = 0.1;
  private static final double REGEX_LENGTH = 0.25;
  private static final long LIST_CREATE = 10;
  private static final long MAP_CREATE = 30;

  private static final Set<String> STRING_TRAVERSING =
      Set.of(
          "contains",
          "startsWith",
          "endsWith",
          "find",
          "findAll",
          "split",
          "replace",
          "lowerAscii",
          "upperAscii",
          "trim",
          "substring",
          "charAt",
          "url",
          "isURL",
          "quantity",
          "isQuantity",
          "ip",
          "isIP",
          "ip.isCanonical",
          "cidr",
          "isCIDR",
          "validate",
          "_+_",
          "_==_",
          "_!=_",
          "_<_",
          "_<=_",
          "_>_",
          "_>=_",
          "indexOf",
          "lastIndexOf",
          "join",
          "base64.encode",
          "base64.decode");

  private static final Set<String> LIST_TRAVERSING =
      Set.of(
          "isSorted",
          "sum",
          "min",
          "max",
          "indexOf",
          "lastIndexOf",
          "join",
          "@in",
          "_==_",
          "_!=_",
          "_+_",
          "sets.contains",
          "sets.intersects",
          "sets.equivalent");

  private CelCost() {}

  /**
   * kube-apiserver's {@code getCostErrorMessage}: {@code <what> exceeds budget by factor of <f>
   * (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps,
   * and strings are declared)}.
   */
  public static String exceedsBudget(String what, long cost, long limit) {
    double factor = (double) cost / limit;
    String shown;
    if (factor > 100.0) {
      shown = "more than 100x";
    } else if (factor < 1.5) {
      shown = String.format(java.util.Locale.ROOT, "%fx", factor);
    } else {
      shown = String.format(java.util.Locale.ROOT, "%.1fx", factor);
    }
    return what
        + " exceeds budget by factor of "
        + shown
        + " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where"
        + " arrays, maps, and strings are declared)";
  }

  // ------------------------------------------------------------------------------ sizes

  /** The largest size a value of the schema node can have in a request: characters or members. */
  public static long maxSize(JsonNode schema) {
    if (schema == null || schema.isMissingNode()) {
      return MAX_REQUEST_SIZE_BYTES;
    }
    String type = schema.path("type").asText("");
    switch (type) {
      case "string" -> {
        if (schema.has("maxLength")) {
          return schema.get("maxLength").asLong();
        }
        return switch (schema.path("format").asText("")) {
          case "duration" -> 64;
          case "date" -> 10;
          case "date-time" -> 32;
          default -> MAX_REQUEST_SIZE_BYTES - 2;
        };
      }
      case "array" -> {
        if (schema.has("maxItems")) {
          return schema.get("maxItems").asLong();
        }
        return (MAX_REQUEST_SIZE_BYTES - 2) / (minJsonSize(schema.path("items")) + 1);
      }
      case "object" -> {
        if (schema.path("additionalProperties").isObject()
            || schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
          if (schema.has("maxProperties")) {
            return schema.get("maxProperties").asLong();
          }
          // a key of at least "" and a colon, a value, and a comma
          return (MAX_REQUEST_SIZE_BYTES - 2)
              / (minJsonSize(schema.path("additionalProperties")) + 4);
        }
        return Math.max(1, schema.path("properties").size());
      }
      default -> {
        return 1;
      }
    }
  }

  /** {@code estimateMinSizeJSON}: the fewest bytes a value of the schema node takes in JSON. */
  static long minJsonSize(JsonNode schema) {
    switch (schema.path("type").asText("")) {
      case "boolean" -> {
        return 4;
      }
      case "string", "array" -> {
        return 2;
      }
      case "object" -> {
        long size = 2;
        for (JsonNode required : schema.path("required")) {
          JsonNode property = schema.path("properties").path(required.asText());
          if (property.isMissingNode() || property.has("default")) {
            continue;
          }
          size += required.asText().length() + minJsonSize(property) + 4;
        }
        return size;
      }
      default -> {
        return 1;
      }
    }
  }

  // ------------------------------------------------------------------------------ estimate

  /** The estimated cost of an expression and the largest size of its result. */
  private record Estimate(long cost, long size, JsonNode schema) {}

  /**
   * The largest cost the expression may have, with {@code variables} typed by these schema nodes (a
   * variable missing from the map, or mapped to null, is sized as a whole request).
   */
  public static long estimate(CelExpr expression, Map<String, JsonNode> variables) {
    return new Estimator(variables).estimate(expression).cost();
  }

  private static final class Estimator {
    private final Map<String, JsonNode> schemas;
    private final Map<String, Long> sizes = new HashMap<>();

    Estimator(Map<String, JsonNode> variables) {
      this.schemas = new HashMap<>(variables);
    }

    Estimate estimate(CelExpr e) {
      return switch (e.getKind()) {
        case CONSTANT -> new Estimate(0, constantSize(e.constant()), null);
        case IDENT -> ident(e.ident().name());
        case SELECT -> select(e);
        case CALL -> call(e);
        case LIST -> {
          long cost = LIST_CREATE;
          for (CelExpr element : e.list().elements()) {
            cost = add(cost, estimate(element).cost());
          }
          yield new Estimate(cost, e.list().elements().size(), null);
        }
        case MAP -> {
          long cost = MAP_CREATE;
          for (CelExpr.CelMap.Entry entry : e.map().entries()) {
            cost = add(cost, add(estimate(entry.key()).cost(), estimate(entry.value()).cost()));
          }
          yield new Estimate(cost, e.map().entries().size(), null);
        }
        case COMPREHENSION -> comprehension(e.comprehension());
        default -> new Estimate(1, 1, null);
      };
    }

    private Estimate ident(String name) {
      if (sizes.containsKey(name)) {
        return new Estimate(1, sizes.get(name), schemas.get(name));
      }
      JsonNode schema = schemas.get(name);
      return new Estimate(1, maxSize(schema), schema);
    }

    private Estimate select(CelExpr e) {
      Estimate operand = estimate(e.select().operand());
      JsonNode schema = child(operand.schema(), e.select().field());
      return new Estimate(add(operand.cost(), 1), maxSize(schema), schema);
    }

    private Estimate call(CelExpr e) {
      CelExpr.CelCall call = e.call();
      long cost = 0;
      long largest = 0;
      long first = 0;
      JsonNode schema = null;
      boolean haveFirst = false;
      if (call.target().isPresent()) {
        Estimate target = estimate(call.target().get());
        cost = add(cost, target.cost());
        largest = target.size();
        first = target.size();
        haveFirst = true;
        schema = target.schema();
      }
      long regex = 0;
      for (CelExpr arg : call.args()) {
        Estimate estimate = estimate(arg);
        cost = add(cost, estimate.cost());
        largest = Math.max(largest, estimate.size());
        if (!haveFirst) {
          first = estimate.size();
          haveFirst = true;
          schema = estimate.schema();
        }
        regex = estimate.size();
      }
      String function = call.function();
      long own = 1;
      if (function.equals("matches")) {
        own =
            add(own, multiply(traversal(first, STRING_TRAVERSAL), traversal(regex, REGEX_LENGTH)));
      } else if (function.equals("_[_]")) {
        schema = child(schema, null);
        largest = maxSize(schema);
      } else if (LIST_TRAVERSING.contains(function) && isList(schema)) {
        own = add(own, largest);
      } else if (STRING_TRAVERSING.contains(function)) {
        own = add(own, traversal(largest, STRING_TRAVERSAL));
      } else if (function.equals("size")) {
        largest = 1;
      }
      if (!function.equals("_[_]")) {
        schema = null;
      }
      return new Estimate(add(cost, own), largest, schema);
    }

    private Estimate comprehension(CelExpr.CelComprehension c) {
      Estimate range = estimate(c.iterRange());
      JsonNode element = child(range.schema(), null);
      long elementSize = range.schema() == null ? MAX_REQUEST_SIZE_BYTES : maxSize(element);
      Estimate init = estimate(c.accuInit());
      Map<String, JsonNode> savedSchemas = new HashMap<>(schemas);
      Map<String, Long> savedSizes = new HashMap<>(sizes);
      schemas.put(c.iterVar(), element);
      sizes.put(c.iterVar(), elementSize);
      schemas.put(c.accuVar(), null);
      sizes.put(c.accuVar(), range.size());
      long step = add(estimate(c.loopCondition()).cost(), estimate(c.loopStep()).cost());
      Estimate result = estimate(c.result());
      schemas.clear();
      schemas.putAll(savedSchemas);
      sizes.clear();
      sizes.putAll(savedSizes);
      long cost = add(add(range.cost(), init.cost()), multiply(range.size(), step));
      return new Estimate(add(cost, result.cost()), range.size(), null);
    }
  }

  private static boolean isList(JsonNode schema) {
    return schema == null || schema.path("type").asText("").equals("array");
  }

  /** The schema of a field ({@code field}) or of an element (null) of a value of {@code schema}. */
  private static JsonNode child(JsonNode schema, String field) {
    if (schema == null) {
      return null;
    }
    if (schema.path("type").asText("").equals("array")) {
      return field == null ? schema.path("items") : null;
    }
    if (field != null && schema.path("properties").has(field)) {
      return schema.path("properties").get(field);
    }
    if (schema.path("additionalProperties").isObject()) {
      return schema.get("additionalProperties");
    }
    if (field == null && schema.path("properties").size() > 0) {
      return null;
    }
    return null;
  }

  private static long constantSize(CelConstant constant) {
    return switch (constant.getKind()) {
      case STRING_VALUE -> constant.stringValue().length();
      case BYTES_VALUE -> constant.bytesValue().size();
      default -> 1;
    };
  }

  static long traversal(long size, double factor) {
    return (long) Math.ceil(size * factor);
  }

  static long add(long a, long b) {
    long sum = a + b;
    return sum < 0 || sum < a ? Long.MAX_VALUE : sum;
  }

  /** {@code a * b}, saturating at {@code Long.MAX_VALUE}. */
  public static long multiply(long a, long b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    return a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
  }

  // ------------------------------------------------------------------------------ runtime

  /**
   * Counts the runtime cost of one evaluation as the listener of its trace: 1 for every identifier,
   * selection and call evaluated, plus a function's traversal of its string or list arguments; past
   * {@code limit} the evaluation is cancelled.
   */
  static final class Tracker implements dev.cel.runtime.CelEvaluationListener {
    private final long limit;
    private final Map<Long, Object> results = new HashMap<>();
    private long cost;

    Tracker(long limit) {
      this.limit = limit;
    }

    long cost() {
      return cost;
    }

    @Override
    public void callback(CelExpr expr, Object result) {
      switch (expr.getKind()) {
        case CONSTANT -> {}
        case CALL -> cost = add(cost, 1 + callCost(expr.call()));
        case LIST -> cost = add(cost, LIST_CREATE);
        case MAP -> cost = add(cost, MAP_CREATE);
        default -> cost = add(cost, 1);
      }
      if (expr.getKind() != CelExpr.ExprKind.Kind.CONSTANT) {
        results.put(expr.id(), result);
      }
      if (cost > limit) {
        throw new LimitExceeded();
      }
    }

    private long callCost(CelExpr.CelCall call) {
      String function = call.function();
      boolean strings = STRING_TRAVERSING.contains(function) || function.equals("matches");
      boolean lists = LIST_TRAVERSING.contains(function);
      if (!strings && !lists) {
        return 0;
      }
      long largest = 0;
      long first = -1;
      long last = 0;
      for (CelExpr operand : operands(call)) {
        long size = size(results.get(operand.id()), operand);
        largest = Math.max(largest, size);
        if (first < 0) {
          first = size;
        }
        last = size;
      }
      Object target =
          call.target().isPresent()
              ? results.get(call.target().get().id())
              : call.args().isEmpty() ? null : results.get(call.args().get(0).id());
      if (function.equals("matches")) {
        return multiply(traversal(first, STRING_TRAVERSAL), traversal(last, REGEX_LENGTH));
      }
      if (lists && target instanceof List<?>) {
        return largest;
      }
      return strings ? traversal(largest, STRING_TRAVERSAL) : 0;
    }

    private static List<CelExpr> operands(CelExpr.CelCall call) {
      if (call.target().isEmpty()) {
        return call.args();
      }
      java.util.ArrayList<CelExpr> operands = new java.util.ArrayList<>();
      operands.add(call.target().get());
      operands.addAll(call.args());
      return operands;
    }

    private static long size(Object value, CelExpr expr) {
      if (value == null && expr.getKind() == CelExpr.ExprKind.Kind.CONSTANT) {
        return constantSize(expr.constant());
      }
      if (value instanceof String s) {
        return s.length();
      }
      if (value instanceof List<?> l) {
        return l.size();
      }
      if (value instanceof Map<?, ?> m) {
        return m.size();
      }
      if (value instanceof com.google.protobuf.ByteString b) {
        return b.size();
      }
      return 1;
    }
  }

  /** Thrown by a {@link Tracker} to cancel an evaluation past its limit. */
  static final class LimitExceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LimitExceeded() {
      super(LIMIT_EXCEEDED, null, false, false);
    }
  }
}
