package io.streamplane.gateway.authz;

/**
 * Members of {@code system:masters} may do anything, whatever RBAC says, as kube-apiserver's
 * privileged-group authorizer that runs before every other.
 */
public final class PrivilegedGroups implements Authorizer {

  public static final String MASTERS = "system:masters";

  @Override
  public Decision authorize(Attributes attributes) {
    return attributes.user().getGroups().contains(MASTERS)
        ? Decision.allow("")
        : Decision.noOpinion("");
  }
}
