package io.streamplane.gateway.authz;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code metav1.LabelSelector} (matchLabels and matchExpressions with In, NotIn, Exists,
 * DoesNotExist), as an aggregated ClusterRole's {@code clusterRoleSelectors} use it. An empty
 * selector matches everything, as {@code metav1.LabelSelectorAsSelector} makes it.
 */
record LabelSelector(Map<String, String> matchLabels, List<Expression> expressions) {

  record Expression(String key, String operator, List<String> values) {}

  static LabelSelector parse(JsonNode selector) {
    Map<String, String> labels = new HashMap<>();
    selector
        .path("matchLabels")
        .fields()
        .forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
    List<Expression> expressions = new ArrayList<>();
    for (JsonNode e : selector.path("matchExpressions")) {
      expressions.add(
          new Expression(
              e.path("key").asText(),
              e.path("operator").asText(),
              PolicyRule.strings(e.path("values"))));
    }
    return new LabelSelector(Map.copyOf(labels), List.copyOf(expressions));
  }

  boolean matches(Map<String, String> labels) {
    for (Map.Entry<String, String> wanted : matchLabels.entrySet()) {
      if (!wanted.getValue().equals(labels.get(wanted.getKey()))) {
        return false;
      }
    }
    for (Expression e : expressions) {
      String value = labels.get(e.key());
      boolean ok =
          switch (e.operator()) {
            case "In" -> value != null && e.values().contains(value);
            case "NotIn" -> value == null || !e.values().contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default -> false;
          };
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
