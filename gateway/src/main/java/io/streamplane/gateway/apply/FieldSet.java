package io.streamplane.gateway.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A set of field paths, as structured-merge-diff's {@code fieldpath.Set}: a tree whose nodes are
 * {@link PathElement}s, where a path is a member when it was inserted (a leaf, a list element, an
 * empty map) and a node is a child when longer paths pass through it. Serialized as FieldsV1, the
 * JSON in {@code metadata.managedFields[].fieldsV1}: each member is {@code "<element>": {}}, each
 * child an object of its own contents, with {@code ".": {}} when the child is also a member; keys
 * in {@link PathElement} order.
 *
 * <p>Mutable; {@link #copy} before changing a set someone else holds.
 */
public final class FieldSet {

  private final TreeSet<PathElement> members = new TreeSet<>();
  private final TreeMap<PathElement, FieldSet> children = new TreeMap<>();

  public static FieldSet of(List<List<PathElement>> paths) {
    FieldSet set = new FieldSet();
    paths.forEach(set::insert);
    return set;
  }

  public void insert(List<PathElement> path) {
    if (path.isEmpty()) {
      return;
    }
    FieldSet node = this;
    for (int i = 0; i < path.size() - 1; i++) {
      node = node.children.computeIfAbsent(path.get(i), k -> new FieldSet());
    }
    node.members.add(path.get(path.size() - 1));
  }

  public void insertAll(FieldSet other) {
    other.forEach(this::insert);
  }

  public boolean contains(List<PathElement> path) {
    FieldSet node = this;
    for (int i = 0; i < path.size() - 1; i++) {
      node = node.children.get(path.get(i));
      if (node == null) {
        return false;
      }
    }
    return !path.isEmpty() && node.members.contains(path.get(path.size() - 1));
  }

  /** Whether this set holds {@code path} or any path below it. */
  public boolean containsPrefix(List<PathElement> path) {
    if (contains(path)) {
      return true;
    }
    FieldSet node = this;
    for (PathElement element : path) {
      node = node.children.get(element);
      if (node == null) {
        return false;
      }
    }
    return !node.isEmpty();
  }

  public boolean isEmpty() {
    return members.isEmpty() && children.values().stream().allMatch(FieldSet::isEmpty);
  }

  public FieldSet copy() {
    FieldSet copy = new FieldSet();
    copy.members.addAll(members);
    children.forEach((k, v) -> copy.children.put(k, v.copy()));
    return copy;
  }

  public FieldSet union(FieldSet other) {
    FieldSet result = copy();
    other.forEach(result::insert);
    return result;
  }

  /** The paths of this set that {@code other} does not hold (exact paths, as Set.Difference). */
  public FieldSet difference(FieldSet other) {
    FieldSet result = new FieldSet();
    forEach(
        p -> {
          if (!other.contains(p)) {
            result.insert(p);
          }
        });
    return result;
  }

  /** The paths both sets hold. */
  public FieldSet intersection(FieldSet other) {
    FieldSet result = new FieldSet();
    forEach(
        p -> {
          if (other.contains(p)) {
            result.insert(p);
          }
        });
    return result;
  }

  /** The paths of this set that neither are nor lie below a path of {@code prefixes}. */
  public FieldSet withoutPrefixes(FieldSet prefixes) {
    FieldSet result = new FieldSet();
    forEach(
        p -> {
          for (int i = 1; i <= p.size(); i++) {
            if (prefixes.contains(p.subList(0, i))) {
              return;
            }
          }
          result.insert(p);
        });
    return result;
  }

  /** The paths of this set that are or lie below a path of {@code prefixes}. */
  public FieldSet onlyPrefixes(FieldSet prefixes) {
    return difference(withoutPrefixes(prefixes));
  }

  /**
   * Every member path, as structured-merge-diff iterates: the members of a node in order, then the
   * children in order.
   */
  public void forEach(Consumer<List<PathElement>> action) {
    forEach(new ArrayList<>(), action);
  }

  private void forEach(List<PathElement> prefix, Consumer<List<PathElement>> action) {
    for (PathElement member : members) {
      List<PathElement> path = new ArrayList<>(prefix);
      path.add(member);
      action.accept(Collections.unmodifiableList(path));
    }
    for (Map.Entry<PathElement, FieldSet> child : children.entrySet()) {
      prefix.add(child.getKey());
      child.getValue().forEach(prefix, action);
      prefix.remove(prefix.size() - 1);
    }
  }

  public List<List<PathElement>> paths() {
    List<List<PathElement>> paths = new ArrayList<>();
    forEach(paths::add);
    return paths;
  }

  /** FieldsV1 JSON of this set. */
  public ObjectNode toFieldsV1() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    emit(json, false);
    return json;
  }

  private void emit(ObjectNode json, boolean self) {
    if (self && !isEmptyNode()) {
      json.putObject(".");
    }
    TreeSet<PathElement> all = new TreeSet<>(members);
    children.forEach(
        (k, v) -> {
          if (!v.isEmpty()) {
            all.add(k);
          }
        });
    for (PathElement element : all) {
      FieldSet child = children.get(element);
      ObjectNode value = json.putObject(element.serialize());
      if (child != null && !child.isEmpty()) {
        child.emit(value, members.contains(element));
      }
    }
  }

  private boolean isEmptyNode() {
    return members.isEmpty() && children.isEmpty();
  }

  /** Parses FieldsV1 JSON; throws IllegalArgumentException when it is not a field set. */
  public static FieldSet fromFieldsV1(JsonNode json) {
    FieldSet set = new FieldSet();
    if (json == null || json.isNull()) {
      return set;
    }
    if (!json.isObject()) {
      throw new IllegalArgumentException("FieldsV1 must be a JSON object");
    }
    set.read(json, new ArrayList<>());
    return set;
  }

  private void read(JsonNode json, List<PathElement> prefix) {
    json.fields()
        .forEachRemaining(
            e -> {
              if (e.getKey().equals(".")) {
                insert(List.copyOf(prefix));
                return;
              }
              PathElement element = PathElement.parse(e.getKey());
              if (!e.getValue().isObject()) {
                throw new IllegalArgumentException("FieldsV1 values must be objects");
              }
              prefix.add(element);
              if (e.getValue().isEmpty()) {
                insert(List.copyOf(prefix));
              } else {
                read(e.getValue(), prefix);
              }
              prefix.remove(prefix.size() - 1);
            });
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FieldSet other && paths().equals(other.paths());
  }

  @Override
  public int hashCode() {
    return paths().size();
  }

  /** The paths as structured-merge-diff prints them, one per line. */
  @Override
  public String toString() {
    List<String> lines = new ArrayList<>();
    forEach(p -> lines.add(pathString(p)));
    return String.join("\n", lines);
  }

  public static String pathString(List<PathElement> path) {
    StringBuilder s = new StringBuilder();
    path.forEach(s::append);
    return s.toString();
  }
}
