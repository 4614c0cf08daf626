package io.streamplane.kinds.events;

import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Column;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.printers.Row;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * events.k8s.io/v1 Event, a view of core/v1 Events ({@link EventConversion}): what a create through
 * this version must carry beyond a core Event ({@code ValidateEventCreate} for events.k8s.io/v1: an
 * {@code eventTime}, the reporting controller and instance, an action and a reason, and none of the
 * deprecated core fields), its field selectors, and the core Event's columns, as kube-apiserver
 * prints both versions from the one internal Event.
 */
public final class EventStrategy implements KindStrategy {

  private static final int REPORTING_INSTANCE_LIMIT = 128;
  private static final int ACTION_LIMIT = 128;
  private static final int REASON_LIMIT = 128;
  private static final int NOTE_LIMIT = 1024;

  private final KindStrategy storage;
  private final EventConversion conversion = new EventConversion();

  /** {@code storage}: the core Event's strategy, whose printer prints this version too. */
  public EventStrategy(KindStrategy storage) {
    this.storage = storage;
  }

  @Override
  public List<StatusCause> validateVersionedCreate(JsonNode event) {
    List<StatusCause> causes = new ArrayList<>();
    if (text(event, "eventTime").isEmpty()) {
      causes.add(required("eventTime"));
    }
    String type = text(event, "type");
    if (!type.equals("Normal") && !type.equals("Warning")) {
      causes.add(invalid("type", "\"\"", "has invalid value: " + type));
    }
    String controller = text(event, "reportingController");
    if (controller.isEmpty()) {
      causes.add(required("reportingController"));
    } else {
      causes.addAll(Names.qualifiedName("reportingController", controller));
    }
    limit(causes, event, "reportingInstance", REPORTING_INSTANCE_LIMIT, true);
    limit(causes, event, "action", ACTION_LIMIT, true);
    limit(causes, event, "reason", REASON_LIMIT, true);
    limit(causes, event, "note", NOTE_LIMIT, false);
    // The fields kept for core/v1 Events only; the core names, as the internal Event's paths.
    for (String deprecated :
        List.of("deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount")) {
      JsonNode value = event.path(deprecated);
      if (!value.isMissingNode() && !value.isNull() && !value.asText("").equals("0")) {
        causes.add(invalid(EventConversion.RENAMED.get(deprecated), "\"\"", "needs to be unset"));
      }
    }
    if (!text(event.path("deprecatedSource"), "component").isEmpty()
        || !text(event.path("deprecatedSource"), "host").isEmpty()) {
      causes.add(invalid("source", "\"\"", "needs to be unset"));
    }
    return causes;
  }

  private static void limit(
      List<StatusCause> causes, JsonNode event, String field, int limit, boolean needed) {
    String value = text(event, field);
    if (needed && value.isEmpty()) {
      causes.add(required(field));
    } else if (value.length() > limit) {
      causes.add(invalid(field, "\"\"", "can have at most " + limit + " characters"));
    }
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isValueNode() && !value.isNull() ? value.asText() : "";
  }

  /** The fields events.k8s.io/v1 selects on (its field label conversion). */
  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.objectMeta();
    for (String p :
        List.of(
            "regarding.kind",
            "regarding.namespace",
            "regarding.name",
            "regarding.uid",
            "regarding.apiVersion",
            "regarding.resourceVersion",
            "regarding.fieldPath",
            "reason",
            "reportingController",
            "type")) {
      fields.put(p, Fields.path(p));
    }
    return fields;
  }

  @Override
  public Printer printer() {
    Printer core = storage.printer();
    return new Printer() {
      @Override
      public List<Column> columns() {
        return core.columns();
      }

      @Override
      public Row row(JsonNode object, Instant now) {
        return core.row(object instanceof ObjectNode o ? conversion.toStorage(o) : object, now);
      }
    };
  }
}
