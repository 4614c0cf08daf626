package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.NAME_DESCRIPTION;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Column;
import io.streamplane.kinds.printers.HumanDuration;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.selection.Fields;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * core/v1 Event: selectable by its involved object, reason, type and source, as {@code kubectl
 * describe} and {@code kubectl events} select them; kubectl's event columns.
 */
public final class EventStrategy implements KindStrategy {

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.objectMeta();
    for (String p :
        List.of(
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "type")) {
      fields.put(p, Fields.path(p));
    }
    fields.put("reportingComponent", Fields.path("reportingComponent"));
    fields.put(
        "source",
        o -> {
          String component = o.path("source").path("component").asText("");
          return component.isEmpty() ? o.path("reportingComponent").asText("") : component;
        });
    return fields;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              col(
                  "Last Seen",
                  "string",
                  "The time at which the most recent occurrence of this event was recorded."),
              col(
                  "Type",
                  "string",
                  "Type of this event (Normal, Warning), new types could be added in the future"),
              col(
                  "Reason",
                  "string",
                  "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
              col("Object", "string", "The object that this event is about."),
              wide(
                  "Subobject",
                  "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]."),
              wide(
                  "Source",
                  "The component reporting this event. Should be a short machine understandable string."),
              col(
                  "Message",
                  "string",
                  "A human-readable description of the status of this operation."),
              wide(
                  "First Seen",
                  "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
              wide("Count", "The number of times this event has occurred."),
              new Column("Name", "string", "name", NAME_DESCRIPTION, 1)),
          (o, now) -> {
            String first = HumanDuration.since(o.path("firstTimestamp"), now);
            if (HumanDuration.parse(o.path("firstTimestamp")).isEmpty()) {
              first = HumanDuration.since(o.path("eventTime"), now);
            }
            String last = HumanDuration.since(o.path("lastTimestamp"), now);
            if (HumanDuration.parse(o.path("lastTimestamp")).isEmpty()) {
              last = first;
            }
            long count = o.path("count").asLong(0);
            JsonNode series = o.path("series");
            if (series.isObject()) {
              last = HumanDuration.since(series.path("lastObservedTime"), now);
              count = series.path("count").asLong(0);
            } else if (count == 0) {
              // Events written through events.k8s.io carry no count: they happened once.
              count = 1;
            }
            JsonNode involved = o.path("involvedObject");
            String kind = involved.path("kind").asText("").toLowerCase(Locale.ROOT);
            String involvedName = involved.path("name").asText("");
            String target = involvedName.isEmpty() ? kind : kind + "/" + involvedName;
            String component = o.path("source").path("component").asText("");
            if (component.isEmpty()) {
              component = o.path("reportingComponent").asText("");
            }
            String instance = o.path("source").path("host").asText("");
            if (instance.isEmpty()) {
              instance = o.path("reportingInstance").asText("");
            }
            List<Object> cells = new ArrayList<>();
            cells.add(last);
            cells.add(o.path("type").asText(""));
            cells.add(o.path("reason").asText(""));
            cells.add(target);
            cells.add(involved.path("fieldPath").asText(""));
            cells.add(instance.isEmpty() ? component : component + ", " + instance);
            cells.add(o.path("message").asText("").strip());
            cells.add(first);
            cells.add(count);
            cells.add(name(o));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
