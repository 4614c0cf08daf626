package io.streamplane.kinds.batch;

import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;
import static io.streamplane.kinds.validation.FieldErrors.tooMany;

import io.streamplane.api.Container;
import io.streamplane.api.JobSpec;
import io.streamplane.api.PodFailurePolicyOnExitCodesRequirement;
import io.streamplane.api.PodFailurePolicyOnPodConditionsPattern;
import io.streamplane.api.PodFailurePolicyRule;
import io.streamplane.api.PodSpec;
import io.streamplane.api.SuccessPolicyRule;
import io.streamplane.kinds.validation.Names;
import io.streamplane.log.StatusCause;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * kube-apiserver's checks of a Job's {@code podFailurePolicy} and {@code successPolicy}, and of
 * {@code backoffLimitPerIndex} and {@code maxFailedIndexes} ({@code validatePodFailurePolicy},
 * {@code validateSuccessPolicy} and their part of {@code validateJobSpec}), with its messages.
 *
 * <p>Limits: a successPolicy refused on a NonIndexed Job shows its value as {@code
 * batch.SuccessPolicy{...}}, where Go prints the whole struct with its pointers.
 */
final class JobPolicies {

  static final List<String> ACTIONS = List.of("Count", "FailIndex", "FailJob", "Ignore");
  static final List<String> OPERATORS = List.of("In", "NotIn");
  static final List<String> CONDITION_STATUSES = List.of("False", "True", "Unknown");
  static final int MAX_RULES = 20;
  static final int MAX_EXIT_CODES = 255;
  static final int MAX_CONDITION_PATTERNS = 20;
  static final int MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
  static final int MAX_FAILED_INDEXES = 100_000;
  static final int COMPLETIONS_SOFT_LIMIT = 100_000;
  static final int PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
  static final int MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS = 10_000;

  private JobPolicies() {}

  /** {@code backoffLimitPerIndex} and {@code maxFailedIndexes} against the completion mode. */
  static void perIndex(JobSpec spec, String path, List<StatusCause> causes) {
    Integer perIndex = spec.getBackoffLimitPerIndex();
    Integer maxFailed = spec.getMaxFailedIndexes();
    if (maxFailed != null && perIndex == null) {
      causes.add(required(path + ".backoffLimitPerIndex", "when maxFailedIndexes is specified"));
    }
    if (!JobSpecs.INDEXED.equals(spec.getCompletionMode())) {
      if (perIndex != null) {
        causes.add(
            invalid(
                path + ".backoffLimitPerIndex",
                perIndex.toString(),
                "requires indexed completion mode"));
      }
      if (maxFailed != null) {
        causes.add(
            invalid(
                path + ".maxFailedIndexes",
                maxFailed.toString(),
                "requires indexed completion mode"));
      }
      return;
    }
    Integer completions = spec.getCompletions();
    if (completions != null && maxFailed != null && maxFailed > completions) {
      causes.add(
          invalid(
              path + ".maxFailedIndexes",
              maxFailed.toString(),
              "must be less than or equal to completions"));
    }
    if (maxFailed != null && maxFailed > MAX_FAILED_INDEXES) {
      causes.add(
          invalid(
              path + ".maxFailedIndexes",
              maxFailed.toString(),
              "must be less than or equal to " + MAX_FAILED_INDEXES));
    }
    if (completions != null && completions > COMPLETIONS_SOFT_LIMIT && perIndex != null) {
      String high =
          " when completions are above "
              + COMPLETIONS_SOFT_LIMIT
              + " and used with backoff limit per index";
      if (maxFailed == null) {
        causes.add(
            required(
                path + ".maxFailedIndexes",
                "must be specified when completions is above " + COMPLETIONS_SOFT_LIMIT));
      }
      if (spec.getParallelism() != null
          && spec.getParallelism() > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
        causes.add(
            invalid(
                path + ".parallelism",
                spec.getParallelism().toString(),
                "must be less than or equal to " + PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS + high));
      }
      if (maxFailed != null && maxFailed > MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS) {
        causes.add(
            invalid(
                path + ".maxFailedIndexes",
                maxFailed.toString(),
                "must be less than or equal to " + MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS + high));
      }
    }
  }

  /** {@code validatePodFailurePolicy}: at most 20 rules, each one valid for the template. */
  static void podFailurePolicy(JobSpec spec, String path, List<StatusCause> causes) {
    if (spec.getPodFailurePolicy() == null) {
      return;
    }
    List<PodFailurePolicyRule> rules = list(spec.getPodFailurePolicy().getRules());
    String rulesPath = path + ".podFailurePolicy.rules";
    if (rules.size() > MAX_RULES) {
      causes.add(tooMany(rulesPath, rules.size(), MAX_RULES));
    }
    Set<String> containerNames = containerNames(spec);
    for (int i = 0; i < rules.size(); i++) {
      rule(spec, rules.get(i), rulesPath + "[" + i + "]", containerNames, causes);
    }
  }

  private static void rule(
      JobSpec spec,
      PodFailurePolicyRule rule,
      String path,
      Set<String> containerNames,
      List<StatusCause> causes) {
    String action = rule.getAction();
    if (action == null || action.isEmpty()) {
      causes.add(required(path + ".action", "valid values: " + goList(ACTIONS)));
    } else if (action.equals("FailIndex")) {
      if (spec.getBackoffLimitPerIndex() == null) {
        causes.add(
            invalid(
                path + ".action", quote(action), "requires the backoffLimitPerIndex to be set"));
      }
    } else if (!ACTIONS.contains(action)) {
      causes.add(notSupported(path + ".action", action, ACTIONS));
    }
    PodFailurePolicyOnExitCodesRequirement onExitCodes = rule.getOnExitCodes();
    List<PodFailurePolicyOnPodConditionsPattern> onPodConditions = list(rule.getOnPodConditions());
    if (onExitCodes != null) {
      onExitCodes(onExitCodes, path + ".onExitCodes", containerNames, causes);
    }
    if (!onPodConditions.isEmpty()) {
      onPodConditions(onPodConditions, path + ".onPodConditions", causes);
    }
    if (onExitCodes != null && !onPodConditions.isEmpty()) {
      causes.add(omitted(path, "specifying both OnExitCodes and OnPodConditions is not supported"));
    }
    if (onExitCodes == null && onPodConditions.isEmpty()) {
      causes.add(omitted(path, "specifying one of OnExitCodes and OnPodConditions is required"));
    }
  }

  private static void onExitCodes(
      PodFailurePolicyOnExitCodesRequirement requirement,
      String path,
      Set<String> containerNames,
      List<StatusCause> causes) {
    String operator = requirement.getOperator();
    if (operator == null || operator.isEmpty()) {
      causes.add(required(path + ".operator", "valid values: " + goList(OPERATORS)));
    } else if (!OPERATORS.contains(operator)) {
      causes.add(notSupported(path + ".operator", operator, OPERATORS));
    }
    String containerName = requirement.getContainerName();
    if (containerName != null && !containerNames.contains(containerName)) {
      causes.add(
          invalid(
              path + ".containerName",
              quote(containerName),
              "must be one of the container or initContainer names in the pod template"));
    }
    List<Integer> values = list(requirement.getValues());
    String valuesPath = path + ".values";
    if (values.isEmpty()) {
      causes.add(invalid(valuesPath, goInts(values), "at least one value is required"));
    } else if (values.size() > MAX_EXIT_CODES) {
      causes.add(tooMany(valuesPath, values.size(), MAX_EXIT_CODES));
    }
    boolean ordered = true;
    Set<Integer> unique = new HashSet<>();
    for (int j = 0; j < values.size(); j++) {
      int value = values.get(j);
      String valuePath = valuesPath + "[" + j + "]";
      if ("In".equals(operator) && value == 0) {
        causes.add(invalid(valuePath, "0", "must not be 0 for the In operator"));
      }
      if (!unique.add(value)) {
        causes.add(new StatusCause("FieldValueDuplicate", "Duplicate value: " + value, valuePath));
      }
      if (j > 0 && values.get(j - 1) > value) {
        ordered = false;
      }
    }
    if (!ordered) {
      causes.add(invalid(valuesPath, goInts(values), "must be ordered"));
    }
  }

  private static void onPodConditions(
      List<PodFailurePolicyOnPodConditionsPattern> patterns,
      String path,
      List<StatusCause> causes) {
    if (patterns.size() > MAX_CONDITION_PATTERNS) {
      causes.add(tooMany(path, patterns.size(), MAX_CONDITION_PATTERNS));
    }
    for (int j = 0; j < patterns.size(); j++) {
      PodFailurePolicyOnPodConditionsPattern pattern = patterns.get(j);
      String patternPath = path + "[" + j + "]";
      causes.addAll(
          Names.qualifiedName(
              patternPath + ".type", pattern.getType() == null ? "" : pattern.getType()));
      String status = pattern.getStatus();
      if (status == null || status.isEmpty()) {
        causes.add(
            required(patternPath + ".status", "valid values: " + goList(CONDITION_STATUSES)));
      } else if (!CONDITION_STATUSES.contains(status)) {
        causes.add(notSupported(patternPath + ".status", status, CONDITION_STATUSES));
      }
    }
  }

  /** {@code validateSuccessPolicy}: Indexed Jobs only, 1 to 20 rules, each one valid. */
  static void successPolicy(JobSpec spec, String path, List<StatusCause> causes) {
    if (spec.getSuccessPolicy() == null) {
      return;
    }
    String policyPath = path + ".successPolicy";
    if (!JobSpecs.INDEXED.equals(spec.getCompletionMode())) {
      causes.add(
          invalid(policyPath, "batch.SuccessPolicy{...}", "requires indexed completion mode"));
      return;
    }
    List<SuccessPolicyRule> rules = list(spec.getSuccessPolicy().getRules());
    String rulesPath = policyPath + ".rules";
    if (rules.isEmpty()) {
      causes.add(
          required(
              rulesPath,
              "at least one rules must be specified when the successPolicy is specified"));
    }
    if (rules.size() > MAX_RULES) {
      causes.add(tooMany(rulesPath, rules.size(), MAX_RULES));
    }
    int completions = spec.getCompletions() == null ? 0 : spec.getCompletions();
    for (int i = 0; i < rules.size(); i++) {
      successRule(rules.get(i), rulesPath + "[" + i + "]", completions, causes);
    }
  }

  private static void successRule(
      SuccessPolicyRule rule, String path, int completions, List<StatusCause> causes) {
    String indexes = rule.getSucceededIndexes();
    Integer count = rule.getSucceededCount();
    if (count == null && indexes == null) {
      causes.add(
          required(path, "at least one of succeededCount or succeededIndexes must be specified"));
    }
    long total = 0;
    if (indexes != null) {
      String indexesPath = path + ".succeededIndexes";
      if (indexes.length() > MAX_SUCCEEDED_INDEXES_LENGTH) {
        causes.add(
            new StatusCause(
                "FieldValueTooLong",
                "Too long: may not be more than " + MAX_SUCCEEDED_INDEXES_LENGTH + " bytes",
                indexesPath));
      }
      try {
        total = IndexIntervals.total(indexes, completions);
      } catch (IllegalArgumentException e) {
        causes.add(
            invalid(
                indexesPath, quote(indexes), "error parsing succeededIndexes: " + e.getMessage()));
      }
    }
    if (count != null) {
      String countPath = path + ".succeededCount";
      if (count < 0) {
        causes.add(invalid(countPath, count.toString(), "must be greater than or equal to 0"));
      }
      if (count > completions) {
        causes.add(
            invalid(
                countPath,
                count.toString(),
                "must be less than or equal to "
                    + completions
                    + " (the number of specified completions)"));
      }
      if (indexes != null && count > total) {
        causes.add(
            invalid(
                countPath,
                count.toString(),
                "must be less than or equal to "
                    + total
                    + " (the number of indexes in the specified succeededIndexes field)"));
      }
    }
  }

  private static Set<String> containerNames(JobSpec spec) {
    Set<String> names = new HashSet<>();
    PodSpec podSpec = spec.getTemplate() == null ? null : spec.getTemplate().getSpec();
    if (podSpec != null) {
      for (Container c : list(podSpec.getContainers())) {
        names.add(c.getName());
      }
      for (Container c : list(podSpec.getInitContainers())) {
        names.add(c.getName());
      }
    }
    return names;
  }

  /** A {@code field.Invalid} whose value is omitted ({@code field.OmitValueType}). */
  private static StatusCause omitted(String field, String detail) {
    return new StatusCause("FieldValueInvalid", "Invalid value: " + detail, field);
  }

  /** A list of strings as Go's {@code %q} prints a slice: {@code ["In" "NotIn"]}. */
  private static String goList(List<String> values) {
    return values.stream().map(v -> quote(v)).collect(Collectors.joining(" ", "[", "]"));
  }

  /** exit codes as Go's {@code %#v} prints an {@code []int32}. */
  private static String goInts(List<Integer> values) {
    return values.stream().map(String::valueOf).collect(Collectors.joining(", ", "[]int32{", "}"));
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }
}
