package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.ResourceType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Label and field selectors as list and watch requests carry them ({@code labelSelector}, {@code
 * fieldSelector}), parsed with the grammar of Kubernetes' {@code labels.Parse} and {@code
 * fields.ParseSelector} and matched against Kubernetes JSON objects.
 *
 * <p>Contract: parse methods throw {@link ApiException} with a 400 BadRequest body on bad syntax,
 * invalid label keys or values, and field labels the kind does not index ({@code field label not
 * supported: x}), so an unsupported filter is refused rather than silently ignored. Requirements
 * are kept sorted by key, as Kubernetes does, so {@link LabelSelector#toString()} is canonical (it
 * is what {@code kubectl get -o wide} shows in SELECTOR columns).
 *
 * <p>Limits: set-based field selectors do not exist in Kubernetes and are not accepted; the field
 * sets per kind are those of kube-apiserver 1.32 for the kinds Streamplane serves.
 */
public final class Selectors {

  private Selectors() {}

  // ================================================================== labels

  /** The operators of {@code selection.Operator}, with the text {@code String()} prints. */
  public enum Operator {
    EQUALS("="),
    DOUBLE_EQUALS("=="),
    NOT_EQUALS("!="),
    IN(" in "),
    NOT_IN(" notin "),
    EXISTS(""),
    DOES_NOT_EXIST(""),
    GREATER_THAN(">"),
    LESS_THAN("<");

    private final String text;

    Operator(String text) {
      this.text = text;
    }
  }

  /** One requirement: {@code key op values}. Values are sorted, as Kubernetes keeps them. */
  public record Requirement(String key, Operator operator, List<String> values) {

    public Requirement {
      values = List.copyOf(new TreeSet<>(values));
    }

    public boolean matches(Map<String, String> labels) {
      boolean has = labels.containsKey(key);
      String value = labels.get(key);
      return switch (operator) {
        case EQUALS, DOUBLE_EQUALS, IN -> has && values.contains(value);
        case NOT_EQUALS, NOT_IN -> !has || !values.contains(value);
        case EXISTS -> has;
        case DOES_NOT_EXIST -> !has;
        case GREATER_THAN, LESS_THAN -> {
          if (!has) {
            yield false;
          }
          long actual;
          try {
            actual = Long.parseLong(value);
          } catch (NumberFormatException e) {
            yield false;
          }
          long bound = Long.parseLong(values.get(0));
          yield operator == Operator.GREATER_THAN ? actual > bound : actual < bound;
        }
      };
    }

    @Override
    public String toString() {
      return switch (operator) {
        case DOES_NOT_EXIST -> "!" + key;
        case EXISTS -> key;
        case IN, NOT_IN -> key + operator.text + "(" + String.join(",", values) + ")";
        default -> key + operator.text + values.get(0);
      };
    }
  }

  /**
   * A conjunction of requirements. {@link #everything()} matches all objects; {@link #nothing()}
   * (what a null {@code LabelSelector} means in a spec) matches none.
   */
  public record LabelSelector(List<Requirement> requirements, boolean matchesNothing) {

    public LabelSelector {
      requirements = requirements.stream().sorted(Comparator.comparing(Requirement::key)).toList();
    }

    public static LabelSelector everything() {
      return new LabelSelector(List.of(), false);
    }

    public static LabelSelector nothing() {
      return new LabelSelector(List.of(), true);
    }

    public boolean isEverything() {
      return !matchesNothing && requirements.isEmpty();
    }

    public boolean matches(Map<String, String> labels) {
      return !matchesNothing && requirements.stream().allMatch(r -> r.matches(labels));
    }

    /** Matches an object's {@code metadata.labels}. */
    public boolean matches(ObjectNode object) {
      return matches(labelsOf(object));
    }

    @Override
    public String toString() {
      return requirements.stream().map(Requirement::toString).collect(Collectors.joining(","));
    }
  }

  /** The {@code metadata.labels} of an object, empty when absent. */
  public static Map<String, String> labelsOf(JsonNode object) {
    Map<String, String> labels = new LinkedHashMap<>();
    JsonNode node = object.path("metadata").path("labels");
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      labels.put(e.getKey(), e.getValue().asText());
    }
    return labels;
  }

  /** Parses a {@code labelSelector} query parameter; null or blank selects everything. */
  public static LabelSelector parseLabels(String selector) {
    if (selector == null || selector.isBlank()) {
      return LabelSelector.everything();
    }
    try {
      return new LabelParser(selector).parse();
    } catch (IllegalArgumentException e) {
      throw Statuses.exception(
          Statuses.badRequest("unable to parse requirement: " + e.getMessage()));
    }
  }

  /**
   * Converts a {@code metav1.LabelSelector} JSON (a spec's {@code selector}) as {@code
   * LabelSelectorAsSelector} does: null or missing matches nothing, empty matches everything.
   */
  public static LabelSelector fromLabelSelector(JsonNode selector) {
    if (selector == null || selector.isMissingNode() || selector.isNull()) {
      return LabelSelector.nothing();
    }
    List<Requirement> requirements = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = selector.path("matchLabels").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      requirements.add(
          new Requirement(e.getKey(), Operator.EQUALS, List.of(e.getValue().asText())));
    }
    for (JsonNode expr : selector.path("matchExpressions")) {
      String key = expr.path("key").asText();
      List<String> values = new ArrayList<>();
      expr.path("values").forEach(v -> values.add(v.asText()));
      String op = expr.path("operator").asText();
      Operator operator =
          switch (op) {
            case "In" -> Operator.IN;
            case "NotIn" -> Operator.NOT_IN;
            case "Exists" -> Operator.EXISTS;
            case "DoesNotExist" -> Operator.DOES_NOT_EXIST;
            default ->
                throw Statuses.exception(
                    Statuses.badRequest(
                        FieldError.goQuote(op) + " is not a valid label selector operator"));
          };
      requirements.add(new Requirement(key, operator, values));
    }
    return new LabelSelector(requirements, false);
  }

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  static void validateLabelKey(String key) {
    String name = key;
    int slash = key.indexOf('/');
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      name = key.substring(slash + 1);
      if (prefix.isEmpty() || prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
        throw new IllegalArgumentException(
            "invalid label key "
                + FieldError.goQuote(key)
                + ": prefix part must be a DNS subdomain");
      }
    }
    if (name.isEmpty() || name.length() > 63 || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "invalid label key "
              + FieldError.goQuote(key)
              + ": name part must consist of alphanumeric characters, '-', '_' or '.', and must"
              + " start and end with an alphanumeric character");
    }
  }

  static void validateLabelValue(String key, String value) {
    if (!value.isEmpty() && (value.length() > 63 || !NAME.matcher(value).matches())) {
      throw new IllegalArgumentException(
          "invalid label value: "
              + FieldError.goQuote(value)
              + ": at key: "
              + FieldError.goQuote(key)
              + ": a valid label must be an empty string or consist of alphanumeric characters,"
              + " '-', '_' or '.', and must start and end with an alphanumeric character");
    }
  }

  /** A recursive-descent parser over the tokens of Kubernetes' label lexer. */
  private static final class LabelParser {
    private final List<String> tokens = new ArrayList<>();
    private int pos;

    LabelParser(String input) {
      int i = 0;
      while (i < input.length()) {
        char c = input.charAt(i);
        if (Character.isWhitespace(c)) {
          i++;
        } else if (input.startsWith("!=", i) || input.startsWith("==", i)) {
          tokens.add(input.substring(i, i + 2));
          i += 2;
        } else if ("!(),=<>".indexOf(c) >= 0) {
          tokens.add(String.valueOf(c));
          i++;
        } else {
          int start = i;
          while (i < input.length()
              && !Character.isWhitespace(input.charAt(i))
              && "!(),=<>".indexOf(input.charAt(i)) < 0) {
            i++;
          }
          tokens.add(input.substring(start, i));
        }
      }
    }

    private String peek() {
      return pos < tokens.size() ? tokens.get(pos) : "";
    }

    private String next() {
      return pos < tokens.size() ? tokens.get(pos++) : "";
    }

    private static boolean isIdentifier(String t) {
      return !t.isEmpty() && "!(),=<>".indexOf(t.charAt(0)) < 0;
    }

    LabelSelector parse() {
      List<Requirement> requirements = new ArrayList<>();
      while (true) {
        requirements.add(requirement());
        String t = next();
        if (t.isEmpty()) {
          return new LabelSelector(requirements, false);
        }
        if (!t.equals(",")) {
          throw new IllegalArgumentException("found '" + t + "', expected: ',' or 'end of string'");
        }
      }
    }

    private Requirement requirement() {
      boolean negated = false;
      if (peek().equals("!")) {
        next();
        negated = true;
      }
      String key = next();
      if (!isIdentifier(key)) {
        throw new IllegalArgumentException("found '" + key + "', expected: identifier");
      }
      validateLabelKey(key);
      if (negated) {
        return new Requirement(key, Operator.DOES_NOT_EXIST, List.of());
      }
      String op = peek();
      if (op.isEmpty() || op.equals(",")) {
        return new Requirement(key, Operator.EXISTS, List.of());
      }
      next();
      Operator operator =
          switch (op) {
            case "=" -> Operator.EQUALS;
            case "==" -> Operator.DOUBLE_EQUALS;
            case "!=" -> Operator.NOT_EQUALS;
            case "in" -> Operator.IN;
            case "notin" -> Operator.NOT_IN;
            case ">" -> Operator.GREATER_THAN;
            case "<" -> Operator.LESS_THAN;
            default ->
                throw new IllegalArgumentException(
                    "found '" + op + "', expected: =, !=, ==, in, notin");
          };
      List<String> values = new ArrayList<>();
      if (operator == Operator.IN || operator == Operator.NOT_IN) {
        String open = next();
        if (!open.equals("(")) {
          throw new IllegalArgumentException("found '" + open + "', expected: '('");
        }
        if (!peek().equals(")")) {
          while (true) {
            values.add(isIdentifier(peek()) ? next() : "");
            String t = next();
            if (t.equals(")")) {
              break;
            }
            if (!t.equals(",")) {
              throw new IllegalArgumentException(
                  "found '" + t + "', expected: ',', ')' or identifier");
            }
          }
        } else {
          next();
        }
        if (values.isEmpty()) {
          throw new IllegalArgumentException(
              "for 'in', 'notin' operators, values set can't be empty");
        }
      } else {
        String v = isIdentifier(peek()) ? next() : "";
        if (operator == Operator.GREATER_THAN || operator == Operator.LESS_THAN) {
          try {
            Long.parseLong(v);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                "for 'Gt', 'Lt' operators, the value must be an integer");
          }
        }
        values.add(v);
      }
      for (String v : values) {
        if (operator != Operator.GREATER_THAN && operator != Operator.LESS_THAN) {
          validateLabelValue(key, v);
        }
      }
      return new Requirement(key, operator, values);
    }
  }

  // ================================================================== fields

  /** One field requirement: {@code field=value} or {@code field!=value}. */
  public record FieldRequirement(String field, boolean equal, String value) {
    @Override
    public String toString() {
      return field + (equal ? "=" : "!=") + escape(value);
    }
  }

  /** A conjunction of field requirements over the fields a kind indexes. */
  public record FieldSelector(
      List<FieldRequirement> requirements, Map<String, Function<JsonNode, String>> fields) {

    public FieldSelector {
      requirements = List.copyOf(requirements);
    }

    public boolean isEverything() {
      return requirements.isEmpty();
    }

    public boolean matches(ObjectNode object) {
      for (FieldRequirement r : requirements) {
        String actual = fields.get(r.field()).apply(object);
        if (actual.equals(r.value()) != r.equal()) {
          return false;
        }
      }
      return true;
    }

    /** The single value required for a field by {@code field=value}, for index lookups. */
    public java.util.Optional<String> requiredValue(String field) {
      return requirements.stream()
          .filter(r -> r.equal() && r.field().equals(field))
          .map(FieldRequirement::value)
          .findFirst();
    }

    @Override
    public String toString() {
      return requirements.stream().map(FieldRequirement::toString).collect(Collectors.joining(","));
    }
  }

  /**
   * Parses a {@code fieldSelector} for a kind; null or blank selects everything. Fails with
   * BadRequest on syntax errors and on fields the kind does not index.
   */
  public static FieldSelector parseFields(String selector, ResourceType type) {
    Map<String, Function<JsonNode, String>> fields = selectableFields(type);
    if (selector == null || selector.isBlank()) {
      return new FieldSelector(List.of(), fields);
    }
    List<String> parts = splitTerms(selector);
    parts.sort(null);
    List<FieldRequirement> requirements = new ArrayList<>();
    for (String part : parts) {
      if (part.isEmpty()) {
        continue;
      }
      String[] term = splitTerm(part);
      if (term == null) {
        throw badField("invalid selector: '" + selector + "'; can't understand '" + part + "'");
      }
      String field = term[0];
      String value;
      try {
        value = unescape(term[2]);
      } catch (IllegalArgumentException e) {
        throw badField(e.getMessage());
      }
      if (!fields.containsKey(field)) {
        throw badField(type.strategy().unknownFieldLabel(field));
      }
      requirements.add(new FieldRequirement(field, !term[1].equals("!="), value));
    }
    return new FieldSelector(requirements, fields);
  }

  /** The field labels a kind can be selected by, and how to read each from its JSON. */
  public static Map<String, Function<JsonNode, String>> selectableFields(ResourceType type) {
    return type.strategy().selectableFields();
  }

  private static ApiException badField(String message) {
    return Statuses.exception(Statuses.badRequest(message));
  }

  /** Splits on commas not escaped by a backslash. */
  private static List<String> splitTerms(String s) {
    List<String> terms = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean escaped = false;
    for (char c : s.toCharArray()) {
      if (escaped) {
        cur.append(c);
        escaped = false;
      } else if (c == '\\') {
        cur.append(c);
        escaped = true;
      } else if (c == ',') {
        terms.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    terms.add(cur.toString());
    return terms;
  }

  /** {@code [lhs, op, rhs]} at the first unescaped operator, trying != before == before =. */
  private static String[] splitTerm(String term) {
    for (int i = 0; i < term.length(); i++) {
      if (term.charAt(i) == '\\') {
        i++;
        continue;
      }
      for (String op : List.of("!=", "==", "=")) {
        if (term.startsWith(op, i)) {
          return new String[] {term.substring(0, i), op, term.substring(i + op.length())};
        }
      }
    }
    return null;
  }

  private static final Set<Character> ESCAPABLE = Set.of('\\', ',', '=');

  private static String unescape(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        if (i + 1 >= s.length() || !ESCAPABLE.contains(s.charAt(i + 1))) {
          throw new IllegalArgumentException("invalid field selector: invalid escape sequence");
        }
        b.append(s.charAt(++i));
      } else if (c == ',' || c == '=') {
        throw new IllegalArgumentException(
            "invalid field selector: unescaped " + c + " in value " + FieldError.goQuote(s));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=");
  }
}
