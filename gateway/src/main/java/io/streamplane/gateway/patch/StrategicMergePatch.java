package io.streamplane.gateway.patch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.JsonValues;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Strategic merge patch ({@code application/strategic-merge-patch+json}), applied the way
 * apimachinery's {@code strategicpatch.StrategicMergeMapPatch} applies it in kube-apiserver, so
 * that the patches kubectl computes ({@code apply}, {@code label}, {@code scale}, {@code set
 * image}, {@code patch}) give the result they give on a real cluster.
 *
 * <p>Semantics: maps merge recursively and {@code null} deletes a key; lists whose {@link
 * PatchSchema} field has the merge strategy are merged element by element on their merge key (or as
 * sets, for primitives), other lists are replaced. Directives: {@code $patch: replace|delete} on a
 * map or a list element, {@code $retainKeys}, {@code $setElementOrder/<field>} and {@code
 * $deleteFromPrimitiveList/<field>}. Without {@code $setElementOrder}, elements new to a merged
 * list come before the live ones, as in Kubernetes.
 *
 * <p>Contract: pure; neither argument is modified. Errors are {@link PatchException}s.
 *
 * <p>Limits and deliberate reproductions of apimachinery:
 *
 * <ul>
 *   <li>{@code $patch: merge} is refused, on maps and on list elements, as apimachinery refuses it.
 *   <li>Deleting the last element of a merge list leaves an empty list ({@code "ports": []}).
 *       Kubernetes then decodes into Go structs where {@code omitempty} drops the field, so the
 *       gateway's conversion to the stored form must treat an empty list like an absent one.
 *   <li>Values taken whole from the patch (a new map, a new list element, a replaced list) keep any
 *       directive keys nested in them, as in apimachinery; Kubernetes loses them when decoding into
 *       typed structs. kubectl never sends such patches.
 *   <li>Numbers are compared by value (Kubernetes compares int64 against float64 as different).
 *   <li>Element order follows apimachinery's exactly, including the effect of Go slice aliasing
 *       when a {@code $setElementOrder} list both deletes and adds elements; checked against the
 *       raw test cases of apimachinery's {@code patch_test.go}.
 * </ul>
 */
public final class StrategicMergePatch {

  static final String PATCH = "$patch";
  static final String RETAIN_KEYS = "$retainKeys";
  static final String SET_ELEMENT_ORDER = "$setElementOrder";
  static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private StrategicMergePatch() {}

  public static JsonNode apply(JsonNode original, JsonNode patch, PatchSchema schema) {
    Objects.requireNonNull(original, "original");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(schema, "schema");
    if (!patch.isObject()) {
      throw PatchException.badRequest(
          "a strategic merge patch must be a JSON object, got a %s", JsonValues.typeName(patch));
    }
    if (!original.isObject()) {
      throw PatchException.badRequest("invalid JSON document: the object to patch is not a map");
    }
    return mergeMap(
        ((ObjectNode) original).deepCopy(), ((ObjectNode) patch).deepCopy(), schema, "");
  }

  // The merge works on private deep copies and updates them in place, as apimachinery does.

  private static ObjectNode mergeMap(
      ObjectNode original, ObjectNode patch, PatchSchema schema, String path) {
    JsonNode directive = patch.get(PATCH);
    if (directive != null) {
      return mapDirective(directive, patch, path);
    }
    applyRetainKeys(original, patch, path);
    mergeOrderedLists(original, patch, schema, path);

    for (Map.Entry<String, JsonNode> entry : fieldsOf(patch)) {
      String key = entry.getKey();
      JsonNode patchValue = entry.getValue();
      boolean deleteList = false;
      if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        key = directiveTarget(key, DELETE_FROM_PRIMITIVE_LIST, path);
        deleteList = true;
      }
      String fieldPath = path.isEmpty() ? key : path + "." + key;
      if (patchValue.isNull()) {
        original.remove(key);
        continue;
      }
      JsonNode originalValue = original.get(key);
      if (originalValue == null || originalValue.getNodeType() != patchValue.getNodeType()) {
        if (!deleteList) {
          setWithoutDirectives(original, key, discardNulls(patchValue));
        }
        continue;
      }
      PatchSchema.Field field = schema.field(key);
      if (originalValue.isObject()) {
        original.set(
            key,
            mergeMap(
                (ObjectNode) originalValue, (ObjectNode) patchValue, field.schema(), fieldPath));
      } else if (originalValue.isArray()) {
        original.set(
            key,
            mergeListField(
                (ArrayNode) originalValue, (ArrayNode) patchValue, field, deleteList, fieldPath));
      } else {
        setWithoutDirectives(original, key, patchValue);
      }
    }
    return original;
  }

  private static ObjectNode mapDirective(JsonNode directive, ObjectNode patch, String path) {
    String value = directive.isTextual() ? directive.textValue() : directive.toString();
    switch (value) {
      case "replace":
        patch.remove(PATCH);
        return patch;
      case "delete":
        return JSON.objectNode();
      default:
        // apimachinery has never implemented "merge" for maps; it fails the same way.
        throw PatchException.badRequest(
            "unknown patch type: %s in map at %s (only replace and delete are supported)",
            value, describe(path));
    }
  }

  /** Clears the original's keys that are absent from the patch's {@code $retainKeys} list. */
  private static void applyRetainKeys(ObjectNode original, ObjectNode patch, String path) {
    JsonNode retainKeys = patch.remove(RETAIN_KEYS);
    if (retainKeys == null) {
      return;
    }
    if (!retainKeys.isArray()) {
      throw PatchException.badRequest(
          "invalid patch format of retainKeys: $retainKeys at %s must be a list", describe(path));
    }
    Set<String> retained = new HashSet<>();
    for (JsonNode key : retainKeys) {
      // Field names are strings; anything else in the list can never match one.
      if (key.isTextual()) {
        retained.add(key.textValue());
      }
    }
    for (Map.Entry<String, JsonNode> entry : fieldsOf(patch)) {
      String key = entry.getKey();
      if (entry.getValue().isNull()
          || key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
          || key.startsWith(SET_ELEMENT_ORDER)) {
        continue;
      }
      if (!retained.contains(key)) {
        throw PatchException.badRequest(
            "invalid patch format of retainKeys: field %s is set at %s but not listed in"
                + " $retainKeys",
            key, describe(path));
      }
    }
    original.retain(retained);
  }

  /**
   * Handles each {@code $setElementOrder/<field>} with its list: merges the list and then orders
   * it, the directive's order first, then the patch's, then the live object's.
   */
  private static void mergeOrderedLists(
      ObjectNode original, ObjectNode patch, PatchSchema schema, String path) {
    for (Map.Entry<String, JsonNode> entry : fieldsOf(patch)) {
      String directiveKey = entry.getKey();
      if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) {
        continue;
      }
      patch.remove(directiveKey);
      String key = directiveTarget(directiveKey, SET_ELEMENT_ORDER, path);
      String fieldPath = path.isEmpty() ? key : path + "." + key;
      if (!entry.getValue().isArray()) {
        throw PatchException.badRequest(
            "invalid patch format of setElementOrder list: %s must be a list", directiveKey);
      }
      ArrayNode order = (ArrayNode) entry.getValue();
      ArrayNode originalList = listOrNull(original.get(key), fieldPath, "the object");
      ArrayNode patchList = listOrNull(patch.get(key), fieldPath, "the patch");
      PatchSchema.Field field = schema.field(key);
      String mergeKey = field.mergeKey();
      validateOrder(patchList, order, mergeKey, fieldPath);

      // apimachinery orders against the live list's Go backing array, which the merge below
      // rewrites in place: deletions shift it left and the first additions fill the freed slots.
      List<JsonNode> serverOrder = originalList == null ? List.of() : elements(originalList);
      List<JsonNode> merged;
      if (originalList != null && patchList == null) {
        merged = elements(originalList);
      } else if (originalList == null && patchList != null) {
        merged = elements((ArrayNode) removeDirectives(patchList));
      } else if (originalList != null) {
        merged =
            elements(
                field.merge()
                    ? mergeList(
                        originalList,
                        patchList,
                        field.schema(),
                        mergeKey,
                        false,
                        fieldPath,
                        serverOrder)
                    : patchList);
      } else {
        continue;
      }
      JsonNodeType kind = elementKind(fieldPath, originalList, patchList);
      List<JsonNode> inOrder = new ArrayList<>();
      List<JsonNode> serverOnly = new ArrayList<>();
      partition(merged, elements(order), mergeKey, kind, fieldPath, inOrder, serverOnly);
      original.set(
          key,
          normalizeOrder(
              inOrder, serverOnly, elements(order), serverOrder, mergeKey, kind, fieldPath));
      patch.remove(key);
    }
  }

  /**
   * Checks that the patch list's elements appear in the {@code $setElementOrder} list and in the
   * same relative order; deletions and other directive elements are not part of the order.
   */
  private static void validateOrder(
      ArrayNode patchList, ArrayNode order, String mergeKey, String path) {
    if (patchList == null || patchList.isEmpty() || order.isEmpty()) {
      return;
    }
    List<JsonNode> items = new ArrayList<>();
    for (JsonNode item : patchList) {
      if (!mergeKey.isEmpty()) {
        requireMap(item, path);
        if (isDirective(item, "delete")) {
          continue;
        }
      }
      items.add(item);
    }
    int p = 0;
    int o = 0;
    while (p < items.size() && o < order.size()) {
      JsonNode item = items.get(p);
      if (item.isObject() && item.has(PATCH)) {
        p++;
        continue;
      }
      if (mergeKey.isEmpty()) {
        if (JsonValues.same(item, order.get(o))) {
          p++;
        }
      } else if (JsonValues.same(
          mergeKeyValue(item, mergeKey, path), mergeKeyValue(order.get(o), mergeKey, path))) {
        p++;
      }
      o++;
    }
    if (p < items.size()) {
      throw PatchException.badRequest(
          "invalid patch format of setElementOrder list: the order of %s in the patch %s does"
              + " not match $setElementOrder/%s %s",
          describe(path), patchList, lastSegment(path), order);
    }
  }

  private static ArrayNode mergeListField(
      ArrayNode original,
      ArrayNode patch,
      PatchSchema.Field field,
      boolean deleteList,
      String path) {
    // A $deleteFromPrimitiveList list deletes whatever the field's own strategy is.
    if (field.merge() || deleteList) {
      return mergeList(
          original, patch, field.schema(), field.mergeKey(), deleteList, path, new ArrayList<>());
    }
    return patch;
  }

  private static ArrayNode mergeList(
      ArrayNode originalList,
      ArrayNode patchList,
      PatchSchema schema,
      String mergeKey,
      boolean deleteList,
      String path,
      List<JsonNode> goBackingArray) {
    if (originalList.isEmpty() && patchList.isEmpty()) {
      return originalList;
    }
    JsonNodeType kind = elementKind(path, originalList, patchList);
    List<JsonNode> original = elements(originalList);
    List<JsonNode> patch = elements(patchList);
    List<JsonNode> merged;
    if (kind != JsonNodeType.OBJECT) {
      if (deleteList) {
        List<JsonNode> kept = new ArrayList<>();
        for (JsonNode item : original) {
          if (indexOf(patch, item, "", kind) < 0) {
            kept.add(item);
          }
        }
        return JSON.arrayNode().addAll(kept);
      }
      merged = new ArrayList<>();
      for (JsonNode item : concat(original, patch)) {
        if (indexOf(merged, item, "", kind) < 0) {
          merged.add(item);
        }
      }
    } else {
      if (mergeKey.isEmpty()) {
        throw PatchException.badRequest(
            "cannot merge lists without merge key for %s: it is a list of primitives, but the"
                + " patch or the object holds maps in it",
            describe(path));
      }
      boolean replace = false;
      List<JsonNode> plainPatch = new ArrayList<>();
      for (JsonNode item : patch) {
        JsonNode directive = item.get(PATCH);
        if (directive == null) {
          plainPatch.add(item);
        } else if (isDirective(item, "delete")) {
          JsonNode key = item.get(mergeKey);
          if (key == null) {
            throw noMergeKey(path, mergeKey);
          }
          original = withoutKey(original, mergeKey, key, path, goBackingArray);
        } else if (isDirective(item, "replace")) {
          replace = true;
        } else if (isDirective(item, "merge")) {
          throw PatchException.badRequest(
              "merging lists cannot yet be specified in the patch (%s: $patch: merge)",
              describe(path));
        } else {
          throw PatchException.badRequest(
              "unknown patch type: %s in an element of %s", directive, describe(path));
        }
      }
      if (replace) {
        // The directive elements were pruned above; what remains replaces the list.
        original = plainPatch;
        plainPatch = List.of();
      }
      patch = plainPatch;
      merged = new ArrayList<>(original);
      for (JsonNode item : patch) {
        JsonNode key = mergeKeyValue(item, mergeKey, path);
        int at = indexOfKey(merged, mergeKey, key, path);
        if (at >= 0) {
          merged.set(
              at,
              mergeMap(
                  (ObjectNode) merged.get(at),
                  (ObjectNode) item,
                  schema,
                  path + "[" + mergeKey + "=" + key + "]"));
        } else {
          if (!replace && merged.size() < goBackingArray.size()) {
            goBackingArray.set(merged.size(), item);
          }
          merged.add(item);
        }
      }
    }
    List<JsonNode> inPatch = new ArrayList<>();
    List<JsonNode> serverOnly = new ArrayList<>();
    partition(merged, patch, mergeKey, kind, path, inPatch, serverOnly);
    return normalizeOrder(inPatch, serverOnly, patch, original, mergeKey, kind, path);
  }

  /** Splits {@code items} into those present in {@code by} (by merge key) and the others. */
  private static void partition(
      List<JsonNode> items,
      List<JsonNode> by,
      String mergeKey,
      JsonNodeType kind,
      String path,
      List<JsonNode> present,
      List<JsonNode> absent) {
    for (JsonNode item : items) {
      boolean found;
      if (mergeKey.isEmpty()) {
        found = indexOf(by, item, "", kind) >= 0;
      } else {
        found = indexOfKey(by, mergeKey, mergeKeyValue(item, mergeKey, path), path) >= 0;
      }
      (found ? present : absent).add(item);
    }
  }

  /**
   * Sorts the patch's items by the patch order and the live-only items by the live order, then
   * interleaves them: a live-only item goes before a patch item only when the live object has both
   * and already had them in that order. So items the live object lacks come first.
   */
  private static ArrayNode normalizeOrder(
      List<JsonNode> patchItems,
      List<JsonNode> serverOnly,
      List<JsonNode> patchOrder,
      List<JsonNode> serverOrder,
      String mergeKey,
      JsonNodeType kind,
      String path) {
    List<JsonNode> right = sortBy(patchItems, patchOrder, mergeKey, kind, path);
    List<JsonNode> left = sortBy(serverOnly, serverOrder, mergeKey, kind, path);
    ArrayNode result = JSON.arrayNode();
    int i = 0;
    int j = 0;
    while (i < left.size() || j < right.size()) {
      if (j >= right.size()) {
        result.add(left.get(i++));
      } else if (i >= left.size()) {
        result.add(right.get(j++));
      } else {
        int li = indexOf(serverOrder, left.get(i), mergeKey, kind);
        int ri = indexOf(serverOrder, right.get(j), mergeKey, kind);
        if (li >= 0 && ri >= 0 && li < ri) {
          result.add(left.get(i++));
        } else {
          result.add(right.get(j++));
        }
      }
    }
    return result;
  }

  /**
   * Stable sort by position in {@code order}; unlisted items and deletions keep their order last.
   */
  private static List<JsonNode> sortBy(
      List<JsonNode> items, List<JsonNode> order, String mergeKey, JsonNodeType kind, String path) {
    List<JsonNode> toSort = new ArrayList<>();
    List<JsonNode> deletions = new ArrayList<>();
    if (kind == JsonNodeType.OBJECT) {
      for (JsonNode item : concat(items, order)) {
        mergeKeyValue(item, mergeKey, path);
      }
      for (JsonNode item : items) {
        (isDirective(item, "delete") ? deletions : toSort).add(item);
      }
    } else {
      toSort.addAll(items);
    }
    List<JsonNode> sorted = new ArrayList<>(toSort);
    sorted.sort(
        (a, b) -> {
          int ia = indexOf(order, a, mergeKey, kind);
          int ib = indexOf(order, b, mergeKey, kind);
          return Integer.compare(ia < 0 ? Integer.MAX_VALUE : ia, ib < 0 ? Integer.MAX_VALUE : ib);
        });
    sorted.addAll(deletions);
    return sorted;
  }

  /** Position of {@code item} in {@code list}: by merge key for maps, by value otherwise. */
  private static int indexOf(
      List<JsonNode> list, JsonNode item, String mergeKey, JsonNodeType kind) {
    for (int i = 0; i < list.size(); i++) {
      JsonNode candidate = list.get(i);
      boolean same =
          kind == JsonNodeType.OBJECT
              ? JsonValues.same(keyOrNull(item, mergeKey), keyOrNull(candidate, mergeKey))
              : JsonValues.same(item, candidate);
      if (same) {
        return i;
      }
    }
    return -1;
  }

  private static int indexOfKey(List<JsonNode> list, String mergeKey, JsonNode key, String path) {
    for (int i = 0; i < list.size(); i++) {
      JsonNode candidate = list.get(i);
      if (!candidate.isObject()) {
        throw PatchException.badRequest(
            "%s mixes maps and %ss", describe(path), JsonValues.typeName(candidate));
      }
      JsonNode candidateKey = candidate.get(mergeKey);
      if (candidateKey != null && JsonValues.same(candidateKey, key)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Removes every element with the merge key value, mirroring each removal into {@code
   * goBackingArray} the way Go's {@code append(s[:i], s[i+1:]...)} shifts the shared array (the
   * slot after the new end keeps its old value).
   */
  private static List<JsonNode> withoutKey(
      List<JsonNode> list,
      String mergeKey,
      JsonNode key,
      String path,
      List<JsonNode> goBackingArray) {
    List<JsonNode> kept = new ArrayList<>(list);
    for (int at = indexOfKey(kept, mergeKey, key, path);
        at >= 0;
        at = indexOfKey(kept, mergeKey, key, path)) {
      kept.remove(at);
      for (int i = at; i < kept.size() && i < goBackingArray.size(); i++) {
        goBackingArray.set(i, kept.get(i));
      }
    }
    return kept;
  }

  /** The common JSON type of the lists' elements; lists of lists and null elements are refused. */
  private static JsonNodeType elementKind(String path, ArrayNode... lists) {
    JsonNodeType kind = null;
    for (ArrayNode list : lists) {
      if (list == null) {
        continue;
      }
      for (JsonNode item : list) {
        JsonNodeType type = item.getNodeType();
        if (type == JsonNodeType.NULL) {
          throw PatchException.badRequest("%s must not contain null elements", describe(path));
        }
        if (kind == null) {
          if (type == JsonNodeType.ARRAY) {
            throw PatchException.invalid("lists of lists are not supported (%s)", describe(path));
          }
          kind = type;
        } else if (kind != type) {
          throw PatchException.badRequest(
              "list element types are not identical in %s: %s and %s",
              describe(path), kind.name().toLowerCase(), type.name().toLowerCase());
        }
      }
    }
    if (kind == null) {
      // apimachinery cannot tell the element type of two empty lists and fails the same way.
      throw PatchException.badRequest(
          "no elements in any of the given slices for %s", describe(path));
    }
    return kind;
  }

  private static JsonNode mergeKeyValue(JsonNode item, String mergeKey, String path) {
    requireMap(item, path);
    JsonNode key = item.get(mergeKey);
    if (key == null) {
      throw noMergeKey(path, mergeKey);
    }
    return key;
  }

  private static JsonNode keyOrNull(JsonNode item, String mergeKey) {
    return item.isObject() ? item.get(mergeKey) : null;
  }

  private static void requireMap(JsonNode item, String path) {
    if (!item.isObject()) {
      throw PatchException.badRequest(
          "the elements of %s must be maps, got a %s", describe(path), JsonValues.typeName(item));
    }
  }

  private static PatchException noMergeKey(String path, String mergeKey) {
    return PatchException.badRequest(
        "an element of %s does not contain declared merge key: %s", describe(path), mergeKey);
  }

  private static boolean isDirective(JsonNode item, String directive) {
    JsonNode value = item.get(PATCH);
    return value != null && value.isTextual() && value.textValue().equals(directive);
  }

  /** The field name after {@code <prefix>/}, as in {@code $setElementOrder/containers}. */
  private static String directiveTarget(String key, String prefix, String path) {
    int slash = key.indexOf('/');
    if (slash < 0 || !key.substring(0, slash).equals(prefix)) {
      String what = prefix.equals(SET_ELEMENT_ORDER) ? "setElementOrder list" : "primitive list";
      throw PatchException.badRequest(
          "invalid patch format of %s: %s at %s is not %s/<field>",
          what, key, describe(path), prefix);
    }
    return key.substring(slash + 1);
  }

  private static ArrayNode listOrNull(JsonNode value, String path, String where) {
    if (value == null) {
      return null;
    }
    if (!value.isArray()) {
      throw PatchException.badRequest(
          "%s in %s must be a list to be ordered by $setElementOrder, got a %s",
          describe(path), where, JsonValues.typeName(value));
    }
    return (ArrayNode) value;
  }

  private static void setWithoutDirectives(ObjectNode target, String key, JsonNode value) {
    JsonNode cleaned = removeDirectives(value);
    if (cleaned == null) {
      target.remove(key);
    } else {
      target.set(key, cleaned);
    }
  }

  /**
   * Drops every map carrying {@code $patch} (and so the list elements that are such maps) from a
   * value taken from the patch; null when the value itself is such a map.
   */
  private static JsonNode removeDirectives(JsonNode value) {
    if (value.isObject()) {
      if (value.has(PATCH)) {
        return null;
      }
      ObjectNode object = (ObjectNode) value;
      for (Map.Entry<String, JsonNode> entry : fieldsOf(object)) {
        JsonNode cleaned = removeDirectives(entry.getValue());
        if (cleaned == null) {
          object.remove(entry.getKey());
        } else {
          object.set(entry.getKey(), cleaned);
        }
      }
      return object;
    }
    if (value.isArray()) {
      ArrayNode result = JSON.arrayNode();
      for (JsonNode item : value) {
        JsonNode cleaned = removeDirectives(item);
        if (cleaned != null) {
          result.add(cleaned);
        }
      }
      return result;
    }
    return value;
  }

  /** Drops null-valued keys at any depth: a null can only delete what the object already has. */
  private static JsonNode discardNulls(JsonNode value) {
    if (value.isObject()) {
      ObjectNode object = (ObjectNode) value;
      for (Map.Entry<String, JsonNode> entry : fieldsOf(object)) {
        if (entry.getValue().isNull()) {
          object.remove(entry.getKey());
        } else {
          discardNulls(entry.getValue());
        }
      }
    } else if (value.isArray()) {
      value.forEach(StrategicMergePatch::discardNulls);
    }
    return value;
  }

  /** A snapshot of an object's fields, so the loop may change the object. */
  private static List<Map.Entry<String, JsonNode>> fieldsOf(ObjectNode object) {
    List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(object.size());
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      fields.add(Map.entry(field.getKey(), field.getValue()));
    }
    return fields;
  }

  private static List<JsonNode> elements(ArrayNode list) {
    List<JsonNode> items = new ArrayList<>(list.size());
    list.forEach(items::add);
    return items;
  }

  private static List<JsonNode> concat(List<JsonNode> a, List<JsonNode> b) {
    List<JsonNode> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static String describe(String path) {
    return path.isEmpty() ? "the top level" : path;
  }

  private static String lastSegment(String path) {
    return path.substring(path.lastIndexOf('.') + 1);
  }
}
