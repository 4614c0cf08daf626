package io.streamplane.kinds.selection;

import io.streamplane.api.LabelSelector;
import io.streamplane.api.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;

/** Matching of a spec's {@code metav1.LabelSelector}, as {@code LabelSelectorAsSelector}. */
public final class LabelSelectors {

  private LabelSelectors() {}

  /** Whether {@code labels} satisfy every requirement of {@code selector}. */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector.getMatchLabels() != null) {
      for (var entry : selector.getMatchLabels().entrySet()) {
        if (!entry.getValue().equals(labels.get(entry.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement requirement : selector.getMatchExpressions()) {
        String value = labels.get(requirement.getKey());
        List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        boolean ok =
            switch (String.valueOf(requirement.getOperator())) {
              case "In" -> value != null && values.contains(value);
              case "NotIn" -> value == null || !values.contains(value);
              case "Exists" -> value != null;
              case "DoesNotExist" -> value == null;
              default -> false;
            };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }
}
