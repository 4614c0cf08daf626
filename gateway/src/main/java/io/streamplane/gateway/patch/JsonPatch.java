package io.streamplane.gateway.patch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.JsonValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * JSON patch ({@code application/json-patch+json}, RFC 6902): a list of add, remove, replace, move,
 * copy and test operations addressed by JSON pointers (RFC 6901, {@code ~0}/{@code ~1} escapes,
 * {@code -} for "after the last element").
 *
 * <p>Contract: pure; the original is not modified. Operations apply in order and all-or-nothing.
 * Failures follow kube-apiserver's codes: a patch body that is not a list of objects is 400, more
 * than {@value #MAX_OPERATIONS} operations is 413, and an operation that cannot be applied (unknown
 * op, missing field, path that does not exist, failed test) is 422.
 *
 * <p>Limits: array indexes are strict RFC 6901 ({@code 0} or no leading zero, never negative); the
 * json-patch library behind kube-apiserver additionally accepts negative indexes, which this class
 * refuses.
 */
public final class JsonPatch {

  /** The operation count above which kube-apiserver refuses a JSON patch. */
  public static final int MAX_OPERATIONS = 10000;

  private JsonPatch() {}

  public static JsonNode apply(JsonNode original, JsonNode patch) {
    Objects.requireNonNull(original, "original");
    Objects.requireNonNull(patch, "patch");
    if (!patch.isArray()) {
      throw PatchException.badRequest(
          "a JSON patch must be a list of operations, got a %s", JsonValues.typeName(patch));
    }
    if (patch.size() > MAX_OPERATIONS) {
      throw new PatchException(
          PatchException.Reason.REQUEST_ENTITY_TOO_LARGE,
          "The allowed maximum operations in a JSON patch is "
              + MAX_OPERATIONS
              + ", got "
              + patch.size());
    }
    for (JsonNode operation : patch) {
      if (!operation.isObject()) {
        throw PatchException.badRequest(
            "a JSON patch operation must be an object, got a %s", JsonValues.typeName(operation));
      }
    }
    // Holder so that operations on the root pointer "" can replace the whole document.
    JsonNode[] document = {original.deepCopy()};
    for (int i = 0; i < patch.size(); i++) {
      document[0] = applyOperation(document[0], patch.get(i), i);
    }
    return document[0];
  }

  private static JsonNode applyOperation(JsonNode doc, JsonNode operation, int index) {
    String op = textField(operation, "op", index);
    List<String> path = Pointer.parse(textField(operation, "path", index), index);
    return switch (op) {
      case "add" -> add(doc, path, valueField(operation, index).deepCopy(), op, index);
      case "remove" -> {
        remove(doc, path, op, index);
        yield doc;
      }
      case "replace" -> replace(doc, path, valueField(operation, index).deepCopy(), op, index);
      case "move" -> {
        List<String> from = Pointer.parse(textField(operation, "from", index), index);
        if (from.equals(path)) {
          get(doc, from, op, index);
          yield doc;
        }
        if (path.size() > from.size() && path.subList(0, from.size()).equals(from)) {
          throw fail(index, op, "cannot move a value into one of its own children");
        }
        JsonNode value = get(doc, from, op, index);
        remove(doc, from, op, index);
        yield add(doc, path, value, op, index);
      }
      case "copy" -> {
        List<String> from = Pointer.parse(textField(operation, "from", index), index);
        yield add(doc, path, get(doc, from, op, index).deepCopy(), op, index);
      }
      case "test" -> {
        JsonNode expected = valueField(operation, index);
        JsonNode actual = get(doc, path, op, index);
        if (!JsonValues.same(expected, actual)) {
          throw fail(
              index, op, "the value at " + Pointer.format(path) + " is not the expected value");
        }
        yield doc;
      }
      default -> throw PatchException.invalid("operation %d: unknown op \"%s\"", index, op);
    };
  }

  private static JsonNode add(
      JsonNode doc, List<String> path, JsonNode value, String op, int index) {
    if (path.isEmpty()) {
      return value;
    }
    JsonNode parent = parent(doc, path, op, index);
    String last = path.get(path.size() - 1);
    if (parent instanceof ObjectNode object) {
      object.set(last, value);
    } else if (parent instanceof ArrayNode array) {
      if (last.equals("-")) {
        array.add(value);
      } else {
        int i = arrayIndex(last, array.size(), path, op, index);
        array.insert(i, value);
      }
    } else {
      throw missing(path, op, index);
    }
    return doc;
  }

  private static JsonNode replace(
      JsonNode doc, List<String> path, JsonNode value, String op, int index) {
    if (path.isEmpty()) {
      return value;
    }
    JsonNode parent = parent(doc, path, op, index);
    String last = path.get(path.size() - 1);
    if (parent instanceof ObjectNode object && object.has(last)) {
      // set() on an existing key keeps the key's position, so the object's field order survives.
      object.set(last, value);
    } else if (parent instanceof ArrayNode array && !last.equals("-")) {
      array.set(arrayIndex(last, array.size() - 1, path, op, index), value);
    } else {
      throw missing(path, op, index);
    }
    return doc;
  }

  private static void remove(JsonNode doc, List<String> path, String op, int index) {
    if (path.isEmpty()) {
      // RFC 6902 leaves removing the root undefined; kube-apiserver's library refuses it too.
      throw fail(index, op, "cannot remove the whole document");
    }
    JsonNode parent = parent(doc, path, op, index);
    String last = path.get(path.size() - 1);
    if (parent instanceof ObjectNode object && object.has(last)) {
      object.remove(last);
    } else if (parent instanceof ArrayNode array && !last.equals("-")) {
      array.remove(arrayIndex(last, array.size() - 1, path, op, index));
    } else {
      throw missing(path, op, index);
    }
  }

  private static JsonNode get(JsonNode doc, List<String> path, String op, int index) {
    JsonNode node = doc;
    for (String token : path) {
      if (node instanceof ObjectNode object && object.has(token)) {
        node = object.get(token);
      } else if (node instanceof ArrayNode array && !token.equals("-")) {
        node = array.get(arrayIndex(token, array.size() - 1, path, op, index));
      } else {
        throw missing(path, op, index);
      }
    }
    return node;
  }

  private static JsonNode parent(JsonNode doc, List<String> path, String op, int index) {
    try {
      return get(doc, path.subList(0, path.size() - 1), op, index);
    } catch (PatchException e) {
      throw missing(path, op, index);
    }
  }

  /** An RFC 6901 array index no larger than {@code max}. */
  private static int arrayIndex(String token, int max, List<String> path, String op, int index) {
    if (!token.matches("0|[1-9][0-9]{0,8}")) {
      throw fail(
          index, op, "\"" + token + "\" in " + Pointer.format(path) + " is not a list index");
    }
    int i = Integer.parseInt(token);
    if (i > max) {
      throw fail(index, op, "index " + i + " in " + Pointer.format(path) + " is out of bounds");
    }
    return i;
  }

  private static String textField(JsonNode operation, String name, int index) {
    JsonNode field = operation.get(name);
    if (field == null || !field.isTextual()) {
      throw PatchException.invalid("operation %d: missing or non-string \"%s\"", index, name);
    }
    return field.textValue();
  }

  private static JsonNode valueField(JsonNode operation, int index) {
    JsonNode value = operation.get("value");
    if (value == null) {
      throw PatchException.invalid("operation %d: missing \"value\"", index);
    }
    return value;
  }

  private static PatchException missing(List<String> path, String op, int index) {
    return fail(index, op, "the path " + Pointer.format(path) + " does not exist");
  }

  private static PatchException fail(int index, String op, String why) {
    return PatchException.invalid("operation %d (%s): %s", index, op, why);
  }

  /** RFC 6901 pointer parsing; a pointer is kept as its list of unescaped reference tokens. */
  private static final class Pointer {

    static List<String> parse(String pointer, int index) {
      List<String> tokens = new ArrayList<>();
      if (pointer.isEmpty()) {
        return tokens;
      }
      if (pointer.charAt(0) != '/') {
        throw PatchException.invalid(
            "operation %d: JSON pointer \"%s\" must be empty or start with /", index, pointer);
      }
      for (String raw : pointer.substring(1).split("/", -1)) {
        StringBuilder token = new StringBuilder(raw.length());
        for (int i = 0; i < raw.length(); i++) {
          char c = raw.charAt(i);
          if (c != '~') {
            token.append(c);
            continue;
          }
          char next = i + 1 < raw.length() ? raw.charAt(++i) : ' ';
          if (next == '0') {
            token.append('~');
          } else if (next == '1') {
            token.append('/');
          } else {
            throw PatchException.invalid(
                "operation %d: JSON pointer \"%s\" has a ~ not followed by 0 or 1", index, pointer);
          }
        }
        tokens.add(token.toString());
      }
      return tokens;
    }

    static String format(List<String> tokens) {
      StringBuilder pointer = new StringBuilder();
      for (String token : tokens) {
        pointer.append('/').append(token.replace("~", "~0").replace("/", "~1"));
      }
      return "\"" + pointer + "\"";
    }
  }
}
