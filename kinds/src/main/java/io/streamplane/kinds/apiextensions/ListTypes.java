package io.streamplane.kinds.apiextensions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.JsonValues;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The list and map markers of a custom resource schema, {@code x-kubernetes-list-type} ({@code
 * atomic}, {@code set}, {@code map}), {@code x-kubernetes-list-map-keys} and {@code
 * x-kubernetes-map-type} ({@code atomic}, {@code granular}): their validation in a definition, as
 * apiextensions' {@code validation} checks them, and the uniqueness they demand of an object's
 * lists, as its {@code listtype} validation checks it ({@code Duplicate value: "a"}). Server-side
 * apply reads the same markers in the gateway.
 *
 * <p>Pure functions.
 */
final class ListTypes {

  private ListTypes() {}

  /** The causes of a definition's schema node {@code schema} at {@code path} being refused. */
  static void validateMarkers(JsonNode schema, String path, List<StatusCause> causes) {
    String type = schema.path("type").asText("");
    JsonNode items = schema.path("items");
    JsonNode listType = schema.get("x-kubernetes-list-type");
    List<String> keys = new ArrayList<>();
    schema.path("x-kubernetes-list-map-keys").forEach(k -> keys.add(k.asText()));
    if (listType != null) {
      String list = listType.asText();
      if (!type.equals("array")) {
        causes.add(
            type.isEmpty()
                ? FieldErrors.required(
                    path + ".type", "must be array if x-kubernetes-list-type is specified")
                : FieldErrors.invalid(
                    path + ".type",
                    FieldErrors.quote(type),
                    "must be array if x-kubernetes-list-type is specified"));
      } else if (list.equals("set") && items.isObject()) {
        String itemType = items.path("type").asText("");
        String itemList = items.path("x-kubernetes-list-type").asText("");
        if (itemType.equals("array") && !itemList.isEmpty() && !itemList.equals("atomic")) {
          causes.add(
              FieldErrors.invalid(
                  path + ".items.x-kubernetes-list-type",
                  FieldErrors.quote(itemList),
                  "must be atomic as item of a list with x-kubernetes-list-type=set"));
        } else if (itemType.equals("object")
            && !items.path("x-kubernetes-map-type").asText("").equals("atomic")) {
          // kube-apiserver shows the items' list type here, which an object does not have.
          causes.add(
              FieldErrors.invalid(
                  path + ".items.x-kubernetes-map-type",
                  FieldErrors.quote(itemList.isEmpty() ? "null" : itemList),
                  "must be atomic as item of a list with x-kubernetes-list-type=set"));
        }
      }
      if (!Set.of("atomic", "set", "map").contains(list)) {
        causes.add(
            FieldErrors.notSupported(
                path + ".x-kubernetes-list-type", list, List.of("atomic", "set", "map")));
      }
      if (list.equals("map")) {
        validateListMap(schema, keys, path, causes);
      }
    }
    JsonNode mapType = schema.get("x-kubernetes-map-type");
    if (mapType != null) {
      if (!type.equals("object")) {
        causes.add(
            type.isEmpty()
                ? FieldErrors.required(
                    path + ".type", "must be object if x-kubernetes-map-type is specified")
                : FieldErrors.invalid(
                    path + ".type",
                    FieldErrors.quote(type),
                    "must be object if x-kubernetes-map-type is specified"));
      }
      if (!mapType.asText().equals("atomic") && !mapType.asText().equals("granular")) {
        causes.add(
            FieldErrors.notSupported(
                path + ".x-kubernetes-map-type", mapType.asText(), List.of("atomic", "granular")));
      }
    }
    if (!keys.isEmpty()) {
      if (listType == null) {
        causes.add(
            FieldErrors.required(
                path + ".x-kubernetes-list-type",
                "must be map if x-kubernetes-list-map-keys is non-empty"));
      } else if (!listType.asText().equals("map")) {
        causes.add(
            FieldErrors.invalid(
                path + ".x-kubernetes-list-type",
                FieldErrors.quote(listType.asText()),
                "must be map if x-kubernetes-list-map-keys is non-empty"));
      }
    }
    if (listType != null
        && (listType.asText().equals("set") || listType.asText().equals("map"))
        && items.isObject()) {
      validateKeysAndNullable(schema, keys, path, causes);
    }
  }

  private static void validateListMap(
      JsonNode schema, List<String> keys, String path, List<StatusCause> causes) {
    if (keys.isEmpty()) {
      causes.add(
          FieldErrors.required(
              path + ".x-kubernetes-list-map-keys",
              "must not be empty if x-kubernetes-list-type is map"));
    }
    JsonNode items = schema.path("items");
    if (items.isMissingNode() || items.isNull()) {
      causes.add(
          FieldErrors.required(
              path + ".items", "must have a schema if x-kubernetes-list-type is map"));
      return;
    }
    String itemType = items.path("type").asText("");
    if (!itemType.equals("object")) {
      causes.add(
          FieldErrors.invalid(
              path + ".items.type",
              FieldErrors.quote(itemType),
              "must be object if parent array's x-kubernetes-list-type is map"));
      return;
    }
    Set<String> seen = new HashSet<>();
    String shownKeys = goStrings(keys);
    for (String key : keys) {
      JsonNode property = items.path("properties").get(key);
      if (property == null) {
        causes.add(
            FieldErrors.invalid(
                path + ".x-kubernetes-list-map-keys",
                shownKeys,
                "entries must all be names of item properties"));
      } else {
        String keyType = property.path("type").asText("");
        if (keyType.equals("array") || keyType.equals("object")) {
          causes.add(
              FieldErrors.invalid(
                  path + ".items.properties[" + key + "].type",
                  FieldErrors.quote(itemType),
                  "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
      }
      if (!seen.add(key)) {
        causes.add(
            FieldErrors.invalid(
                path + ".x-kubernetes-list-map-keys",
                shownKeys,
                "must not contain duplicate entries"));
      }
    }
  }

  /** A set's or map's items are never null; a map's keys are required or defaulted, not null. */
  private static void validateKeysAndNullable(
      JsonNode schema, List<String> keys, String path, List<StatusCause> causes) {
    JsonNode items = schema.path("items");
    String listType = schema.path("x-kubernetes-list-type").asText();
    if (items.path("nullable").asBoolean(false)) {
      causes.add(
          FieldErrors.forbidden(
              path + ".items.nullable",
              "cannot be nullable when x-kubernetes-list-type is " + listType));
    }
    if (!listType.equals("map")) {
      return;
    }
    Set<String> required = new HashSet<>();
    items.path("required").forEach(r -> required.add(r.asText()));
    for (String key : keys) {
      JsonNode property = items.path("properties").get(key);
      if (property == null) {
        continue;
      }
      String at = path + ".items.properties[" + key + "]";
      if (!required.contains(key) && !property.has("default")) {
        causes.add(
            FieldErrors.required(
                at + ".default",
                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a"
                    + " required property"));
      }
      if (property.path("nullable").asBoolean(false)) {
        causes.add(
            FieldErrors.forbidden(
                at + ".nullable",
                "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
      }
    }
  }

  /**
   * The causes of an object's list {@code array}, whose schema is {@code schema}, being invalid.
   */
  static void validateUniqueness(
      ArrayNode array, JsonNode schema, String path, List<StatusCause> causes) {
    switch (schema.path("x-kubernetes-list-type").asText("")) {
      case "set" -> duplicates(array, path, causes);
      case "map" -> duplicateKeys(array, schema.path("x-kubernetes-list-map-keys"), path, causes);
      default -> {}
    }
  }

  /**
   * apiextensions' {@code listtype} validation of a set: every element after the first of a value
   * that appears more than once is a duplicate, once per value.
   */
  private static void duplicates(ArrayNode array, String path, List<StatusCause> causes) {
    List<JsonNode> elements = new ArrayList<>();
    array.forEach(elements::add);
    for (int i : repeated(elements)) {
      causes.add(duplicate(path + "[" + i + "]", goSyntax(elements.get(i))));
    }
  }

  /** The same for a list map: the elements' keys (the key fields they have) must be unique. */
  private static void duplicateKeys(
      ArrayNode array, JsonNode keyFields, String path, List<StatusCause> causes) {
    for (int i = 0; i < array.size(); i++) {
      JsonNode element = array.get(i);
      if (!element.isObject() && !element.isNull()) {
        causes.add(
            FieldErrors.invalid(
                path + "[" + i + "]",
                goSyntax(element),
                "must be an object for an array of list-type map"));
        return;
      }
    }
    List<JsonNode> keys = new ArrayList<>();
    for (JsonNode element : array) {
      ObjectNode key = JsonNodeFactory.instance.objectNode();
      for (JsonNode field : keyFields) {
        if (element.has(field.asText())) {
          key.set(field.asText(), element.get(field.asText()));
        }
      }
      keys.add(key);
    }
    for (int i : repeated(keys)) {
      causes.add(duplicate(path + "[" + i + "]", goSyntax(keys.get(i))));
    }
  }

  /** The index of each value's second appearance, in order. */
  private static List<Integer> repeated(List<JsonNode> values) {
    List<Integer> indexes = new ArrayList<>();
    List<JsonNode> seen = new ArrayList<>();
    List<Integer> times = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      int at = -1;
      for (int j = 0; j < seen.size(); j++) {
        if (JsonValues.same(seen.get(j), values.get(i))) {
          at = j;
          break;
        }
      }
      if (at < 0) {
        seen.add(values.get(i));
        times.add(1);
      } else {
        times.set(at, times.get(at) + 1);
        if (times.get(at) == 2) {
          indexes.add(i);
        }
      }
    }
    return indexes;
  }

  /**
   * A decoded JSON value as a field error prints it: strings quoted, numbers and booleans bare,
   * objects and arrays as Go's {@code %#v} of {@code map[string]interface {}} and {@code
   * []interface {}} (keys sorted).
   */
  private static String goSyntax(JsonNode value) {
    if (value.isTextual()) {
      return FieldErrors.quote(value.asText());
    }
    if (value.isObject()) {
      List<String> names = new ArrayList<>();
      value.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      List<String> entries = new ArrayList<>();
      names.forEach(n -> entries.add(FieldErrors.quote(n) + ":" + goSyntax(value.get(n))));
      return "map[string]interface {}{" + String.join(", ", entries) + "}";
    }
    if (value.isArray()) {
      List<String> items = new ArrayList<>();
      value.forEach(v -> items.add(goSyntax(v)));
      return "[]interface {}{" + String.join(", ", items) + "}";
    }
    if (value.isNull()) {
      return "interface {}(nil)";
    }
    return value.asText();
  }

  private static StatusCause duplicate(String path, String shown) {
    return new StatusCause("FieldValueDuplicate", "Duplicate value: " + shown, path);
  }

  /** A []string as Go's {@code %#v} prints it. */
  private static String goStrings(List<String> values) {
    List<String> quoted = new ArrayList<>();
    values.forEach(v -> quoted.add(FieldErrors.quote(v)));
    return "[]string{" + String.join(", ", quoted) + "}";
  }
}
