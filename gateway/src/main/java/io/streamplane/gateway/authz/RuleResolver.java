package io.streamplane.gateway.authz;

import io.streamplane.log.UserInfo;
import java.util.List;

/**
 * An authorizer that can list what a user may do in a namespace, as Kubernetes' {@code
 * authorizer.RuleResolver}: what {@code SelfSubjectRulesReview} ({@code kubectl auth can-i --list})
 * answers. {@code incomplete} says the list cannot be exhaustive (the Node authorizer's decisions
 * depend on the objects); {@code errors} are the problems met while listing.
 */
public interface RuleResolver {

  record Rules(
      List<PolicyRule> resourceRules,
      List<PolicyRule> nonResourceRules,
      boolean incomplete,
      List<String> errors) {

    public static Rules none() {
      return new Rules(List.of(), List.of(), false, List.of());
    }
  }

  Rules rulesFor(UserInfo user, String namespace);
}
