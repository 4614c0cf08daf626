package io.streamplane.controller.job;

import io.streamplane.api.SuccessPolicy;
import io.streamplane.api.SuccessPolicyRule;
import java.util.List;
import java.util.TreeSet;

/**
 * An Indexed Job's {@code successPolicy} against its succeeded indexes, as the job controller's
 * {@code matchSuccessPolicy} does: the rules in order, the first met decides. A rule with {@code
 * succeededIndexes} is met when all of those indexes succeeded, or (with {@code succeededCount})
 * when that many of them did; a rule with only {@code succeededCount} when that many indexes
 * succeeded. The message is {@code Matched rules at index <i>}.
 */
final class SuccessPolicies {

  private SuccessPolicies() {}

  /** The message of the first rule met, or null when none is (or there is no policy). */
  static String match(SuccessPolicy policy, int completions, TreeSet<Integer> succeeded) {
    if (policy == null || policy.getRules() == null || succeeded.isEmpty()) {
      return null;
    }
    List<SuccessPolicyRule> rules = policy.getRules();
    for (int index = 0; index < rules.size(); index++) {
      SuccessPolicyRule rule = rules.get(index);
      Integer count = rule.getSucceededCount();
      if (rule.getSucceededIndexes() != null) {
        TreeSet<Integer> required = CompletedIndexes.parse(rule.getSucceededIndexes(), completions);
        if (required.isEmpty()) {
          continue;
        }
        long contained = required.stream().filter(succeeded::contains).count();
        if (contained == required.size() || (count != null && contained >= count)) {
          return "Matched rules at index " + index;
        }
      } else if (count != null && succeeded.size() >= count) {
        return "Matched rules at index " + index;
      }
    }
    return null;
  }
}
