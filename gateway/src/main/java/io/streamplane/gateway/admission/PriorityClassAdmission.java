package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kinds.scheduling.PriorityClassStrategy;
import java.util.Comparator;
import java.util.Optional;

/**
 * kube-apiserver's Priority admission plugin, with the system classes' delete guard of its
 * PriorityClass storage.
 *
 * <p>Pods (mutating): a pod created gets {@code spec.priority} and {@code spec.preemptionPolicy}
 * from the PriorityClass its {@code priorityClassName} names — or, when it names none, from the
 * {@code globalDefault} class (whose name it then gets; the lowest value if several are default),
 * else priority 0 and {@code PreemptLowerPriority}. A pod naming a class that does not exist is
 * refused 403 ({@code no PriorityClass with name y was found}), and so is one that sets a priority
 * or a preemption policy other than the class's. An update keeps the priority and policy of the
 * stored pod when it carries none (kubectl replace of a manifest).
 *
 * <p>PriorityClasses (validating): at most one class is the global default (a second one is refused
 * 403, naming the class that already is), and the system classes cannot be deleted.
 *
 * <p>Limits: classes are looked for in the gateway's cache (a class created just before is found
 * after a catch-up with the log), so two gateways racing to make two different classes the default
 * may both succeed, as two kube-apiservers may.
 */
public final class PriorityClassAdmission implements MutatingAdmission, ValidatingAdmission {

  private static final String GROUP = "scheduling.k8s.io";
  private static final String RESOURCE = "priorityclasses";
  private static final String PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority";

  private final ClusterObjects objects;

  public PriorityClassAdmission(ClusterObjects objects) {
    this.objects = objects;
  }

  @Override
  public void admit(AdmissionRequest request) {
    if (!request.type().group().isEmpty()
        || !request.type().plural().equals("pods")
        || !request.subresource().isEmpty()
        || request.object() == null) {
      return;
    }
    ObjectNode spec = request.object().with("spec");
    if (request.operation() == Operation.UPDATE) {
      JsonNode old = request.oldObject() == null ? null : request.oldObject().path("spec");
      if (old != null) {
        for (String field : new String[] {"priority", "preemptionPolicy"}) {
          if (spec.path(field).isMissingNode() || spec.path(field).isNull()) {
            if (old.hasNonNull(field)) {
              spec.set(field, old.get(field));
            }
          }
        }
      }
      return;
    }
    if (request.operation() != Operation.CREATE) {
      return;
    }
    String className = spec.path("priorityClassName").asText("");
    int priority = 0;
    String policy = PREEMPT_LOWER_PRIORITY;
    if (className.isEmpty()) {
      Optional<ObjectNode> global = globalDefault();
      if (global.isPresent()) {
        spec.put("priorityClassName", global.get().path("metadata").path("name").asText());
        priority = global.get().path("value").asInt();
        policy = global.get().path("preemptionPolicy").asText(PREEMPT_LOWER_PRIORITY);
      }
    } else {
      Optional<ObjectNode> named = objects.get(GROUP, RESOURCE, null, className);
      if (named.isEmpty()) {
        named = objects.getFresh(GROUP, RESOURCE, null, className);
      }
      if (named.isEmpty()) {
        throw new ApiException(
            Statuses.forbidden(
                "",
                "pods",
                request.name(),
                "no PriorityClass with name " + className + " was found"));
      }
      priority = named.get().path("value").asInt();
      policy = named.get().path("preemptionPolicy").asText(PREEMPT_LOWER_PRIORITY);
    }
    if (spec.hasNonNull("priority") && spec.path("priority").asInt() != priority) {
      throw new ApiException(
          Statuses.forbidden(
              "",
              "pods",
              request.name(),
              "the integer value of priority ("
                  + spec.path("priority").asInt()
                  + ") must not be provided in pod spec; priority admission controller computed "
                  + priority
                  + " from the given PriorityClass name"));
    }
    spec.put("priority", priority);
    if (spec.hasNonNull("preemptionPolicy")
        && !spec.path("preemptionPolicy").asText().equals(policy)) {
      throw new ApiException(
          Statuses.forbidden(
              "",
              "pods",
              request.name(),
              "the string value of PreemptionPolicy ("
                  + spec.path("preemptionPolicy").asText()
                  + ") must not be provided in pod spec; priority admission controller computed "
                  + policy
                  + " from the given PriorityClass name"));
    }
    spec.put("preemptionPolicy", policy);
  }

  /** The global default class; the lowest value when several are (two gateways raced). */
  private Optional<ObjectNode> globalDefault() {
    return objects.list(GROUP, RESOURCE, null).stream()
        .filter(pc -> pc.path("globalDefault").asBoolean(false))
        .min(
            Comparator.<ObjectNode>comparingInt(pc -> pc.path("value").asInt())
                .thenComparing(pc -> pc.path("metadata").path("name").asText()));
  }

  @Override
  public void validate(AdmissionRequest request) {
    if (!request.type().group().equals(GROUP)
        || !request.type().plural().equals(RESOURCE)
        || !request.subresource().isEmpty()) {
      return;
    }
    if (request.operation() == Operation.DELETE) {
      boolean system =
          PriorityClassStrategy.systemPriorityClasses().stream()
              .anyMatch(pc -> pc.getMetadata().getName().equals(request.name()));
      if (system) {
        throw new ApiException(
            Statuses.forbidden(
                GROUP,
                RESOURCE,
                request.name(),
                "this is a system priority class and cannot be deleted"));
      }
      return;
    }
    ObjectNode object = request.object();
    if (object == null || !object.path("globalDefault").asBoolean(false)) {
      return;
    }
    Optional<String> current =
        objects.list(GROUP, RESOURCE, null).stream()
            .filter(pc -> pc.path("globalDefault").asBoolean(false))
            .map(pc -> pc.path("metadata").path("name").asText())
            .findFirst();
    if (current.isPresent()
        && (request.operation() == Operation.CREATE || !current.get().equals(request.name()))) {
      throw new ApiException(
          Statuses.forbidden(
              GROUP,
              RESOURCE,
              request.name(),
              "PriorityClass "
                  + current.get()
                  + " is marked as default. Only one default can exist"));
    }
  }
}
