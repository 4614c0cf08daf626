package io.streamplane.gateway.authz;

import java.util.List;

/**
 * The authorization link of the request chain: the cluster's authorizers in order, as
 * kube-apiserver's {@code union.New}; the first to allow or deny decides, and a request none allows
 * is denied.
 */
public final class Authorization {

  private final List<Authorizer> authorizers;

  public Authorization(List<Authorizer> authorizers) {
    this.authorizers = List.copyOf(authorizers);
  }

  public Decision authorize(Attributes attributes) {
    StringBuilder reasons = new StringBuilder();
    for (Authorizer authorizer : authorizers) {
      Decision decision = authorizer.authorize(attributes);
      if (decision.verdict() != Decision.Verdict.NO_OPINION) {
        return decision;
      }
      if (decision.reason() != null && !decision.reason().isEmpty()) {
        reasons.append(reasons.isEmpty() ? "" : ", ").append(decision.reason());
      }
    }
    return Decision.noOpinion(reasons.toString());
  }
}
