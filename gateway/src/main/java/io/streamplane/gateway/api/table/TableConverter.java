package io.streamplane.gateway.api.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kinds.ResourceType;
import io.streamplane.kinds.printers.Column;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.printers.Row;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * Server-side printing: turns one object or a list into a {@code meta.k8s.io/v1 Table}, the form
 * kubectl asks for ({@code Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...}) and prints
 * without knowing the kind.
 *
 * <p>Contract: columns and cells are those of kube-apiserver's printers for the kind (see {@link
 * Printer}, the kind strategy's); every row carries all columns, priority 1 being the {@code -o
 * wide} ones. Each row's {@code object} follows {@code includeObject}: None (left out), Metadata (a
 * {@code PartialObjectMetadata}, the default) or Object (the whole object). Table metadata carries
 * the list's (or object's) resourceVersion and the list's continue token. Ages are computed at the
 * injected clock's now. Objects are Kubernetes JSON, as stored objects are rendered.
 */
public final class TableConverter {

  /** The Content-Type of a Table answer. */
  public static final String CONTENT_TYPE = "application/json;as=Table;v=v1;g=meta.k8s.io";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** The {@code includeObject} query parameter. */
  public enum IncludeObject {
    NONE,
    METADATA,
    OBJECT;

    /** Parses "None", "Metadata", "Object"; absent means Metadata; anything else is a 400. */
    public static IncludeObject parse(String value) {
      if (value == null || value.isEmpty()) {
        return METADATA;
      }
      return switch (value) {
        case "None" -> NONE;
        case "Metadata" -> METADATA;
        case "Object" -> OBJECT;
        default ->
            throw Statuses.exception(
                Statuses.badRequest(
                    "includeObject must be one of [None Metadata Object], got \"" + value + "\""));
      };
    }
  }

  private final Clock clock;

  public TableConverter(Clock clock) {
    this.clock = clock;
  }

  /**
   * Whether an {@code Accept} header asks for a Table (v1, or v1beta1 which older kubectls send and
   * which has the same shape). The first range the server can produce decides, so a client that
   * prefers plain JSON gets plain JSON.
   */
  public static boolean requested(String accept) {
    if (accept == null) {
      return false;
    }
    for (String range : accept.split(",")) {
      String[] parts = range.split(";");
      String type = parts[0].trim().toLowerCase(Locale.ROOT);
      String as = "";
      String g = "";
      String v = "";
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].trim().split("=", 2);
        if (kv.length == 2) {
          switch (kv[0].trim()) {
            case "as" -> as = kv[1].trim();
            case "g" -> g = kv[1].trim();
            case "v" -> v = kv[1].trim();
            default -> {}
          }
        }
      }
      boolean json = type.equals("application/json");
      if (json
          && as.equals("Table")
          && g.equals("meta.k8s.io")
          && (v.equals("v1") || v.equals("v1beta1"))) {
        return true;
      }
      if ((json || type.equals("*/*") || type.equals("application/*")) && as.isEmpty()) {
        return false;
      }
    }
    return false;
  }

  /** A Table of one object. */
  public ObjectNode forObject(ResourceType type, JsonNode object, IncludeObject include) {
    ObjectNode table = header(type);
    String rv = object.path("metadata").path("resourceVersion").asText("");
    if (!rv.isEmpty()) {
      ((ObjectNode) table.get("metadata")).put("resourceVersion", rv);
    }
    addRow((ArrayNode) table.get("rows"), type, object, include, clock.instant());
    return table;
  }

  /** A Table of a list ({@code kind: PodList}, {@code items}, {@code metadata}). */
  public ObjectNode forList(ResourceType type, JsonNode list, IncludeObject include) {
    ObjectNode table = header(type);
    ObjectNode meta = (ObjectNode) table.get("metadata");
    JsonNode listMeta = list.path("metadata");
    for (String field : new String[] {"resourceVersion", "continue"}) {
      String value = listMeta.path(field).asText("");
      if (!value.isEmpty()) {
        meta.put(field, value);
      }
    }
    if (listMeta.has("remainingItemCount")) {
      meta.put("remainingItemCount", listMeta.path("remainingItemCount").asLong());
    }
    ArrayNode rows = (ArrayNode) table.get("rows");
    Instant now = clock.instant();
    for (JsonNode item : list.path("items")) {
      addRow(rows, type, item, include, now);
    }
    return table;
  }

  private ObjectNode header(ResourceType type) {
    ObjectNode table = JSON.objectNode();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    table.putObject("metadata");
    ArrayNode columns = table.putArray("columnDefinitions");
    for (Column c : type.strategy().printer().columns()) {
      columns
          .addObject()
          .put("name", c.name())
          .put("type", c.type())
          .put("format", c.format())
          .put("description", c.description())
          .put("priority", c.priority());
    }
    table.putArray("rows");
    return table;
  }

  private static void addRow(
      ArrayNode rows, ResourceType type, JsonNode object, IncludeObject include, Instant now) {
    Row row = type.strategy().printer().row(object, now);
    ObjectNode r = rows.addObject();
    ArrayNode cells = r.putArray("cells");
    for (Object cell : row.cells()) {
      if (cell instanceof Long l) {
        cells.add(l);
      } else if (cell instanceof Integer i) {
        cells.add(i);
      } else {
        cells.add(String.valueOf(cell));
      }
    }
    if (!row.conditions().isEmpty()) {
      ArrayNode conditions = r.putArray("conditions");
      for (Map<String, String> c : row.conditions()) {
        ObjectNode cond = conditions.addObject();
        c.forEach(cond::put);
      }
    }
    switch (include) {
      case NONE -> {}
      case OBJECT -> r.set("object", object.deepCopy());
      case METADATA -> {
        ObjectNode partial = r.putObject("object");
        partial.put("kind", "PartialObjectMetadata");
        partial.put("apiVersion", "meta.k8s.io/v1");
        JsonNode metadata = object.get("metadata");
        partial.set("metadata", metadata == null ? JSON.objectNode() : metadata.deepCopy());
      }
    }
  }
}
