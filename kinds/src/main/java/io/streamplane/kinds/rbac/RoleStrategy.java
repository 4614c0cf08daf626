package io.streamplane.kinds.rbac;

import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.validation.Names;

/**
 * rbac.authorization.k8s.io/v1 Role and ClusterRole: named as path segments ({@code
 * ValidateRBACName}), so the default roles' {@code system:...} names are valid. Printed as the API
 * server's default table, as Kubernetes prints them too.
 */
public final class RoleStrategy implements KindStrategy {

  @Override
  public Names.Rule nameRule() {
    return Names.Rule.PATH_SEGMENT;
  }
}
