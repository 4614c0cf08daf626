package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import java.util.List;

/**
 * kube-apiserver's NamespaceLifecycle plugin: nothing is created in a namespace that does not exist
 * (404 for the namespace) or is being terminated (403), and the namespaces {@code default}, {@code
 * kube-system} and {@code kube-public} cannot be deleted (403).
 *
 * <p>The namespace is looked up in the cache as it is, and only a miss waits for the cache to catch
 * up with the log (a namespace created just before). A write therefore pays no read barrier for its
 * namespace; a namespace already Terminating in the cache stays so, since termination is never
 * undone.
 *
 * <p>kube-apiserver registers it as a validating plugin; here it runs first among the mutating
 * ones, so that no later plugin looks for a ServiceAccount or a LimitRange in a namespace that does
 * not exist, and a create there is answered {@code namespaces "x" not found} as kubectl shows it.
 */
public final class NamespaceLifecycle implements MutatingAdmission {

  static final List<String> IMMORTAL_NAMESPACES = List.of("default", "kube-system", "kube-public");

  private final ClusterObjects objects;

  public NamespaceLifecycle(ClusterObjects objects) {
    this.objects = objects;
  }

  @Override
  public void admit(AdmissionRequest request) {
    if (request.operation() == Operation.DELETE
        && request.type().group().isEmpty()
        && request.type().plural().equals("namespaces")
        && IMMORTAL_NAMESPACES.contains(request.name())) {
      throw new ApiException(
          Statuses.forbidden(
              request.type().group(),
              request.type().plural(),
              request.name(),
              "this namespace may not be deleted"));
    }
    if (request.operation() != Operation.CREATE
        || !request.type().namespaced()
        || request.namespace() == null) {
      return;
    }
    String namespace = request.namespace();
    ObjectNode ns =
        objects
            .getFresh("", "namespaces", null, namespace)
            .orElseThrow(() -> new ApiException(Statuses.notFound("", "namespaces", namespace)));
    if (ns.path("metadata").has("deletionTimestamp")
        || "Terminating".equals(ns.path("status").path("phase").asText())) {
      throw new ApiException(
          Statuses.forbidden(
              request.type().group(),
              request.type().plural(),
              request.name(),
              "unable to create new content in namespace "
                  + namespace
                  + " because it is being terminated"));
    }
  }
}
