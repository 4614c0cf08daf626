package io.streamplane.kinds.scheduling;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PriorityClass;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * scheduling.k8s.io/v1 PriorityClass: preemption policy {@code PreemptLowerPriority} by default;
 * the {@code system-} prefix reserved for the two system classes exactly as the API server defines
 * them, user classes at most one billion; value and preemption policy immutable. That only one
 * class is the global default is the Priority admission plugin's check, which needs the other
 * classes.
 */
public final class PriorityClassStrategy implements KindStrategy {

  /** {@code scheduling.HighestUserDefinablePriority}. */
  public static final int HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;

  /** {@code scheduling.SystemCriticalPriority}. */
  public static final int SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;

  static final String SYSTEM_PREFIX = "system-";

  private static final List<String> PREEMPTION_POLICIES = List.of("PreemptLowerPriority", "Never");

  /** The classes every cluster has ({@code scheduling.SystemPriorityClasses()}). */
  public static List<PriorityClass> systemPriorityClasses() {
    return List.of(
        system(
            "system-node-critical",
            SYSTEM_CRITICAL_PRIORITY + 1000,
            "Used for system critical pods that must not be moved from their current node."),
        system(
            "system-cluster-critical",
            SYSTEM_CRITICAL_PRIORITY,
            "Used for system critical pods that must run in the cluster, but can be moved to"
                + " another node if necessary."));
  }

  private static PriorityClass system(String name, int value, String description) {
    return PriorityClass.newBuilder()
        .setApiVersion("scheduling.k8s.io/v1")
        .setKind("PriorityClass")
        .setMetadata(ObjectMeta.newBuilder().setName(name).build())
        .setValue(value)
        .setDescription(description)
        .setPreemptionPolicy("PreemptLowerPriority")
        .build();
  }

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    putIfAbsent(object, "preemptionPolicy", "PreemptLowerPriority");
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    PriorityClass pc = (PriorityClass) object;
    List<StatusCause> causes = new ArrayList<>();
    String name = pc.getMetadata() == null ? null : pc.getMetadata().getName();
    int value = pc.getValue() == null ? 0 : pc.getValue();
    boolean globalDefault = Boolean.TRUE.equals(pc.getGlobalDefault());
    if (name != null && name.startsWith(SYSTEM_PREFIX)) {
      String error = systemClassError(name, value, globalDefault);
      if (error != null) {
        causes.add(
            forbidden(
                "metadata.name",
                "priority class names with '"
                    + SYSTEM_PREFIX
                    + "' prefix are reserved for system use only. error: "
                    + error));
      }
    } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
      causes.add(
          forbidden(
              "value",
              "maximum allowed value of a user defined priority is "
                  + HIGHEST_USER_DEFINABLE_PRIORITY));
    }
    String policy = pc.getPreemptionPolicy();
    if (policy != null) {
      if (policy.isEmpty()) {
        causes.add(required("preemptionPolicy", ""));
      } else if (!PREEMPTION_POLICIES.contains(policy)) {
        causes.add(notSupported("preemptionPolicy", policy, PREEMPTION_POLICIES));
      }
    }
    return causes;
  }

  /** {@code IsKnownSystemPriorityClass}'s error, or null for a known system class. */
  private static String systemClassError(String name, int value, boolean globalDefault) {
    for (PriorityClass system : systemPriorityClasses()) {
      if (system.getMetadata().getName().equals(name)) {
        if (system.getValue() != value) {
          return "value of " + name + " PriorityClass must be " + system.getValue();
        }
        if (globalDefault) {
          return "globalDefault of " + name + " PriorityClass must be false";
        }
        return null;
      }
    }
    return name + " is not a known system priority class";
  }

  /**
   * {@code ValidatePriorityClassUpdate}: only metadata, description and globalDefault may change.
   */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    PriorityClass pc = (PriorityClass) object;
    PriorityClass previous = (PriorityClass) old;
    List<StatusCause> causes = new ArrayList<>();
    if (!Objects.equals(pc.getValue(), previous.getValue())) {
      causes.add(forbidden("value", "may not be changed in an update."));
    }
    if (!Objects.equals(pc.getPreemptionPolicy(), previous.getPreemptionPolicy())) {
      String policy = pc.getPreemptionPolicy();
      causes.add(
          invalid(
              "preemptionPolicy", policy == null ? "null" : quote(policy), "field is immutable"));
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Value",
                  "integer",
                  "value represents the integer value of this priority class. This is the actual"
                      + " priority that pods receive when they have the name of this class in"
                      + " their pod spec."),
              col(
                  "Global-Default",
                  "boolean",
                  "globalDefault specifies whether this PriorityClass should be considered as the"
                      + " default priority for pods that do not have any priority class. Only one"
                      + " PriorityClass can be marked as `globalDefault`. However, if more than"
                      + " one PriorityClasses exists with their `globalDefault` field set to true,"
                      + " the smallest value of such global default PriorityClasses will be used"
                      + " as the default priority."),
              age(),
              col(
                  "PreemptionPolicy",
                  "string",
                  "preemptionPolicy is the Policy for preempting pods with lower priority. One of"
                      + " Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.")),
          (o, now) ->
              List.of(
                  name(o),
                  o.path("value").asLong(0),
                  o.path("globalDefault").asBoolean(false),
                  age(o, now),
                  o.path("preemptionPolicy").asText("")));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
