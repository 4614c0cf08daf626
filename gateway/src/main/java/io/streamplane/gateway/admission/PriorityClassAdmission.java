package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.kinds.scheduling.PriorityClassStrategy;
import java.util.Optional;

/**
 * The PriorityClass half of kube-apiserver's Priority admission plugin, with the system classes'
 * delete guard of its PriorityClass storage: at most one class is the global default (a second one
 * is refused 403, naming the class that already is), and the system classes cannot be deleted.
 *
 * <p>Limits: the default is looked for in the gateway's cache, so two gateways racing to make two
 * different classes the default may both succeed, as two kube-apiservers may. Pods' priority is not
 * resolved from their {@code priorityClassName}.
 */
public final class PriorityClassAdmission implements ValidatingAdmission {

  private static final String GROUP = "scheduling.k8s.io";
  private static final String RESOURCE = "priorityclasses";

  private final ClusterObjects objects;

  public PriorityClassAdmission(ClusterObjects objects) {
    this.objects = objects;
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
