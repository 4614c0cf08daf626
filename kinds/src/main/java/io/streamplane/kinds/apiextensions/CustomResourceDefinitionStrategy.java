package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.CustomObject;
import io.streamplane.log.StatusCause;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.avro.specific.SpecificRecord;

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition, as kube-apiserver's {@code
 * apiextensions-apiserver/pkg/registry/customresourcedefinition} strategy and {@code
 * apis/apiextensions/validation} treat it: v1's defaults (singular, listKind, conversion {@code
 * None}), the {@code customresourcecleanup.apiextensions.k8s.io} finalizer on create, and the
 * validation of the name ({@code <plural>.<group>}), group, names, scope, versions (exactly one
 * storage version), each version's schema (a structural root of type object, a type for every
 * specified field, compilable patterns), subresources and printer columns. Printed with the API
 * server's default columns, NAME and CREATED AT.
 *
 * <p>The definition is stored as a {@link CustomObject} (see docs/custom-resources.md), so the
 * validation reads its JSON. The rules of {@code x-kubernetes-validations} must compile, and a
 * {@code Webhook} conversion needs one of url or service and review versions v1 or v1beta1. Limits:
 * the rules' cost is not estimated; {@code allOf}/{@code anyOf}/{@code oneOf} and the structural
 * rules about them are not checked.
 */
public final class CustomResourceDefinitionStrategy implements KindStrategy {

  public static final String CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

  private static final Pattern DNS1035 = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Set<String> COLUMN_TYPES =
      Set.of("integer", "number", "string", "boolean", "date");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    ObjectNode names = spec.with("names");
    String kind = names.path("kind").asText("");
    if (!kind.isEmpty() && names.path("singular").asText("").isEmpty()) {
      names.put("singular", kind.toLowerCase(Locale.ROOT));
    }
    if (!kind.isEmpty() && names.path("listKind").asText("").isEmpty()) {
      names.put("listKind", kind + "List");
    }
    if (!spec.has("conversion")) {
      spec.putObject("conversion").put("strategy", "None");
    }
  }

  @Override
  public void prepareForCreate(ObjectNode object) {
    object.remove("status");
    ArrayNode finalizers = object.with("metadata").withArray("finalizers");
    for (JsonNode f : finalizers) {
      if (f.asText().equals(CLEANUP_FINALIZER)) {
        return;
      }
    }
    finalizers.add(CLEANUP_FINALIZER);
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public Object spec(SpecificRecord object) {
    return object instanceof CustomObject custom ? custom.getContent() : null;
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    if (!(object instanceof CustomObject crd)) {
      return List.of();
    }
    return validate(crd.getMetadata().getName(), CustomObjects.members(crd).path("spec"));
  }

  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    if (object instanceof CustomObject crd && old instanceof CustomObject before) {
      JsonNode spec = CustomObjects.members(crd).path("spec");
      JsonNode was = CustomObjects.members(before).path("spec");
      if (!spec.path("group").equals(was.path("group"))) {
        causes.add(
            FieldErrors.invalid("spec.group", quoted(spec.path("group")), "field is immutable"));
      }
      if (!spec.path("names").path("plural").equals(was.path("names").path("plural"))) {
        causes.add(
            FieldErrors.invalid(
                "spec.names.plural",
                quoted(spec.path("names").path("plural")),
                "field is immutable"));
      }
      if (!spec.path("scope").equals(was.path("scope"))) {
        causes.add(
            FieldErrors.invalid("spec.scope", quoted(spec.path("scope")), "field is immutable"));
      }
    }
    return causes;
  }

  /** The causes of a definition named {@code name} with this {@code spec} being refused. */
  static List<StatusCause> validate(String name, JsonNode spec) {
    List<StatusCause> causes = new ArrayList<>();
    String group = spec.path("group").asText("");
    JsonNode names = spec.path("names");
    String plural = names.path("plural").asText("");
    if (!name.equals(plural + "." + group)) {
      causes.add(
          FieldErrors.invalid(
              "metadata.name",
              FieldErrors.quote(name),
              "must be spec.names.plural+\".\"+spec.group"));
    }
    if (group.isEmpty()) {
      causes.add(FieldErrors.required("spec.group"));
    } else {
      causes.addAll(Names.subdomain("spec.group", group));
      if (!group.contains(".")) {
        causes.add(
            FieldErrors.invalid(
                "spec.group",
                FieldErrors.quote(group),
                "should be a domain with at least one dot"));
      }
    }
    String scope = spec.path("scope").asText("");
    if (scope.isEmpty()) {
      causes.add(FieldErrors.required("spec.scope"));
    } else if (!scope.equals("Cluster") && !scope.equals("Namespaced")) {
      causes.add(FieldErrors.notSupported("spec.scope", scope, List.of("Cluster", "Namespaced")));
    }
    validateNames(names, causes);
    validateConversion(spec.path("conversion"), causes);
    validateVersions(spec.path("versions"), causes);
    return causes;
  }

  /**
   * apiextensions' {@code validateCustomResourceConversion}, with its internal field names ({@code
   * webhookClientConfig}, {@code conversionReviewVersions} directly under {@code conversion}) in
   * the messages, as kube-apiserver reports them for v1.
   */
  private static void validateConversion(JsonNode conversion, List<StatusCause> causes) {
    String path = "spec.conversion";
    String strategy = conversion.path("strategy").asText("None");
    JsonNode webhook = conversion.path("webhook");
    JsonNode clientConfig = webhook.path("clientConfig");
    JsonNode reviewVersions = webhook.path("conversionReviewVersions");
    if (!strategy.equals("Webhook")) {
      if (!strategy.equals("None")) {
        causes.add(
            FieldErrors.notSupported(path + ".strategy", strategy, List.of("None", "Webhook")));
      }
      if (clientConfig.isObject()) {
        causes.add(
            FieldErrors.forbidden(
                path + ".webhookClientConfig",
                "should not be set when strategy is not set to Webhook"));
      }
      if (reviewVersions.isArray() && !reviewVersions.isEmpty()) {
        causes.add(
            FieldErrors.forbidden(
                path + ".conversionReviewVersions",
                "should not be set when strategy is not set to Webhook"));
      }
      return;
    }
    if (!clientConfig.isObject()) {
      causes.add(
          FieldErrors.required(
              path + ".webhookClientConfig", "required when strategy is set to Webhook"));
    } else if (clientConfig.hasNonNull("url") == clientConfig.path("service").isObject()) {
      causes.add(
          FieldErrors.required(
              path + ".webhookClientConfig", "exactly one of url or service is required"));
    } else if (clientConfig.hasNonNull("url")) {
      String url = clientConfig.path("url").asText();
      try {
        URI uri = new URI(url);
        if (!"https".equals(uri.getScheme())) {
          causes.add(
              FieldErrors.invalid(
                  path + ".webhookClientConfig.url",
                  FieldErrors.quote(uri.getScheme() == null ? "" : uri.getScheme()),
                  "'https' is the only allowed URL scheme"));
        } else if (uri.getHost() == null || uri.getHost().isEmpty()) {
          causes.add(
              FieldErrors.invalid(
                  path + ".webhookClientConfig.url",
                  FieldErrors.quote(url),
                  "host must be specified"));
        }
      } catch (URISyntaxException e) {
        causes.add(
            FieldErrors.invalid(
                path + ".webhookClientConfig.url",
                FieldErrors.quote(url),
                "url must be a valid URL: " + e.getMessage()));
      }
    } else {
      JsonNode service = clientConfig.path("service");
      if (service.path("name").asText("").isEmpty()) {
        causes.add(
            FieldErrors.required(
                path + ".webhookClientConfig.service.name", "service name is required"));
      }
      if (service.path("namespace").asText("").isEmpty()) {
        causes.add(
            FieldErrors.required(
                path + ".webhookClientConfig.service.namespace", "service namespace is required"));
      }
      int port = service.path("port").asInt(443);
      if (port < 1 || port > 65535) {
        causes.add(
            FieldErrors.invalid(
                path + ".webhookClientConfig.service.port",
                String.valueOf(port),
                "port is not valid: must be between 1 and 65535, inclusive"));
      }
    }
    List<String> versions = new ArrayList<>();
    reviewVersions.forEach(v -> versions.add(v.asText()));
    if (versions.isEmpty()) {
      causes.add(FieldErrors.required(path + ".conversionReviewVersions", ""));
    } else if (!versions.contains("v1") && !versions.contains("v1beta1")) {
      causes.add(
          FieldErrors.invalid(
              path + ".conversionReviewVersions",
              "[]string{\"" + String.join("\", \"", versions) + "\"}",
              "must include at least one of v1, v1beta1"));
    }
  }

  private static void validateNames(JsonNode names, List<StatusCause> causes) {
    label(names, "plural", "spec.names.plural", true, causes);
    label(names, "singular", "spec.names.singular", false, causes);
    String kind = names.path("kind").asText("");
    if (kind.isEmpty()) {
      causes.add(FieldErrors.required("spec.names.kind"));
    } else if (!DNS1035.matcher(kind.toLowerCase(Locale.ROOT)).matches() || kind.length() > 63) {
      causes.add(
          FieldErrors.invalid(
              "spec.names.kind",
              FieldErrors.quote(kind),
              "may have mixed case, but should otherwise match: " + DNS1035.pattern()));
    }
    String listKind = names.path("listKind").asText("");
    if (!listKind.isEmpty() && listKind.equals(kind)) {
      causes.add(
          FieldErrors.invalid(
              "spec.names.listKind",
              FieldErrors.quote(listKind),
              "kind and listKind may not be the same or parsing become ambiguous"));
    }
    int i = 0;
    for (JsonNode shortName : names.path("shortNames")) {
      String value = shortName.asText();
      if (!DNS1035.matcher(value).matches()) {
        causes.add(
            FieldErrors.invalid(
                "spec.names.shortNames[" + i + "]",
                FieldErrors.quote(value),
                "a DNS-1035 label must consist of lower case alphanumeric"
                    + " characters or '-', start with an alphabetic character, and end with an"
                    + " alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for"
                    + " validation is '"
                    + DNS1035.pattern()
                    + "')"));
      }
      i++;
    }
    i = 0;
    for (JsonNode category : names.path("categories")) {
      if (!DNS1035.matcher(category.asText()).matches()) {
        causes.add(
            FieldErrors.invalid(
                "spec.names.categories[" + i + "]",
                FieldErrors.quote(category.asText()),
                "must be a DNS-1035 label"));
      }
      i++;
    }
  }

  private static void label(
      JsonNode names, String field, String path, boolean required, List<StatusCause> causes) {
    String value = names.path(field).asText("");
    if (value.isEmpty()) {
      if (required) {
        causes.add(FieldErrors.required(path));
      }
      return;
    }
    if (!DNS1035.matcher(value).matches() || value.length() > 63) {
      causes.add(
          FieldErrors.invalid(
              path,
              FieldErrors.quote(value),
              "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-',"
                  + " and must start and end with an alphanumeric character"));
    }
  }

  private static void validateVersions(JsonNode versions, List<StatusCause> causes) {
    if (!versions.isArray() || versions.isEmpty()) {
      causes.add(
          FieldErrors.invalid(
              "spec.versions",
              "null",
              "must have exactly one version" + " marked as storage version"));
      return;
    }
    int storage = 0;
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < versions.size(); i++) {
      JsonNode version = versions.get(i);
      String path = "spec.versions[" + i + "]";
      String name = version.path("name").asText("");
      if (name.isEmpty()) {
        causes.add(FieldErrors.required(path + ".name"));
      } else if (!DNS1035.matcher(name).matches()) {
        causes.add(
            FieldErrors.invalid(
                path + ".name",
                FieldErrors.quote(name),
                "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start"
                    + " with an alphabetic character, and end with an alphanumeric character"));
      } else if (!seen.add(name)) {
        causes.add(FieldErrors.duplicate(path + ".name", name));
      }
      if (version.path("storage").asBoolean(false)) {
        storage++;
      }
      JsonNode schema = version.path("schema").path("openAPIV3Schema");
      if (schema.isMissingNode() || schema.isNull()) {
        causes.add(FieldErrors.required(path + ".schema.openAPIV3Schema", "schemas are required"));
      } else {
        validateSchema(schema, path + ".schema.openAPIV3Schema", true, causes);
        causes.addAll(ValidationRules.costErrors(schema, path + ".schema.openAPIV3Schema"));
      }
      validateSubresources(version.path("subresources"), path + ".subresources", causes);
      validateColumns(
          version.path("additionalPrinterColumns"), path + ".additionalPrinterColumns", causes);
      validateSelectableFields(
          version.path("selectableFields"), schema, path + ".selectableFields", causes);
    }
    if (storage != 1) {
      causes.add(
          FieldErrors.invalid(
              "spec.versions",
              versionsShown(versions),
              "must have exactly one version marked as storage version"));
    }
    boolean served = false;
    for (JsonNode version : versions) {
      served |= version.path("served").asBoolean(false);
    }
    if (!served) {
      causes.add(
          FieldErrors.invalid(
              "spec.versions",
              versionsShown(versions),
              "must have at least one version marked as served"));
    }
  }

  private static String versionsShown(JsonNode versions) {
    List<String> shown = new ArrayList<>();
    versions.forEach(v -> shown.add(v.path("name").asText("")));
    return "[]apiextensions.CustomResourceDefinitionVersion{" + String.join(", ", shown) + "}";
  }

  /** The structural rules kube-apiserver checks of a schema (a subset; see the class comment). */
  private static void validateSchema(
      JsonNode schema, String path, boolean root, List<StatusCause> causes) {
    if (!schema.isObject()) {
      causes.add(
          FieldErrors.invalid(
              path, "\"" + StructuralSchema.jsonType(schema) + "\"", "must be an object"));
      return;
    }
    boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    boolean intOrString = schema.path("x-kubernetes-int-or-string").asBoolean(false);
    String type = schema.path("type").asText("");
    if (root && !type.equals("object")) {
      if (type.isEmpty()) {
        causes.add(FieldErrors.required(path + ".type", "must not be empty at the root"));
      } else {
        causes.add(
            FieldErrors.invalid(
                path + ".type", FieldErrors.quote(type), "must be object at the root"));
      }
    } else if (!root && type.isEmpty() && !preserve && !intOrString) {
      causes.add(
          FieldErrors.required(path + ".type", "must not be empty for specified object fields"));
    } else if (!type.isEmpty()
        && !Set.of("object", "array", "string", "integer", "number", "boolean").contains(type)) {
      causes.add(
          FieldErrors.notSupported(
              path + ".type",
              type,
              List.of("array", "boolean", "integer", "number", "object", "string")));
    }
    if (type.equals("array") && !schema.has("items")) {
      causes.add(FieldErrors.required(path + ".items", "must be specified"));
    }
    if (schema.path("uniqueItems").asBoolean(false)) {
      causes.add(
          FieldErrors.forbidden(
              path + ".uniqueItems",
              "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
    }
    ListTypes.validateMarkers(schema, path, causes);
    causes.addAll(ValidationRules.compileErrors(schema, path));
    validateJunctors(schema, path, intOrString, causes);
    if (schema.has("pattern") && StructuralSchema.pattern(schema.get("pattern").asText()) == null) {
      causes.add(
          FieldErrors.invalid(
              path + ".pattern",
              FieldErrors.quote(schema.get("pattern").asText()),
              "must be a valid regular expression"));
    }
    if (schema.has("properties")
        && schema.has("additionalProperties")
        && !schema.get("additionalProperties").isBoolean()) {
      causes.add(
          FieldErrors.forbidden(
              path + ".additionalProperties",
              "additionalProperties and properties are mutual exclusive"));
    }
    schema
        .path("properties")
        .fields()
        .forEachRemaining(
            p ->
                validateSchema(
                    p.getValue(), path + ".properties[" + p.getKey() + "]", false, causes));
    if (schema.path("items").isObject()) {
      validateSchema(schema.get("items"), path + ".items", false, causes);
    } else if (schema.path("items").isArray()) {
      causes.add(
          FieldErrors.forbidden(path + ".items", "items must be a schema object and not an array"));
    }
    if (schema.path("additionalProperties").isObject()) {
      validateSchema(
          schema.get("additionalProperties"), path + ".additionalProperties", false, causes);
    }
  }

  /** Fields a value validation under a junctor may not have, and why, as structural schemas say. */
  private static final List<List<String>> NOT_IN_JUNCTORS =
      List.of(
          List.of("type", "must be empty to be structural"),
          List.of("additionalProperties", "must be undefined to be structural"),
          List.of("default", "must be undefined to be structural"),
          List.of("title", "must be empty to be structural"),
          List.of("description", "must be empty to be structural"),
          List.of("nullable", "must be false to be structural"),
          List.of("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
          List.of("x-kubernetes-embedded-resource", "must be false to be structural"),
          List.of("x-kubernetes-int-or-string", "must be false to be structural"),
          List.of("x-kubernetes-list-map-keys", "must be empty to be structural"),
          List.of("x-kubernetes-list-type", "must be undefined to be structural"),
          List.of("x-kubernetes-map-type", "must be undefined to be structural"),
          List.of("x-kubernetes-validations", "must be empty to be structural"));

  /**
   * The {@code allOf}, {@code anyOf}, {@code oneOf} and {@code not} of a schema node: value
   * validations only, as structural schemas allow them; an int-or-string's {@code anyOf} (and its
   * first {@code allOf}'s) may name the types.
   */
  private static void validateJunctors(
      JsonNode schema, String path, boolean intOrString, List<StatusCause> causes) {
    if (!intOrString) {
      nestedEach(schema.path("anyOf"), path + ".anyOf", false, causes);
    }
    JsonNode allOf = schema.path("allOf");
    for (int i = 0; i < allOf.size(); i++) {
      validateNested(allOf.get(i), path + ".allOf[" + i + "]", intOrString && i == 0, causes);
    }
    nestedEach(schema.path("oneOf"), path + ".oneOf", false, causes);
    if (schema.path("not").isObject()) {
      validateNested(schema.get("not"), path + ".not", false, causes);
    }
  }

  private static void nestedEach(
      JsonNode alternatives, String path, boolean skipAnyOf, List<StatusCause> causes) {
    for (int i = 0; i < alternatives.size(); i++) {
      validateNested(alternatives.get(i), path + "[" + i + "]", skipAnyOf, causes);
    }
  }

  private static void validateNested(
      JsonNode nested, String path, boolean skipAnyOf, List<StatusCause> causes) {
    if (!nested.isObject()) {
      return;
    }
    validateJunctors(nested, path, skipAnyOf, causes);
    if (nested.path("items").isObject()) {
      validateNested(nested.get("items"), path + ".items", false, causes);
    }
    nested
        .path("properties")
        .fields()
        .forEachRemaining(
            p ->
                validateNested(
                    p.getValue(), path + ".properties[" + p.getKey() + "]", false, causes));
    for (List<String> rule : NOT_IN_JUNCTORS) {
      JsonNode value = nested.get(rule.get(0));
      if (value != null && !value.isNull() && !isUnset(value)) {
        causes.add(FieldErrors.forbidden(path + "." + rule.get(0), rule.get(1)));
      }
    }
    if (nested.path("properties").has("metadata")) {
      causes.add(
          FieldErrors.forbidden(
              path + ".properties[metadata]", "must not be specified in a nested context"));
    }
    if (nested.has("pattern") && StructuralSchema.pattern(nested.get("pattern").asText()) == null) {
      causes.add(
          FieldErrors.invalid(
              path + ".pattern",
              FieldErrors.quote(nested.get("pattern").asText()),
              "must be a valid regular expression"));
    }
  }

  /** false, "" and [] are Go's zero values: a field holding one is not set. */
  private static boolean isUnset(JsonNode value) {
    return (value.isBoolean() && !value.asBoolean())
        || (value.isTextual() && value.asText().isEmpty())
        || (value.isArray() && value.isEmpty());
  }

  private static void validateSubresources(
      JsonNode subresources, String path, List<StatusCause> causes) {
    JsonNode scale = subresources.path("scale");
    if (!scale.isObject()) {
      return;
    }
    String specReplicas = scale.path("specReplicasPath").asText("");
    if (specReplicas.isEmpty()) {
      causes.add(FieldErrors.required(path + ".scale.specReplicasPath"));
    } else if (!specReplicas.startsWith(".spec.")) {
      causes.add(
          FieldErrors.invalid(
              path + ".scale.specReplicasPath",
              FieldErrors.quote(specReplicas),
              "should be a json path under .spec"));
    }
    String statusReplicas = scale.path("statusReplicasPath").asText("");
    if (statusReplicas.isEmpty()) {
      causes.add(FieldErrors.required(path + ".scale.statusReplicasPath"));
    } else if (!statusReplicas.startsWith(".status.")) {
      causes.add(
          FieldErrors.invalid(
              path + ".scale.statusReplicasPath",
              FieldErrors.quote(statusReplicas),
              "should be a json path under .status"));
    }
    String selector = scale.path("labelSelectorPath").asText("");
    if (!selector.isEmpty() && !selector.startsWith(".spec.") && !selector.startsWith(".status.")) {
      causes.add(
          FieldErrors.invalid(
              path + ".scale.labelSelectorPath",
              FieldErrors.quote(selector),
              "should be a json path under either .spec or .status"));
    }
  }

  /** At most this many distinct selectable fields per version. */
  private static final int MAX_SELECTABLE_FIELDS = 8;

  /**
   * Each selectable field a simple path (no array notation) to a string, boolean or integer field
   * of the schema outside metadata, each once, at most eight.
   */
  private static void validateSelectableFields(
      JsonNode fields, JsonNode schema, String path, List<StatusCause> causes) {
    Set<String> unique = new HashSet<>();
    for (int i = 0; i < fields.size(); i++) {
      String at = path + "[" + i + "].jsonPath";
      String jsonPath = fields.get(i).path("jsonPath").asText("");
      if (jsonPath.isEmpty()) {
        causes.add(FieldErrors.required(at));
        continue;
      }
      List<String> names = new ArrayList<>();
      JsonNode found;
      try {
        found = fieldSchema(jsonPath, schema, names);
      } catch (IllegalArgumentException e) {
        causes.add(
            FieldErrors.invalid(
                at, FieldErrors.quote(jsonPath), "is an invalid path: " + e.getMessage()));
        continue;
      }
      if (names.get(0).equals("metadata")) {
        causes.add(
            FieldErrors.invalid(
                at, FieldErrors.quote(jsonPath), "must not point to fields in metadata"));
      }
      if (!Set.of("string", "boolean", "integer").contains(found.path("type").asText(""))) {
        causes.add(
            FieldErrors.invalid(
                at,
                FieldErrors.quote(jsonPath),
                "must point to a field of type string, boolean or integer. Enum string fields and"
                    + " strings with formats are allowed."));
      }
      if (!unique.add(String.join(".", names))) {
        causes.add(FieldErrors.duplicate(at, jsonPath));
      }
    }
    if (unique.size() > MAX_SELECTABLE_FIELDS) {
      causes.add(FieldErrors.tooMany(path, unique.size(), MAX_SELECTABLE_FIELDS));
    }
  }

  /**
   * The schema a simple JSON path ({@code .spec.color}) names, its field names added to {@code
   * names}; throws IllegalArgumentException worded as apiextensions' {@code ValidFieldPath}.
   */
  private static JsonNode fieldSchema(String jsonPath, JsonNode schema, List<String> names) {
    JsonNode at = schema;
    int i = 0;
    while (i < jsonPath.length()) {
      char c = jsonPath.charAt(i);
      if (c == '[') {
        throw new IllegalArgumentException("array notation is not allowed");
      }
      int end = i + 1;
      while (end < jsonPath.length() && ".[]".indexOf(jsonPath.charAt(end)) < 0) {
        end++;
      }
      if (c != '.') {
        throw new IllegalArgumentException(
            "expected [ or . but got: " + jsonPath.substring(i, end));
      }
      if (end == i + 1) {
        if (end == jsonPath.length()) {
          throw new IllegalArgumentException("unexpected end of JSON path");
        }
        throw new IllegalArgumentException("does not refer to a valid field");
      }
      String name = jsonPath.substring(i + 1, end);
      if (at.path("properties").isObject()) {
        at = at.path("properties").path(name);
        if (at.isMissingNode()) {
          throw new IllegalArgumentException("does not refer to a valid field");
        }
      } else if (at.path("additionalProperties").isObject()) {
        at = at.path("additionalProperties");
      } else {
        throw new IllegalArgumentException("does not refer to a valid field");
      }
      names.add(name);
      i = end;
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("unexpected end of JSON path");
    }
    return at;
  }

  private static void validateColumns(JsonNode columns, String path, List<StatusCause> causes) {
    for (int i = 0; i < columns.size(); i++) {
      JsonNode column = columns.get(i);
      String at = path + "[" + i + "]";
      if (column.path("name").asText("").isEmpty()) {
        causes.add(FieldErrors.required(at + ".name"));
      }
      String type = column.path("type").asText("");
      if (type.isEmpty()) {
        causes.add(FieldErrors.required(at + ".type"));
      } else if (!COLUMN_TYPES.contains(type)) {
        causes.add(
            FieldErrors.notSupported(
                at + ".type", type, List.of("boolean", "date", "integer", "number", "string")));
      }
      String jsonPath = column.path("jsonPath").asText("");
      if (jsonPath.isEmpty()) {
        causes.add(FieldErrors.required(at + ".jsonPath"));
      } else if (!JsonPaths.valid(jsonPath)) {
        causes.add(
            FieldErrors.invalid(
                at + ".jsonPath",
                FieldErrors.quote(jsonPath),
                "must be a simple json path starting with ."));
      }
    }
  }

  private static String quoted(JsonNode value) {
    return FieldErrors.quote(value.asText(""));
  }
}
