package io.streamplane.gateway.server;

import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.admission.MutatingAdmission;
import io.streamplane.gateway.admission.ValidatingAdmission;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.Authenticator;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.AuthorizationIndex;
import io.streamplane.gateway.authz.Authorizer;
import io.streamplane.gateway.authz.BootstrapPolicy;
import io.streamplane.gateway.authz.NodeAuthorizer;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.gateway.authz.Rbac;
import io.streamplane.gateway.cache.WatchCache;
import java.util.List;

/**
 * The request chain of a cluster's gateway, in one place: which authenticators, authorizers and
 * admission plugins run, and in which order. Adding a plugin is one line here.
 */
final class ClusterChain {

  private ClusterChain() {}

  static RequestChain of(WatchCache cache) {
    return new RequestChain(
        new Authentication(authenticators(), true),
        new Authorization(authorizers(cache)),
        admission(cache));
  }

  /** Tried in order; the first that names the user wins. */
  static List<Authenticator> authenticators() {
    return List.of();
  }

  /**
   * Asked in order; the first that allows or denies decides: as kube-apiserver with {@code
   * --authorization-mode=Node,RBAC}, after the {@code system:masters} shortcut.
   */
  static List<Authorizer> authorizers(WatchCache cache) {
    AuthorizationIndex index = new AuthorizationIndex();
    index.follow(cache);
    return authorizers(index);
  }

  static List<Authorizer> authorizers(AuthorizationIndex index) {
    return List.of(
        new PrivilegedGroups(),
        new NodeAuthorizer(index, BootstrapPolicy.kubernetes().clusterRoleRules("system:node")),
        new Rbac(index));
  }

  /** Mutating plugins in order, then validating plugins in order. */
  static Admission admission(WatchCache cache) {
    List<MutatingAdmission> mutating = List.of();
    List<ValidatingAdmission> validating = List.of();
    return new Admission(mutating, validating);
  }
}
