package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.JsonValues;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.log.StatusCause;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A custom resource version's {@code openAPIV3Schema} applied to an object as kube-apiserver's
 * apiextensions-apiserver applies it: pruning of the fields the schema does not specify ({@code
 * structural/pruning}), defaulting ({@code structural/defaulting}, also of nulls in non-nullable
 * fields), and validation of types, formats, enums, patterns, bounds, lengths, item counts,
 * required fields, {@code nullable}, {@code x-kubernetes-int-or-string}, {@code
 * x-kubernetes-preserve-unknown-fields} and {@code x-kubernetes-embedded-resource}, with the field
 * paths and wording of kube-openapi's validator as apiextensions turns them into field errors
 * ({@code spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to
 * 10}), and the CEL rules of {@code x-kubernetes-validations} ({@link ValidationRules}).
 *
 * <p>Contract: immutable and thread-safe; {@link #prune} and {@link #applyDefaults} change the
 * given object in place. The root's {@code apiVersion}, {@code kind} and {@code metadata} are the
 * server's, never pruned or validated here (the store validates metadata). {@code allOf}, {@code
 * anyOf}, {@code oneOf} and {@code not} validate values only (the definition's validation keeps
 * types, defaults and pruning out of them); sets and list maps hold no duplicates ({@link
 * ListTypes}). Limits: patterns are Java regular expressions (ECMA-262 in Kubernetes, alike for the
 * common cases).
 */
public final class StructuralSchema {

  private static final Set<String> ROOT_META = Set.of("apiVersion", "kind", "metadata");
  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  private final JsonNode schema;
  private final boolean hasDefaults;

  public StructuralSchema(JsonNode schema) {
    this.schema =
        schema == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : schema;
    this.hasDefaults = anyDefault(this.schema);
  }

  public JsonNode schema() {
    return schema;
  }

  // ------------------------------------------------------------------------------ pruning

  /**
   * Removes every field the schema does not specify, and nulls where the schema has no {@code
   * nullable: true}; returns the removed fields' paths ({@code spec.foo}), for a warning or a
   * strict decoding error.
   */
  public List<String> prune(ObjectNode object) {
    List<String> pruned = new ArrayList<>();
    pruneObject(object, schema, "", true, pruned);
    return pruned;
  }

  private void pruneValue(JsonNode value, JsonNode s, String path, List<String> pruned) {
    if (s.path("x-kubernetes-embedded-resource").asBoolean(false)
        && value.path("metadata") instanceof ObjectNode meta) {
      pruneEmbeddedMeta(meta, path + ".metadata", pruned);
    }
    if (s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
        && !s.has("properties")
        && !s.has("items")
        && !s.has("additionalProperties")) {
      return;
    }
    if (value instanceof ObjectNode object) {
      pruneObject(
          object, s, path, s.path("x-kubernetes-embedded-resource").asBoolean(false), pruned);
    } else if (value instanceof ArrayNode array && s.has("items")) {
      for (int i = 0; i < array.size(); i++) {
        pruneValue(array.get(i), s.get("items"), path + "[" + i + "]", pruned);
      }
    }
  }

  private void pruneObject(
      ObjectNode object, JsonNode s, String path, boolean keepsTypeMeta, List<String> pruned) {
    boolean preserve = s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    JsonNode properties = s.path("properties");
    JsonNode additional = s.get("additionalProperties");
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = field.getKey();
      String fieldPath = path.isEmpty() ? name : path + "." + name;
      if (keepsTypeMeta && ROOT_META.contains(name)) {
        continue;
      }
      JsonNode fieldSchema;
      if (properties.has(name)) {
        fieldSchema = properties.get(name);
      } else if (additional != null && additional.isObject()) {
        fieldSchema = additional;
      } else if (preserve || (additional != null && additional.asBoolean(false))) {
        continue;
      } else {
        pruned.add(fieldPath);
        it.remove();
        continue;
      }
      if (field.getValue().isNull() && !fieldSchema.path("nullable").asBoolean(false)) {
        // kube-apiserver drops nulls the schema does not allow before defaulting.
        it.remove();
        continue;
      }
      pruneValue(field.getValue(), fieldSchema, fieldPath, pruned);
    }
  }

  /** An embedded resource's metadata keeps only ObjectMeta's fields, as its decoder would. */
  private static void pruneEmbeddedMeta(ObjectNode meta, String path, List<String> pruned) {
    Set<String> known =
        Set.of(
            "name",
            "generateName",
            "namespace",
            "labels",
            "annotations",
            "finalizers",
            "ownerReferences",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "managedFields",
            "selfLink");
    for (Iterator<String> it = meta.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!known.contains(name)) {
        pruned.add(path + "." + name);
        it.remove();
      }
    }
  }

  // ------------------------------------------------------------------------------ defaulting

  /** Whether any node of the schema has a {@code default}: else defaulting changes nothing. */
  public boolean hasDefaults() {
    return hasDefaults;
  }

  private static boolean anyDefault(JsonNode node) {
    if (node.isObject()) {
      if (node.has("default")) {
        return true;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (!field.getKey().equals("x-kubernetes-validations")
            && !field.getKey().equals("enum")
            && !field.getKey().equals("example")
            && anyDefault(field.getValue())) {
          return true;
        }
      }
    } else if (node.isArray()) {
      for (JsonNode item : node) {
        if (anyDefault(item)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Sets the schema's {@code default} of every absent field (and of nulls it does not allow). */
  public void applyDefaults(ObjectNode object) {
    defaultValue(object, schema);
  }

  private static void defaultValue(JsonNode value, JsonNode s) {
    if (value instanceof ObjectNode object) {
      JsonNode properties = s.path("properties");
      for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> property = it.next();
        JsonNode current = object.get(property.getKey());
        JsonNode def = property.getValue().get("default");
        boolean nullable = property.getValue().path("nullable").asBoolean(false);
        if (def != null && (current == null || (current.isNull() && !nullable))) {
          object.set(property.getKey(), def.deepCopy());
        }
      }
      JsonNode additional = s.get("additionalProperties");
      object
          .fields()
          .forEachRemaining(
              f -> {
                JsonNode fieldSchema =
                    properties.has(f.getKey())
                        ? properties.get(f.getKey())
                        : additional != null && additional.isObject() ? additional : null;
                if (fieldSchema != null) {
                  defaultValue(f.getValue(), fieldSchema);
                }
              });
    } else if (value instanceof ArrayNode array && s.has("items")) {
      for (JsonNode item : array) {
        defaultValue(item, s.get("items"));
      }
    }
  }

  // ------------------------------------------------------------------------------ validation

  /** Everything wrong with a new object, as the causes of a 422 Invalid; empty when valid. */
  public List<StatusCause> validate(JsonNode object) {
    return validate(object, null);
  }

  /**
   * Everything wrong with the object, as the causes of a 422 Invalid; empty when valid. {@code
   * old}: the object it replaces (null on a create), for the transition rules ({@code oldSelf}).
   */
  public List<StatusCause> validate(JsonNode object, JsonNode old) {
    List<StatusCause> causes = new ArrayList<>();
    if (!object.isObject()) {
      causes.add(FieldErrors.invalid("<root>", goType(object), "must be of type object"));
      return causes;
    }
    JsonNode previous = old == null ? MissingNode.getInstance() : old;
    try (var budget = ValidationRules.budget()) {
      validateObjectMembers(object, previous, schema, "", true, causes);
      validateJunctors(object, schema, "", causes);
      ValidationRules.check(schema, object, previous, "", causes);
    }
    return causes;
  }

  private void validate(
      JsonNode value, JsonNode old, JsonNode s, String path, List<StatusCause> causes) {
    if (value.isNull()) {
      if (!s.path("nullable").asBoolean(false) && s.has("type")) {
        causes.add(typeError(path, "null", s.path("type").asText()));
      }
      return;
    }
    boolean intOrString = s.path("x-kubernetes-int-or-string").asBoolean(false);
    String type = s.path("type").asText("");
    if (intOrString) {
      if (!value.isIntegralNumber() && !value.isTextual()) {
        causes.add(
            FieldErrors.invalid(
                path,
                quote(jsonType(value)),
                path + " in body must be of type integer,string: " + quote(jsonType(value))));
        return;
      }
    } else if (!type.isEmpty() && !hasType(value, type)) {
      causes.add(typeError(path, jsonType(value), type));
      return;
    }
    JsonNode enumValues = s.get("enum");
    if (enumValues != null && enumValues.isArray()) {
      boolean found = false;
      for (JsonNode allowed : enumValues) {
        if (JsonValues.same(allowed, value)) {
          found = true;
          break;
        }
      }
      if (!found) {
        List<String> supported = new ArrayList<>();
        enumValues.forEach(v -> supported.add(v.isTextual() ? v.asText() : v.toString()));
        causes.add(FieldErrors.notSupported(path, display(value), supported));
      }
    }
    if (value.isTextual()) {
      validateString(value.asText(), s, path, causes);
    } else if (value.isNumber()) {
      validateNumber(value, s, path, causes);
    } else if (value.isArray()) {
      validateArray((ArrayNode) value, old, s, path, causes);
    } else if (value.isObject()) {
      validateObjectMembers(
          value, old, s, path, s.path("x-kubernetes-embedded-resource").asBoolean(false), causes);
    }
    validateJunctors(value, s, path, causes);
    ValidationRules.check(s, value, old, path, causes);
  }

  /**
   * {@code allOf}, {@code anyOf}, {@code oneOf} and {@code not}, as kube-openapi's validator
   * evaluates them and apiextensions reports them: the failed alternatives' own causes, and the
   * junctor's verdict as a cause without a field ({@code <nil>: Invalid value: "": "spec.size" must
   * validate at least one schema (anyOf)}).
   */
  private void validateJunctors(JsonNode value, JsonNode s, String path, List<StatusCause> causes) {
    JsonNode allOf = s.path("allOf");
    if (!allOf.isEmpty()) {
      int valid = 0;
      for (JsonNode alternative : allOf) {
        List<StatusCause> failed = alternative(value, alternative, path);
        causes.addAll(failed);
        valid += failed.isEmpty() ? 1 : 0;
      }
      if (valid != allOf.size()) {
        causes.add(
            junctor(
                path,
                "must validate all the schemas (allOf)" + (valid == 0 ? ". None validated" : "")));
      }
    }
    JsonNode anyOf = s.path("anyOf");
    if (!anyOf.isEmpty()) {
      List<StatusCause> failed = new ArrayList<>();
      boolean any = false;
      for (JsonNode alternative : anyOf) {
        List<StatusCause> own = alternative(value, alternative, path);
        any |= own.isEmpty();
        failed.addAll(own);
      }
      if (!any) {
        causes.add(junctor(path, "must validate at least one schema (anyOf)"));
        causes.addAll(failed);
      }
    }
    JsonNode oneOf = s.path("oneOf");
    if (!oneOf.isEmpty()) {
      List<StatusCause> failed = new ArrayList<>();
      int valid = 0;
      for (JsonNode alternative : oneOf) {
        List<StatusCause> own = alternative(value, alternative, path);
        valid += own.isEmpty() ? 1 : 0;
        failed.addAll(own);
      }
      if (valid != 1) {
        causes.add(
            junctor(
                path,
                "must validate one and only one schema (oneOf). "
                    + (valid == 0
                        ? "Found none valid"
                        : "Found " + valid + " valid alternatives")));
        if (valid == 0) {
          causes.addAll(failed);
        }
      }
    }
    JsonNode not = s.get("not");
    if (not != null && not.isObject() && alternative(value, not, path).isEmpty()) {
      causes.add(junctor(path, "must not validate the schema (not)"));
    }
  }

  /** The causes of {@code value} failing one alternative of a junctor; empty when it holds. */
  private List<StatusCause> alternative(JsonNode value, JsonNode alternative, String path) {
    List<StatusCause> causes = new ArrayList<>();
    validate(value, MissingNode.getInstance(), alternative, path, causes);
    return causes;
  }

  /** A junctor's verdict, a composite error without a field path, as apiextensions reports it. */
  private static StatusCause junctor(String path, String verdict) {
    return new StatusCause(
        "FieldValueInvalid", "Invalid value: \"\": " + quote(path) + " " + verdict, "<nil>");
  }

  private void validateString(String text, JsonNode s, String path, List<StatusCause> causes) {
    if (s.has("maxLength") && text.codePointCount(0, text.length()) > s.get("maxLength").asLong()) {
      causes.add(
          new StatusCause(
              "FieldValueTooLong",
              "Too long: may not be longer than " + s.get("maxLength").asLong(),
              path));
    }
    if (s.has("minLength") && text.codePointCount(0, text.length()) < s.get("minLength").asLong()) {
      causes.add(
          FieldErrors.invalid(
              path,
              quote(text),
              path + " in body should be at least " + s.get("minLength").asLong() + " chars long"));
    }
    if (s.has("pattern")) {
      Pattern pattern = pattern(s.get("pattern").asText());
      if (pattern != null && !pattern.matcher(text).find()) {
        causes.add(
            FieldErrors.invalid(
                path,
                quote(text),
                path + " in body should match '" + s.get("pattern").asText() + "'"));
      }
    }
    String format = s.path("format").asText("");
    if (!format.isEmpty() && !Formats.valid(format, text)) {
      causes.add(
          FieldErrors.invalid(
              path, quote(text), path + " in body must be of type " + format + ": " + quote(text)));
    }
  }

  private void validateNumber(JsonNode value, JsonNode s, String path, List<StatusCause> causes) {
    BigDecimal number = value.decimalValue();
    String shown = value.asText();
    if (s.has("maximum")) {
      BigDecimal max = s.get("maximum").decimalValue();
      boolean exclusive = s.path("exclusiveMaximum").asBoolean(false);
      if (exclusive ? number.compareTo(max) >= 0 : number.compareTo(max) > 0) {
        causes.add(
            FieldErrors.invalid(
                path,
                shown,
                path
                    + " in body should be less than "
                    + (exclusive ? "" : "or equal to ")
                    + s.get("maximum").asText()));
      }
    }
    if (s.has("minimum")) {
      BigDecimal min = s.get("minimum").decimalValue();
      boolean exclusive = s.path("exclusiveMinimum").asBoolean(false);
      if (exclusive ? number.compareTo(min) <= 0 : number.compareTo(min) < 0) {
        causes.add(
            FieldErrors.invalid(
                path,
                shown,
                path
                    + " in body should be greater than "
                    + (exclusive ? "" : "or equal to ")
                    + s.get("minimum").asText()));
      }
    }
    if (s.has("multipleOf")) {
      BigDecimal factor = s.get("multipleOf").decimalValue();
      if (factor.signum() != 0 && number.remainder(factor).signum() != 0) {
        causes.add(
            FieldErrors.invalid(
                path,
                shown,
                path + " in body should be a multiple of " + s.get("multipleOf").asText()));
      }
    }
    String format = s.path("format").asText("");
    if (format.equals("int32") && value.isIntegralNumber() && !value.canConvertToInt()) {
      causes.add(
          FieldErrors.invalid(path, shown, path + " in body must be of type int32: " + shown));
    } else if (format.equals("int64") && value.isIntegralNumber() && !value.canConvertToLong()) {
      causes.add(
          FieldErrors.invalid(path, shown, path + " in body must be of type int64: " + shown));
    }
  }

  private void validateArray(
      ArrayNode array, JsonNode old, JsonNode s, String path, List<StatusCause> causes) {
    if (s.has("maxItems") && array.size() > s.get("maxItems").asLong()) {
      causes.add(
          new StatusCause(
              "FieldValueTooMany",
              "Too many: "
                  + array.size()
                  + ": must have at most "
                  + s.get("maxItems").asLong()
                  + " items",
              path));
    }
    if (s.has("minItems") && array.size() < s.get("minItems").asLong()) {
      causes.add(
          FieldErrors.invalid(
              path,
              String.valueOf(array.size()),
              path + " in body should have at least " + s.get("minItems").asLong() + " items"));
    }
    if (s.has("items")) {
      for (int i = 0; i < array.size(); i++) {
        validate(
            array.get(i),
            correlated(array.get(i), old, s),
            s.get("items"),
            path + "[" + i + "]",
            causes);
      }
    }
    ListTypes.validateUniqueness(array, s, path, causes);
  }

  /**
   * The old list's item that {@code item} updates, for its transition rules: in a list of {@code
   * x-kubernetes-list-type: map}, the old item with the same {@code x-kubernetes-list-map-keys};
   * the items of other lists are not correlated (missing), as in kube-apiserver.
   */
  private static JsonNode correlated(JsonNode item, JsonNode old, JsonNode s) {
    if (!old.isArray() || !s.path("x-kubernetes-list-type").asText("").equals("map")) {
      return MissingNode.getInstance();
    }
    for (JsonNode candidate : old) {
      boolean same = true;
      for (JsonNode key : s.path("x-kubernetes-list-map-keys")) {
        same &= JsonValues.same(candidate.path(key.asText()), item.path(key.asText()));
      }
      if (same) {
        return candidate;
      }
    }
    return MissingNode.getInstance();
  }

  private void validateObjectMembers(
      JsonNode object,
      JsonNode old,
      JsonNode s,
      String path,
      boolean typeMeta,
      List<StatusCause> causes) {
    for (JsonNode required : s.path("required")) {
      String name = required.asText();
      if (!object.has(name)) {
        causes.add(FieldErrors.required(path.isEmpty() ? name : path + "." + name));
      }
    }
    if (s.has("maxProperties") && object.size() > s.get("maxProperties").asLong()) {
      causes.add(
          new StatusCause(
              "FieldValueTooMany",
              "Too many: "
                  + object.size()
                  + ": must have at most "
                  + s.get("maxProperties").asLong()
                  + " items",
              path));
    }
    if (typeMeta && !path.isEmpty()) {
      for (String field : List.of("apiVersion", "kind")) {
        if (object.path(field).asText("").isEmpty()) {
          causes.add(FieldErrors.required(path + "." + field, "must not be empty"));
        }
      }
    }
    JsonNode properties = s.path("properties");
    JsonNode additional = s.get("additionalProperties");
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (path.isEmpty() && ROOT_META.contains(field.getKey())) {
        continue;
      }
      if (typeMeta && ROOT_META.contains(field.getKey())) {
        continue;
      }
      String fieldPath = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
      JsonNode previous = old.path(field.getKey());
      if (properties.has(field.getKey())) {
        validate(field.getValue(), previous, properties.get(field.getKey()), fieldPath, causes);
      } else if (additional != null && additional.isObject()) {
        validate(field.getValue(), previous, additional, path + "[" + field.getKey() + "]", causes);
      }
    }
  }

  private static StatusCause typeError(String path, String actual, String expected) {
    return FieldErrors.invalid(
        path, quote(actual), path + " in body must be of type " + expected + ": " + quote(actual));
  }

  private static boolean hasType(JsonNode value, String type) {
    return switch (type) {
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      case "string" -> value.isTextual();
      case "integer" ->
          value.isIntegralNumber()
              || (value.isNumber() && value.decimalValue().stripTrailingZeros().scale() <= 0);
      case "number" -> value.isNumber();
      case "boolean" -> value.isBoolean();
      default -> true;
    };
  }

  /** The JSON type kube-openapi names in its messages. */
  static String jsonType(JsonNode value) {
    if (value.isTextual()) {
      return "string";
    }
    if (value.isIntegralNumber()) {
      return "integer";
    }
    if (value.isNumber()) {
      return "number";
    }
    if (value.isBoolean()) {
      return "boolean";
    }
    if (value.isArray()) {
      return "array";
    }
    if (value.isNull()) {
      return "null";
    }
    return "object";
  }

  private static String goType(JsonNode value) {
    return quote(jsonType(value));
  }

  private static String display(JsonNode value) {
    return value.isTextual() ? value.asText() : value.toString();
  }

  private static String quote(String text) {
    return FieldErrors.quote(text);
  }

  /** A schema's pattern compiled once; null when it does not compile (refused with the CRD). */
  static Pattern pattern(String regex) {
    try {
      return PATTERNS.computeIfAbsent(regex, Pattern::compile);
    } catch (PatternSyntaxException e) {
      return null;
    }
  }

  /** The string formats kube-openapi's validator checks, as apiextensions allows them. */
  static final class Formats {

    private static final Pattern UUID =
        Pattern.compile(
            "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                + "[0-9a-fA-F]{12}$");
    private static final Pattern HOSTNAME =
        Pattern.compile("^[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?(\\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?)*$");
    private static final Pattern EMAIL = Pattern.compile("^[^@\\s]+@[^@\\s]+$");
    private static final Pattern BYTE = Pattern.compile("^[A-Za-z0-9+/]*={0,2}$");
    private static final Pattern DURATION =
        Pattern.compile("^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h|d|w))+$");

    private Formats() {}

    static boolean valid(String format, String text) {
      return switch (format) {
        case "date-time", "datetime" -> dateTime(text);
        case "date" -> date(text);
        case "uuid" -> UUID.matcher(text).matches();
        case "hostname" -> text.length() <= 255 && HOSTNAME.matcher(text).matches();
        case "email" -> EMAIL.matcher(text).matches();
        case "byte" -> text.length() % 4 == 0 && BYTE.matcher(text).matches();
        case "duration" -> DURATION.matcher(text).matches();
        case "ipv4" -> ipv4(text);
        case "int32" -> fitsInteger(text, 32);
        case "int64" -> fitsInteger(text, 64);
        default -> true;
      };
    }

    private static boolean dateTime(String text) {
      try {
        OffsetDateTime.parse(text);
        return true;
      } catch (DateTimeParseException e) {
        return false;
      }
    }

    private static boolean date(String text) {
      try {
        LocalDate.parse(text);
        return true;
      } catch (DateTimeParseException e) {
        return false;
      }
    }

    private static boolean ipv4(String text) {
      String[] parts = text.split("\\.", -1);
      if (parts.length != 4) {
        return false;
      }
      for (String part : parts) {
        if (!part.matches("\\d{1,3}") || Integer.parseInt(part) > 255) {
          return false;
        }
      }
      return true;
    }

    private static boolean fitsInteger(String text, int bits) {
      try {
        long value = Long.parseLong(text);
        return bits == 64 || (value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE);
      } catch (NumberFormatException e) {
        return false;
      }
    }
  }
}
