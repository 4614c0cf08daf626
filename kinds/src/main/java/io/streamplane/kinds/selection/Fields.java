package io.streamplane.kinds.selection;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The fields of an object a field selector can name ({@code fields.Set} of a kind's {@code
 * GetAttrs}), as readers over its Kubernetes JSON.
 */
public final class Fields {

  private Fields() {}

  /** What every namespaced kind can be selected by: {@code metadata.name}, {@code .namespace}. */
  public static Map<String, Function<JsonNode, String>> objectMeta() {
    Map<String, Function<JsonNode, String>> fields = clusterObjectMeta();
    fields.put("metadata.namespace", path("metadata.namespace"));
    return fields;
  }

  /**
   * {@code metadata.name} alone: nodes and namespaces register a conversion of their own, which
   * omits {@code metadata.namespace}.
   */
  public static Map<String, Function<JsonNode, String>> clusterObjectMeta() {
    Map<String, Function<JsonNode, String>> fields = new LinkedHashMap<>();
    fields.put("metadata.name", path("metadata.name"));
    return fields;
  }

  /** The text of the value at a dotted path, empty when absent or not a value. */
  public static Function<JsonNode, String> path(String dotted) {
    String[] segments = dotted.split("\\.");
    return o -> {
      JsonNode n = o;
      for (String s : segments) {
        n = n.path(s);
      }
      return n.isValueNode() ? n.asText() : "";
    };
  }

  /** A boolean at a dotted path, {@code false} when absent, as Go prints a bool field. */
  public static Function<JsonNode, String> bool(String dotted) {
    Function<JsonNode, String> raw = path(dotted);
    return o -> raw.apply(o).equals("true") ? "true" : "false";
  }
}
