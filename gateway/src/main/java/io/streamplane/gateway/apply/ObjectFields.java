package io.streamplane.gateway.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.streamplane.gateway.patch.PatchSchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The field-level operations of server-side apply on JSON objects, shaped by a kind's {@link
 * PatchSchema} the way structured-merge-diff shapes them by the OpenAPI schema: structs and maps
 * are granular (one path per field or key), unless tagged {@code +structType=atomic}; lists with
 * list-map keys are associative (one path per element, {@code k:{...}}); lists merged as sets of
 * primitives are sets ({@code v:...}); every other list is atomic, one leaf.
 *
 * <p>Pure functions; arguments are never modified.
 *
 * <p>Limits: the schema does not tell a struct from a map, so a map entry whose value is a
 * non-empty object is not a member of the field set by itself (structured-merge-diff makes it one);
 * no built-in kind has such maps, a custom resource's {@code additionalProperties} of objects does.
 * For the comparison an {@code Update} makes, the zero-valued structs Go always carries are
 * recognised by name ({@link #ALWAYS_PRESENT_STRUCTS}).
 */
public final class ObjectFields {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /**
   * Fields Go holds by value, so that a decoded object always has them (as {@code {}}) even when
   * the JSON lacks them; a comparison with such a missing field is a comparison with an empty one.
   */
  static final Set<String> ALWAYS_PRESENT_STRUCTS =
      Set.of("metadata", "spec", "status", "template", "strategy", "updateStrategy");

  /**
   * Key fields with an OpenAPI default, used when an element omits them (structured-merge-diff).
   */
  private static final Map<String, JsonNode> KEY_DEFAULTS =
      Map.of("protocol", TextNode.valueOf("TCP"));

  private ObjectFields() {}

  /** The comparison of two objects: the paths added, changed and removed. */
  public record Comparison(FieldSet added, FieldSet modified, FieldSet removed) {
    public boolean isEmpty() {
      return added.isEmpty() && modified.isEmpty() && removed.isEmpty();
    }

    /** Added and modified: what a writer changed. */
    public FieldSet changed() {
      return added.union(modified);
    }
  }

  /** A value that does not fit its schema (a list element without its key, a duplicate key). */
  public static final class ShapeException extends RuntimeException {
    ShapeException(String message) {
      super(message);
    }
  }

  /** The list-map keys of an associative list ({@code +listType=map}); empty for any other. */
  static List<String> keys(PatchSchema schema, String name) {
    PatchSchema.Field field = schema.field(name);
    return field.listType().equals("map") ? field.listMapKeys() : List.of();
  }

  /** An associative list or a set: owned element by element, not as one leaf. */
  static boolean granularList(PatchSchema schema, String name) {
    String type = schema.field(name).listType();
    return type.equals("map") || type.equals("set");
  }

  // ---------------------------------------------------------------- field sets

  /** Every field the object sets, as structured-merge-diff's {@code ToFieldSet}. */
  public static FieldSet fieldSet(ObjectNode object, PatchSchema schema) {
    FieldSet set = new FieldSet();
    mapFields(object, schema, new ArrayList<>(), set);
    return set;
  }

  private static void mapFields(
      ObjectNode object, PatchSchema schema, List<PathElement> prefix, FieldSet set) {
    Iterator<Map.Entry<String, JsonNode>> it = object.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      JsonNode value = e.getValue();
      prefix.add(PathElement.field(name));
      if (value.isObject()) {
        if (schema.atomicStruct(name) || value.isEmpty()) {
          set.insert(List.copyOf(prefix));
        } else {
          mapFields((ObjectNode) value, schema.field(name).schema(), prefix, set);
        }
      } else if (value.isArray()) {
        listFields((ArrayNode) value, schema, name, prefix, set);
      } else {
        set.insert(List.copyOf(prefix));
      }
      prefix.remove(prefix.size() - 1);
    }
  }

  private static void listFields(
      ArrayNode list, PatchSchema schema, String name, List<PathElement> prefix, FieldSet set) {
    PatchSchema.Field field = schema.field(name);
    List<String> keys = keys(schema, name);
    if (!granularList(schema, name)) {
      set.insert(List.copyOf(prefix));
      return;
    }
    Set<PathElement> seen = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode item = list.get(i);
      PathElement element = element(item, keys, prefix, i);
      if (!seen.add(element)) {
        throw new ShapeException(
            FieldSet.pathString(prefix) + ": duplicate entries for key " + element);
      }
      prefix.add(element);
      set.insert(List.copyOf(prefix));
      if (item.isObject() && !keys.isEmpty()) {
        mapFields((ObjectNode) item, field.schema(), prefix, set);
      }
      prefix.remove(prefix.size() - 1);
    }
  }

  /** The path element of a list element: by its key fields, or by its value in a set. */
  static PathElement element(JsonNode item, List<String> keys, List<PathElement> at, int index) {
    if (keys.isEmpty()) {
      if (item.isContainerNode()) {
        throw new ShapeException(
            FieldSet.pathString(at)
                + ": element "
                + index
                + ": associative list without keys has an element that's a "
                + (item.isObject() ? "map" : "list")
                + " type");
      }
      return PathElement.value(item);
    }
    if (!item.isObject()) {
      throw new ShapeException(
          FieldSet.pathString(at)
              + ": element "
              + index
              + ": associative list with keys has an element that's not a map type");
    }
    Map<String, JsonNode> key = new LinkedHashMap<>();
    for (String k : keys) {
      JsonNode v = item.get(k);
      if (v == null || v.isNull()) {
        v = KEY_DEFAULTS.get(k);
      }
      if (v == null) {
        throw new ShapeException(
            FieldSet.pathString(at)
                + ": element "
                + index
                + ": associative list with keys has an element that omits key field \""
                + k
                + "\" (and doesn't have default value)");
      }
      key.put(k, v);
    }
    return PathElement.key(key);
  }

  // ---------------------------------------------------------------- comparison

  /**
   * What changed from {@code before} (null: nothing, as for a create) to {@code after}, as
   * structured-merge-diff's {@code Compare}: leaves that differ are modified, paths only in {@code
   * after} added (with the path itself of a map or list that was missing), only in {@code before}
   * removed.
   */
  public static Comparison compare(ObjectNode before, ObjectNode after, PatchSchema schema) {
    Comparison c = new Comparison(new FieldSet(), new FieldSet(), new FieldSet());
    compareMaps(before == null ? JSON.objectNode() : before, after, schema, new ArrayList<>(), c);
    return c;
  }

  private static void compareMaps(
      ObjectNode before,
      ObjectNode after,
      PatchSchema schema,
      List<PathElement> prefix,
      Comparison c) {
    Set<String> names = new LinkedHashSet<>();
    if (before != null) {
      before.fieldNames().forEachRemaining(names::add);
    }
    if (after != null) {
      after.fieldNames().forEachRemaining(names::add);
    }
    for (String name : names) {
      JsonNode b = before == null ? null : before.get(name);
      JsonNode a = after == null ? null : after.get(name);
      if (b == null
          && before != null
          && a != null
          && a.isObject()
          && ALWAYS_PRESENT_STRUCTS.contains(name)) {
        b = JSON.objectNode();
      }
      if (b == null && before != null && "containers".equals(name)) {
        // PodSpec.containers has no omitempty: Go always holds it, as null when empty.
        b = NullNode.instance;
      }
      prefix.add(PathElement.field(name));
      compareValue(b, a, schema, name, prefix, c);
      prefix.remove(prefix.size() - 1);
    }
  }

  private static void compareValue(
      JsonNode b,
      JsonNode a,
      PatchSchema schema,
      String name,
      List<PathElement> path,
      Comparison c) {
    if (b == null && a == null) {
      return;
    }
    JsonNode shape = a != null && !a.isNull() ? a : b != null ? b : a;
    if (shape.isObject() && !schema.atomicStruct(name)) {
      ObjectNode bo = b != null && b.isObject() ? (ObjectNode) b : null;
      ObjectNode ao = a != null && a.isObject() ? (ObjectNode) a : null;
      if ((bo == null || bo.isEmpty()) && (ao == null || ao.isEmpty())) {
        leaf(b, a, path, c);
      } else {
        compareMaps(bo, ao, schema.field(name).schema(), path, c);
      }
    } else if (shape.isArray() && granularList(schema, name)) {
      ArrayNode bl = b != null && b.isArray() ? (ArrayNode) b : null;
      ArrayNode al = a != null && a.isArray() ? (ArrayNode) a : null;
      if ((bl == null || bl.isEmpty()) && (al == null || al.isEmpty())) {
        leaf(b, a, path, c);
      } else {
        compareLists(bl, al, schema, name, path, c);
      }
    } else {
      leaf(b, a, path, c);
    }
    List<PathElement> here = List.copyOf(path);
    if (b == null && !c.added().contains(here)) {
      c.added().insert(here);
    } else if (a == null && !c.removed().contains(here)) {
      c.removed().insert(here);
    }
  }

  private static void compareLists(
      ArrayNode before,
      ArrayNode after,
      PatchSchema schema,
      String name,
      List<PathElement> path,
      Comparison c) {
    List<String> keys = keys(schema, name);
    PatchSchema element = schema.field(name).schema();
    Map<PathElement, JsonNode> b = index(before, keys, path);
    Map<PathElement, JsonNode> a = index(after, keys, path);
    Set<PathElement> all = new LinkedHashSet<>(b.keySet());
    all.addAll(a.keySet());
    for (PathElement pe : all) {
      JsonNode bi = b.get(pe);
      JsonNode ai = a.get(pe);
      path.add(pe);
      List<PathElement> here = List.copyOf(path);
      if (bi == null) {
        c.added().insert(here);
      } else if (ai == null) {
        c.removed().insert(here);
      }
      if (!keys.isEmpty()) {
        compareMaps(
            bi == null ? null : (ObjectNode) bi,
            ai == null ? null : (ObjectNode) ai,
            element,
            path,
            c);
      }
      path.remove(path.size() - 1);
    }
  }

  private static Map<PathElement, JsonNode> index(
      ArrayNode list, List<String> keys, List<PathElement> path) {
    Map<PathElement, JsonNode> items = new LinkedHashMap<>();
    if (list != null) {
      for (int i = 0; i < list.size(); i++) {
        items.putIfAbsent(element(list.get(i), keys, path, i), list.get(i));
      }
    }
    return items;
  }

  private static void leaf(JsonNode b, JsonNode a, List<PathElement> path, Comparison c) {
    if (b == null && a == null) {
      return;
    }
    List<PathElement> here = List.copyOf(path);
    if (b == null) {
      c.added().insert(here);
    } else if (a == null) {
      c.removed().insert(here);
    } else if (PathElement.compareValues(b, a) != 0) {
      c.modified().insert(here);
    }
  }

  // ---------------------------------------------------------------- merge

  /**
   * The live object with the applied configuration merged in, as structured-merge-diff's {@code
   * Merge}: maps merge key by key, associative lists and sets element by element (the applied order
   * wins where both have an element, live-only elements keep their place), everything else is
   * replaced by the configuration's value.
   */
  public static ObjectNode merge(ObjectNode live, ObjectNode config, PatchSchema schema) {
    return mergeMaps(live == null ? JSON.objectNode() : live, config, schema, new ArrayList<>());
  }

  private static ObjectNode mergeMaps(
      ObjectNode live, ObjectNode config, PatchSchema schema, List<PathElement> path) {
    ObjectNode out = live.deepCopy();
    Iterator<Map.Entry<String, JsonNode>> it = config.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      JsonNode cv = e.getValue();
      JsonNode lv = live.get(name);
      path.add(PathElement.field(name));
      JsonNode merged;
      if (cv.isObject() && !schema.atomicStruct(name) && lv != null && lv.isObject()) {
        merged = mergeMaps((ObjectNode) lv, (ObjectNode) cv, schema.field(name).schema(), path);
      } else if (cv.isArray() && lv != null && lv.isArray() && granularList(schema, name)) {
        merged = mergeLists((ArrayNode) lv, (ArrayNode) cv, schema, name, path);
      } else {
        merged = cv.deepCopy();
      }
      out.set(name, merged);
      path.remove(path.size() - 1);
    }
    return out;
  }

  private static ArrayNode mergeLists(
      ArrayNode live, ArrayNode config, PatchSchema schema, String name, List<PathElement> path) {
    List<String> keys = keys(schema, name);
    PatchSchema element = schema.field(name).schema();
    List<PathElement> lk = new ArrayList<>();
    List<PathElement> rk = new ArrayList<>();
    for (int i = 0; i < live.size(); i++) {
      lk.add(element(live.get(i), keys, path, i));
    }
    for (int i = 0; i < config.size(); i++) {
      rk.add(element(config.get(i), keys, path, i));
    }
    Map<PathElement, JsonNode> liveItems = new LinkedHashMap<>();
    for (int i = 0; i < lk.size(); i++) {
      liveItems.putIfAbsent(lk.get(i), live.get(i));
    }
    Set<PathElement> inConfig = new HashSet<>(rk);
    Set<PathElement> emitted = new HashSet<>();
    ArrayNode out = JSON.arrayNode();
    int i = 0;
    int j = 0;
    while (i < lk.size() || j < rk.size()) {
      if (i < lk.size() && emitted.contains(lk.get(i))) {
        i++;
        continue;
      }
      if (i < lk.size() && !inConfig.contains(lk.get(i))) {
        out.add(live.get(i).deepCopy());
        emitted.add(lk.get(i));
        i++;
        continue;
      }
      if (j < rk.size()) {
        PathElement key = rk.get(j);
        JsonNode lv = liveItems.get(key);
        JsonNode cv = config.get(j);
        path.add(key);
        out.add(
            lv != null && lv.isObject() && cv.isObject()
                ? mergeMaps((ObjectNode) lv, (ObjectNode) cv, element, path)
                : cv.deepCopy());
        path.remove(path.size() - 1);
        emitted.add(key);
        j++;
        continue;
      }
      i++;
    }
    return out;
  }

  // ---------------------------------------------------------------- removal

  /**
   * The object without the value at {@code path} (a field, a list element by key or value); the
   * object itself when there is none.
   */
  public static ObjectNode remove(ObjectNode object, List<PathElement> path, PatchSchema schema) {
    ObjectNode copy = object.deepCopy();
    JsonNode parent = copy;
    PatchSchema at = schema;
    String listName = null;
    PatchSchema listOwner = null;
    for (int i = 0; i < path.size(); i++) {
      PathElement pe = path.get(i);
      boolean last = i == path.size() - 1;
      JsonNode next;
      if (pe.kind() == PathElement.Kind.FIELD) {
        if (!(parent instanceof ObjectNode map)) {
          return object;
        }
        if (last) {
          map.remove(pe.fieldName());
          return copy;
        }
        next = map.get(pe.fieldName());
        listOwner = at;
        listName = pe.fieldName();
        at = at.field(pe.fieldName()).schema();
      } else {
        if (!(parent instanceof ArrayNode list) || listOwner == null) {
          return object;
        }
        List<String> keys = keys(listOwner, listName);
        int found = -1;
        for (int k = 0; k < list.size(); k++) {
          try {
            if (element(list.get(k), keys, path.subList(0, i), k).equals(pe)) {
              found = k;
              break;
            }
          } catch (ShapeException e) {
            // An element of another shape is not the one asked for.
          }
        }
        if (found < 0) {
          return object;
        }
        if (last) {
          list.remove(found);
          return copy;
        }
        next = list.get(found);
      }
      if (next == null) {
        return object;
      }
      parent = next;
    }
    return copy;
  }
}
