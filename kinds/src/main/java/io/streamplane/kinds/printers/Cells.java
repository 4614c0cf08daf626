package io.streamplane.kinds.printers;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The columns and cells that kube-apiserver's printers share: Name and Age, counts, container names
 * and images, label selectors as {@code labels.Selector.String()} prints them.
 */
public final class Cells {

  private Cells() {}

  public static final String NAME_DESCRIPTION =
      "Name must be unique within a namespace. Is required when creating resources, although some"
          + " resources may allow a client to request the generation of an appropriate name"
          + " automatically. Name is primarily intended for creation idempotence and configuration"
          + " definition. Cannot be updated. More info:"
          + " https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
  public static final String AGE_DESCRIPTION =
      "CreationTimestamp is a timestamp representing the server time when this object was"
          + " created. It is not guaranteed to be set in happens-before order across separate"
          + " operations. Clients may not set this value. It is represented in RFC3339 form and is"
          + " in UTC.\n\n"
          + "Populated by the system. Read-only. Null for lists. More info:"
          + " https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

  public static Column name() {
    return new Column("Name", "string", "name", NAME_DESCRIPTION, 0);
  }

  public static Column age() {
    return new Column("Age", "string", "", AGE_DESCRIPTION, 0);
  }

  public static Column col(String name, String type, String description) {
    return new Column(name, type, "", description, 0);
  }

  /** A column kubectl shows only with {@code -o wide}. */
  public static Column wide(String name, String description) {
    return new Column(name, "string", "", description, 1);
  }

  public static String name(JsonNode o) {
    return o.path("metadata").path("name").asText("");
  }

  public static String age(JsonNode o, Instant now) {
    return HumanDuration.since(o.path("metadata").path("creationTimestamp"), now);
  }

  public static String text(JsonNode n) {
    return n.isValueNode() ? n.asText() : "";
  }

  public static long count(JsonNode n) {
    return n.isObject() || n.isArray() ? n.size() : 0;
  }

  public static String orNone(String s) {
    return s.isEmpty() ? "<none>" : s;
  }

  /**
   * A {@code map[string]string} of labels as {@code labels.FormatLabels} prints it: {@code k=v}
   * sorted by key, joined by commas; {@code <none>} when empty.
   */
  public static String labels(JsonNode labels) {
    TreeMap<String, String> sorted = new TreeMap<>();
    labels.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
    if (sorted.isEmpty()) {
      return "<none>";
    }
    List<String> pairs = new ArrayList<>();
    sorted.forEach((k, v) -> pairs.add(k + "=" + v));
    return String.join(",", pairs);
  }

  /**
   * A {@code metav1.LabelSelector} as {@code metav1.FormatLabelSelector} prints it: {@link
   * #selector}, {@code <none>} when it selects by nothing.
   */
  public static String formatSelector(JsonNode selector) {
    String text = selector(selector);
    return text.equals("<invalid>") ? "<error>" : orNone(text);
  }

  /** A boolean as Go prints the value of a {@code *bool} with a default when nil. */
  public static boolean bool(JsonNode n, boolean unset) {
    return n.isBoolean() ? n.asBoolean() : unset;
  }

  /** {@code layoutContainerCells}: names and images joined with commas. */
  public static List<Object> containerCells(JsonNode podSpec) {
    List<String> names = new ArrayList<>();
    List<String> images = new ArrayList<>();
    for (JsonNode c : podSpec.path("containers")) {
      names.add(c.path("name").asText(""));
      images.add(c.path("image").asText(""));
    }
    return List.of(String.join(",", names), String.join(",", images));
  }

  /**
   * A {@code metav1.LabelSelector} as {@code LabelSelectorAsSelector(s).String()} prints it: the
   * requirements sorted by key, values sorted; empty for a missing selector (which selects
   * nothing), {@code <invalid>} for an unknown operator.
   */
  public static String selector(JsonNode selector) {
    if (selector.isMissingNode() || selector.isNull()) {
      return "";
    }
    TreeMap<String, List<String>> requirements = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = selector.path("matchLabels").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      requirements
          .computeIfAbsent(e.getKey(), k -> new ArrayList<>())
          .add(e.getKey() + "=" + e.getValue().asText());
    }
    for (JsonNode expression : selector.path("matchExpressions")) {
      String key = expression.path("key").asText();
      TreeSet<String> values = new TreeSet<>();
      expression.path("values").forEach(v -> values.add(v.asText()));
      String text =
          switch (expression.path("operator").asText()) {
            case "In" -> key + " in (" + String.join(",", values) + ")";
            case "NotIn" -> key + " notin (" + String.join(",", values) + ")";
            case "Exists" -> key;
            case "DoesNotExist" -> "!" + key;
            default -> null;
          };
      if (text == null) {
        return "<invalid>";
      }
      requirements.computeIfAbsent(key, k -> new ArrayList<>()).add(text);
    }
    List<String> all = new ArrayList<>();
    requirements.values().forEach(all::addAll);
    return String.join(",", all);
  }

  /** The creation time as RFC 3339, what the default table's Created At column holds. */
  public static String createdAt(JsonNode o) {
    return HumanDuration.parse(o.path("metadata").path("creationTimestamp"))
        .map(t -> DateTimeFormatter.ISO_INSTANT.format(t.atOffset(ZoneOffset.UTC).withNano(0)))
        .orElse("");
  }
}
