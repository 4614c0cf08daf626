package io.streamplane.gateway.patch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.JsonValues;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * JSON merge patch ({@code application/merge-patch+json}, RFC 7386), as kube-apiserver applies it
 * to every kind including custom resources: objects merge recursively, {@code null} removes a key,
 * anything else (lists included) replaces the target value.
 *
 * <p>Contract: pure; neither argument is modified and the result shares no nodes with them.
 *
 * <p>Limits: RFC 7386 lets a non-object patch replace the whole document; kube-apiserver refuses
 * such a body with 400 (it decodes the patch into a map first), and so does {@link #apply}.
 */
public final class JsonMergePatch {

  private JsonMergePatch() {}

  public static JsonNode apply(JsonNode original, JsonNode patch) {
    Objects.requireNonNull(patch, "patch");
    if (!patch.isObject()) {
      throw PatchException.badRequest(
          "a merge patch must be a JSON object, got a %s", JsonValues.typeName(patch));
    }
    return merge(original, patch);
  }

  private static JsonNode merge(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? ((ObjectNode) target).deepCopy()
            : JsonNodeFactory.instance.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), merge(result.get(field.getKey()), field.getValue()));
      }
    }
    return result;
  }
}
