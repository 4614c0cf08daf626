package io.streamplane.gateway.server;

import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.admission.MutatingAdmission;
import io.streamplane.gateway.admission.ValidatingAdmission;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.Authenticator;
import io.streamplane.gateway.authn.BearerToken;
import io.streamplane.gateway.authn.ServiceAccountAuthenticator;
import io.streamplane.gateway.authn.TokenFile;
import io.streamplane.gateway.authn.X509Authenticator;
import io.streamplane.gateway.authz.Attributes;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.Authorizer;
import io.streamplane.gateway.authz.Decision;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.gateway.cache.WatchCache;
import java.security.PublicKey;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The request chain of a cluster's gateway, in one place: which authenticators, authorizers and
 * admission plugins run, and in which order. Adding a plugin is one line here.
 */
final class ClusterChain {

  private ClusterChain() {}

  static RequestChain of(WatchCache cache, GatewaySecurity security, Clock clock) {
    return new RequestChain(
        new Authentication(authenticators(cache, security, clock), security.anonymous()),
        new Authorization(authorizers(cache)),
        admission(cache));
  }

  /**
   * Tried in order; the first that names the user wins: client certificates, then bearer tokens
   * (the static token file, then ServiceAccount tokens), as kube-apiserver orders them.
   */
  static List<Authenticator> authenticators(
      WatchCache cache, GatewaySecurity security, Clock clock) {
    List<Authenticator> authenticators = new ArrayList<>();
    if (security.clientCaFile() != null) {
      authenticators.add(new X509Authenticator(security.clientCas(), clock));
    }
    List<BearerToken.TokenAuthenticator> tokens = new ArrayList<>();
    if (security.tokenAuthFile() != null) {
      tokens.add(TokenFile.read(security.tokenAuthFile()));
    }
    List<PublicKey> serviceAccountKeys = security.serviceAccountKeys();
    if (!serviceAccountKeys.isEmpty()) {
      tokens.add(
          new ServiceAccountAuthenticator(
              serviceAccountKeys,
              security.serviceAccountIssuer(),
              List.of(security.serviceAccountIssuer()),
              cache::get,
              clock));
    }
    if (!tokens.isEmpty()) {
      authenticators.add(new BearerToken(tokens));
    }
    return authenticators;
  }

  /** Asked in order; the first that allows or denies decides. */
  static List<Authorizer> authorizers(WatchCache cache) {
    return List.of(new PrivilegedGroups(), ClusterChain::nodesAndSelfReviews);
  }

  /**
   * Nodes ({@code system:nodes}) may do anything, and every authenticated user may review itself
   * ({@code selfsubjectreviews}, as Kubernetes' {@code system:basic-user} allows): what a cluster
   * needs to run pods when no Node or RBAC authorizer is listed above.
   */
  private static Decision nodesAndSelfReviews(Attributes attributes) {
    if (attributes.user().getGroups().contains("system:nodes")) {
      return Decision.allow("");
    }
    boolean selfReview =
        attributes.resourceRequest()
            && attributes.group().equals("authentication.k8s.io")
            && attributes.resource().equals("selfsubjectreviews")
            && attributes.verb().equals("create")
            && attributes.user().getGroups().contains("system:authenticated");
    return selfReview ? Decision.allow("") : Decision.noOpinion("");
  }

  /** Mutating plugins in order, then validating plugins in order. */
  static Admission admission(WatchCache cache) {
    List<MutatingAdmission> mutating = List.of();
    List<ValidatingAdmission> validating = List.of();
    return new Admission(mutating, validating);
  }
}
