package io.streamplane.kinds.flowcontrol;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfPositiveAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.FlowSchema;
import io.streamplane.api.FlowSchemaSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * flowcontrol.apiserver.k8s.io/v1 FlowSchema, stored and printed (Streamplane does not apply API
 * priority and fairness): matching precedence 1000 by default and within 1..10000; a priority level
 * named; a known distinguisher method; a generation raised by every spec change; printed with its
 * priority level, precedence, distinguisher and whether that level is missing.
 *
 * <p>Limits: the rules' verbs, groups, resources and subjects are not checked.
 */
public final class FlowSchemaStrategy implements KindStrategy {

  private static final List<String> DISTINGUISHER_METHODS = List.of("ByUser", "ByNamespace");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    putIfPositiveAbsent(object.with("spec"), "matchingPrecedence", 1000);
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    FlowSchemaSpec spec = ((FlowSchema) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    String level =
        spec == null || spec.getPriorityLevelConfiguration() == null
            ? null
            : spec.getPriorityLevelConfiguration().getName();
    if (level == null || level.isEmpty()) {
      causes.add(
          required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
    }
    int precedence =
        spec == null || spec.getMatchingPrecedence() == null ? 0 : spec.getMatchingPrecedence();
    if (precedence <= 0) {
      causes.add(
          invalid(
              "spec.matchingPrecedence", Integer.toString(precedence), "must be a positive value"));
    } else if (precedence > 10000) {
      causes.add(
          invalid(
              "spec.matchingPrecedence",
              Integer.toString(precedence),
              "must not be greater than 10000"));
    }
    if (spec != null && spec.getDistinguisherMethod() != null) {
      String type = spec.getDistinguisherMethod().getType();
      if (type == null || !DISTINGUISHER_METHODS.contains(type)) {
        causes.add(
            notSupported(
                "spec.distinguisherMethod.type", type == null ? "" : type, DISTINGUISHER_METHODS));
      }
    }
    return causes;
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "PriorityLevel",
                  "string",
                  "`name` is the name of the priority level configuration being referenced"
                      + " Required."),
              col(
                  "MatchingPrecedence",
                  "string",
                  "`matchingPrecedence` is used to choose among the FlowSchemas that match a given"
                      + " request. The chosen FlowSchema is among those with the numerically"
                      + " lowest (which we take to be logically highest) MatchingPrecedence.  Each"
                      + " MatchingPrecedence value must be ranged in [1,10000]. Note that if the"
                      + " precedence is not specified, it will be set to 1000 as default."),
              col(
                  "DistinguisherMethod",
                  "string",
                  "`distinguisherMethod` defines how to compute the flow distinguisher for"
                      + " requests that match this schema. `nil` specifies that the distinguisher"
                      + " is disabled and thus will always be the empty string."),
              age(),
              col(
                  "MissingPL",
                  "string",
                  "references a broken or non-existent PriorityLevelConfiguration")),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            return List.of(
                name(o),
                spec.path("priorityLevelConfiguration").path("name").asText(""),
                spec.path("matchingPrecedence").asLong(0),
                spec.path("distinguisherMethod").isObject()
                    ? spec.path("distinguisherMethod").path("type").asText("")
                    : "<none>",
                age(o, now),
                dangling(o.path("status")));
          });

  /** The status of the Dangling condition, {@code ?} without one. */
  static String dangling(JsonNode status) {
    for (JsonNode condition : status.path("conditions")) {
      if (condition.path("type").asText("").equals("Dangling")) {
        return condition.path("status").asText("");
      }
    }
    return "?";
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
