package io.streamplane.gateway.server;

import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.FixedUser;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.log.UserInfo;
import java.util.List;

/**
 * Who decides about a request: the authenticators ({@link WithAuthentication}), the authorizers
 * ({@link WithImpersonation} and {@link WithAuthorization}) and, for writes, the admission plugins
 * inside the {@link io.streamplane.gateway.storage.ResourceService}. The filters that ask them, and
 * their order, are the {@link HandlerChain}'s; a cluster's are chosen in {@link ClusterChain}.
 */
public record RequestChain(
    Authentication authentication, Authorization authorization, Admission admission) {

  /**
   * Every request acts as {@code user}, allowed everything when in {@code system:masters}: for a
   * gateway nobody but its own process reaches.
   */
  public static RequestChain unauthenticated(UserInfo user) {
    return new RequestChain(
        new Authentication(List.of(new FixedUser(user)), false),
        new Authorization(List.of(new PrivilegedGroups())),
        Admission.none());
  }
}
