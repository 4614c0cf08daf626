package io.streamplane.controller.job;

import io.streamplane.api.ContainerStatus;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodFailurePolicy;
import io.streamplane.api.PodFailurePolicyOnExitCodesRequirement;
import io.streamplane.api.PodFailurePolicyOnPodConditionsPattern;
import io.streamplane.api.PodFailurePolicyRule;
import io.streamplane.api.PodStatus;
import java.util.List;

/**
 * A failed pod matched against a Job's {@code podFailurePolicy}, as the job controller's {@code
 * matchPodFailurePolicy} does: the rules in order, the first that matches decides. A rule {@code
 * onExitCodes} matches a terminated container (of {@code containerName}, if given; containers
 * before init containers) with a non-zero exit code {@code In} or {@code NotIn} its values; a rule
 * {@code onPodConditions} matches a pod condition of that type and status (such as {@code
 * DisruptionTarget}, which preemption, eviction and taint eviction write).
 *
 * <p>{@code FailJob} fails the Job with the rule's message; {@code FailIndex} fails the pod's
 * index; {@code Ignore} does not count the failure against any limit; {@code Count}, or no match,
 * counts it as usual.
 */
final class PodFailurePolicies {

  static final String FAIL_JOB = "FailJob";
  static final String FAIL_INDEX = "FailIndex";
  static final String IGNORE = "Ignore";
  static final String COUNT = "Count";

  /** What the policy says of one failed pod: the matched action (null: none) and its message. */
  record Match(String action, String failJobMessage) {

    static final Match NONE = new Match(null, null);

    /** Whether the failure counts against backoffLimit and backoffLimitPerIndex. */
    boolean counts() {
      return !IGNORE.equals(action);
    }

    boolean failsIndex() {
      return FAIL_INDEX.equals(action);
    }
  }

  private PodFailurePolicies() {}

  static Match match(PodFailurePolicy policy, Pod pod) {
    if (policy == null || policy.getRules() == null) {
      return Match.NONE;
    }
    PodStatus status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    List<PodFailurePolicyRule> rules = policy.getRules();
    for (int index = 0; index < rules.size(); index++) {
      PodFailurePolicyRule rule = rules.get(index);
      String action = rule.getAction();
      if (!List.of(FAIL_JOB, FAIL_INDEX, IGNORE, COUNT).contains(action)) {
        continue;
      }
      String message = null;
      if (rule.getOnExitCodes() != null) {
        ContainerStatus container = matchExitCodes(status, rule.getOnExitCodes());
        if (container == null) {
          continue;
        }
        message =
            "Container "
                + container.getName()
                + " for pod "
                + podName(pod)
                + " failed with exit code "
                + container.getState().getTerminated().getExitCode()
                + " matching "
                + action
                + " rule at index "
                + index;
      } else if (rule.getOnPodConditions() != null) {
        PodCondition condition = matchConditions(status, rule.getOnPodConditions());
        if (condition == null) {
          continue;
        }
        message =
            "Pod "
                + podName(pod)
                + " has condition "
                + condition.getType()
                + " matching "
                + action
                + " rule at index "
                + index;
      } else {
        continue;
      }
      return new Match(action, FAIL_JOB.equals(action) ? message : null);
    }
    return Match.NONE;
  }

  private static ContainerStatus matchExitCodes(
      PodStatus status, PodFailurePolicyOnExitCodesRequirement requirement) {
    ContainerStatus container = matchExitCodes(status.getContainerStatuses(), requirement);
    return container != null
        ? container
        : matchExitCodes(status.getInitContainerStatuses(), requirement);
  }

  private static ContainerStatus matchExitCodes(
      List<ContainerStatus> containers, PodFailurePolicyOnExitCodesRequirement requirement) {
    if (containers == null) {
      return null;
    }
    for (ContainerStatus container : containers) {
      if (container.getState() == null || container.getState().getTerminated() == null) {
        continue;
      }
      if (requirement.getContainerName() != null
          && !requirement.getContainerName().equals(container.getName())) {
        continue;
      }
      Integer code = container.getState().getTerminated().getExitCode();
      int exitCode = code == null ? 0 : code;
      List<Integer> values = requirement.getValues() == null ? List.of() : requirement.getValues();
      boolean in = values.contains(exitCode);
      boolean matches =
          switch (requirement.getOperator() == null ? "" : requirement.getOperator()) {
            case "In" -> in;
            case "NotIn" -> !in;
            default -> false;
          };
      if (exitCode != 0 && matches) {
        return container;
      }
    }
    return null;
  }

  private static PodCondition matchConditions(
      PodStatus status, List<PodFailurePolicyOnPodConditionsPattern> patterns) {
    if (status.getConditions() == null) {
      return null;
    }
    for (PodCondition condition : status.getConditions()) {
      for (PodFailurePolicyOnPodConditionsPattern pattern : patterns) {
        if (pattern.getType() != null
            && pattern.getType().equals(condition.getType())
            && pattern.getStatus() != null
            && pattern.getStatus().equals(condition.getStatus())) {
          return condition;
        }
      }
    }
    return null;
  }

  private static String podName(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
