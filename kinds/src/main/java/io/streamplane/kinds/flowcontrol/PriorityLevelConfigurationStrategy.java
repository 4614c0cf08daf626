package io.streamplane.kinds.flowcontrol;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.defaults.JsonDefaults.putIfPositiveAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.PriorityLevelConfiguration;
import io.streamplane.api.PriorityLevelConfigurationSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration, stored and printed (Streamplane does
 * not apply API priority and fairness): {@code SetDefaults_*} of the v1 API (30 nominal shares and
 * nothing lendable for a Limited level, 0 for an Exempt one; queuing with 64 queues, hand size 8,
 * 50 long); a type Exempt or Limited, a Limited level with its limits and a known limit response; a
 * generation raised by every spec change; printed with its type, shares and queuing.
 *
 * <p>Limits: the queuing numbers are not checked against each other (hand size against queues).
 */
public final class PriorityLevelConfigurationStrategy implements KindStrategy {

  private static final List<String> TYPES = List.of("Exempt", "Limited");
  private static final List<String> LIMIT_RESPONSES = List.of("Queue", "Reject");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    JsonNode spec = object.path("spec");
    if (spec.path("limited") instanceof ObjectNode limited) {
      putIfAbsent(limited, "nominalConcurrencyShares", 30);
      putIfAbsent(limited, "lendablePercent", 0);
      if (limited.path("limitResponse").path("queuing") instanceof ObjectNode queuing) {
        putIfPositiveAbsent(queuing, "queues", 64);
        putIfPositiveAbsent(queuing, "handSize", 8);
        putIfPositiveAbsent(queuing, "queueLengthLimit", 50);
      }
    }
    if (spec.path("exempt") instanceof ObjectNode exempt) {
      putIfAbsent(exempt, "nominalConcurrencyShares", 0);
      putIfAbsent(exempt, "lendablePercent", 0);
    }
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    PriorityLevelConfigurationSpec spec = ((PriorityLevelConfiguration) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    String type = spec == null ? null : spec.getType();
    if (type == null || !TYPES.contains(type)) {
      causes.add(notSupported("spec.type", type == null ? "" : type, TYPES));
      return causes;
    }
    if (type.equals("Limited")) {
      if (spec.getLimited() == null) {
        causes.add(required("spec.limited", "must not be empty when type is Limited"));
      } else {
        var response = spec.getLimited().getLimitResponse();
        String responseType = response == null ? null : response.getType();
        if (responseType == null || !LIMIT_RESPONSES.contains(responseType)) {
          causes.add(
              notSupported(
                  "spec.limited.limitResponse.type",
                  responseType == null ? "" : responseType,
                  LIMIT_RESPONSES));
        } else if (responseType.equals("Queue") && response.getQueuing() == null) {
          causes.add(
              required(
                  "spec.limited.limitResponse.queuing",
                  "must not be empty if limitResponse.type is Queue"));
        }
      }
    } else if (spec.getLimited() != null) {
      causes.add(
          new StatusCause(
              "FieldValueForbidden",
              "Forbidden: must be nil if the type is not Limited",
              "spec.limited"));
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
                  "Type",
                  "string",
                  "`type` indicates whether this priority level is subject to limitation on"
                      + " request execution.  A value of `\"Exempt\"` means that requests of this"
                      + " priority level are not subject to a limit (and thus are never queued)"
                      + " and do not detract from the capacity made available to other priority"
                      + " levels.  A value of `\"Limited\"` means that (a) requests of this"
                      + " priority level _are_ subject to limits and (b) some of the server's"
                      + " limited capacity is made available exclusively to this priority level."
                      + " Required."),
              col(
                  "NominalConcurrencyShares",
                  "string",
                  "`nominalConcurrencyShares` (NCS) contributes to the computation of the"
                      + " NominalConcurrencyLimit (NominalCL) of this level."),
              col("Queues", "string", "`queues` is the number of queues for this priority level."),
              col(
                  "HandSize",
                  "string",
                  "`handSize` is a small positive number that configures the shuffle sharding of"
                      + " requests into queues."),
              col(
                  "QueueLengthLimit",
                  "string",
                  "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a"
                      + " given queue of this priority level at a time; excess requests are"
                      + " rejected.  This value must be positive.  If not specified, it will be"
                      + " defaulted to 50."),
              age()),
          (o, now) -> {
            JsonNode limited = o.path("spec").path("limited");
            JsonNode queuing = limited.path("limitResponse").path("queuing");
            boolean hasLimited = limited.isObject();
            boolean hasQueuing = hasLimited && queuing.isObject();
            return List.of(
                name(o),
                o.path("spec").path("type").asText(""),
                hasLimited ? (Object) limited.path("nominalConcurrencyShares").asLong(0) : "<none>",
                hasQueuing ? (Object) queuing.path("queues").asLong(0) : "<none>",
                hasQueuing ? (Object) queuing.path("handSize").asLong(0) : "<none>",
                hasQueuing ? (Object) queuing.path("queueLengthLimit").asLong(0) : "<none>",
                age(o, now));
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
