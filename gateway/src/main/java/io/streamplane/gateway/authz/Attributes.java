package io.streamplane.gateway.authz;

import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;

/**
 * What an authorizer decides on, as Kubernetes' {@code authorizer.Attributes}: the user, and either
 * a resource request (verb, API group, resource, subresource, namespace, name; empty strings when
 * absent) or a non-resource request (verb and path).
 */
public record Attributes(
    UserInfo user,
    String verb,
    boolean resourceRequest,
    String group,
    String resource,
    String subresource,
    String namespace,
    String name,
    String path) {

  public static Attributes of(UserInfo user, RequestInfo request) {
    if (!request.resourceRequest()) {
      return new Attributes(user, request.verb(), false, "", "", "", "", "", request.path());
    }
    // kube-apiserver's RequestInfo gives /api/v1/namespaces/x the namespace x, so that a
    // RoleBinding in x can grant reading the namespace itself.
    String namespace =
        "namespaces".equals(request.resource()) && request.name() != null
            ? request.name()
            : orEmpty(request.namespace());
    return new Attributes(
        user,
        request.verb(),
        true,
        orEmpty(request.group()),
        orEmpty(request.resource()),
        orEmpty(request.subresource()),
        namespace,
        orEmpty(request.name()),
        request.path());
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }
}
