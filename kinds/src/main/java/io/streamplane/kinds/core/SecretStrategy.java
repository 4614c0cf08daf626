package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.count;
import static io.streamplane.kinds.printers.Cells.name;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.quota.QuotaEvaluator;
import io.streamplane.kinds.selection.Fields;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * core/v1 Secret: the Opaque type by default, and {@code stringData} folded into {@code data} as
 * the API server does on write; selectable by {@code type}.
 */
public final class SecretStrategy implements KindStrategy {

  private static final QuotaEvaluator QUOTA = QuotaEvaluator.ownCount("secrets");

  @Override
  public QuotaEvaluator quota() {
    return QUOTA;
  }

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    if (!object.has("type")) {
      object.put("type", "Opaque");
    }
    JsonNode stringData = object.remove("stringData");
    if (stringData instanceof ObjectNode strings) {
      ObjectNode data = object.with("data");
      for (Iterator<Map.Entry<String, JsonNode>> it = strings.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> entry = it.next();
        data.put(
            entry.getKey(),
            Base64.getEncoder()
                .encodeToString(entry.getValue().asText().getBytes(StandardCharsets.UTF_8)));
      }
    }
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.objectMeta();
    fields.put("type", Fields.path("type"));
    return fields;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Type", "string", "Used to facilitate programmatic handling of secret data."),
              col("Data", "string", "Data contains the secret data."),
              age()),
          (o, now) ->
              List.of(name(o), o.path("type").asText(""), count(o.path("data")), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
