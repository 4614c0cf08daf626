package io.streamplane.kinds.apps;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.api.ControllerRevision;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * apps/v1 ControllerRevision: data required, a non-negative revision, and data that never changes
 * once written; printed with its controller ({@code statefulset.apps/web}) and revision.
 */
public final class ControllerRevisionStrategy implements KindStrategy {

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    List<StatusCause> causes = new ArrayList<>();
    if (((ControllerRevision) object).getData() == null) {
      causes.add(required("data", "data is mandatory"));
    }
    Long revision = ((ControllerRevision) object).getRevision();
    if (revision != null && revision < 0) {
      causes.add(invalid("revision", revision.toString(), "must be greater than or equal to 0"));
    }
    return causes;
  }

  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    String data = ((ControllerRevision) object).getData();
    if (!Objects.equals(data, ((ControllerRevision) old).getData())) {
      causes.add(invalid("data", data == null ? "null" : data, "field is immutable"));
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Controller", "string", "Controller of the object"),
              col(
                  "Revision",
                  "string",
                  "Revision indicates the revision of the state represented by Data."),
              age()),
          (o, now) ->
              List.of(
                  name(o),
                  controller(o.path("metadata").path("ownerReferences")),
                  o.path("revision").asLong(0),
                  age(o, now)));

  /**
   * The controller owner as {@code formatResourceName} prints it with its kind: the lower-case
   * group kind, a slash, the name; {@code <none>} without one.
   */
  static String controller(JsonNode ownerReferences) {
    for (JsonNode owner : ownerReferences) {
      if (owner.path("controller").asBoolean(false)) {
        String apiVersion = owner.path("apiVersion").asText("");
        String group = apiVersion.contains("/") ? apiVersion.split("/")[0] : "";
        String kind = owner.path("kind").asText("");
        String groupKind = group.isEmpty() ? kind : kind + "." + group;
        String name = owner.path("name").asText("");
        return groupKind.isEmpty() ? name : groupKind.toLowerCase(Locale.ROOT) + "/" + name;
      }
    }
    return "<none>";
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
