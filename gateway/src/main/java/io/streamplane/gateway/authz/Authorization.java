package io.streamplane.gateway.authz;

import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * The authorization link of the request chain: the cluster's authorizers in order, as
 * kube-apiserver's {@code union.New}; the first to allow or deny decides, and a request none allows
 * is denied. {@link #rulesFor} is the union of the rule lists of the authorizers that can list them
 * ({@link RuleResolver}), as {@code union.NewRuleResolvers}.
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

  /** What {@code user} may do in {@code namespace}, for SelfSubjectRulesReview. */
  public RuleResolver.Rules rulesFor(UserInfo user, String namespace) {
    List<PolicyRule> resourceRules = new ArrayList<>();
    List<PolicyRule> nonResourceRules = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    boolean incomplete = false;
    for (Authorizer authorizer : authorizers) {
      if (authorizer instanceof RuleResolver resolver) {
        RuleResolver.Rules rules = resolver.rulesFor(user, namespace);
        resourceRules.addAll(rules.resourceRules());
        nonResourceRules.addAll(rules.nonResourceRules());
        errors.addAll(rules.errors());
        incomplete |= rules.incomplete();
      }
    }
    return new RuleResolver.Rules(resourceRules, nonResourceRules, incomplete, errors);
  }
}
