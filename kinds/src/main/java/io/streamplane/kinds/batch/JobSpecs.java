package io.streamplane.kinds.batch;

import static io.streamplane.kinds.validation.FieldErrors.goMap;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import io.streamplane.api.JobSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.kinds.validation.PodSpecs;
import io.streamplane.log.StatusCause;
import java.util.List;
import java.util.Map;

/**
 * The checks of Kubernetes' {@code validateJobSpec} that a Job and a CronJob's job template share:
 * non-negative counts and durations, the completion mode (Indexed needs completions), the pod
 * replacement policy, the pod failure and success policies and the limits per index ({@link
 * JobPolicies}), and a pod template whose pods restart OnFailure or Never.
 */
final class JobSpecs {

  static final String NON_INDEXED = "NonIndexed";
  static final String INDEXED = "Indexed";
  static final int MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000;
  private static final List<String> RESTART_POLICIES = List.of("OnFailure", "Never");

  private JobSpecs() {}

  /** The spec at {@code path} ({@code spec}, {@code spec.jobTemplate.spec}). */
  static void validate(JobSpec spec, String path, List<StatusCause> causes) {
    nonNegative(path + ".parallelism", spec.getParallelism(), causes);
    nonNegative(path + ".completions", spec.getCompletions(), causes);
    nonNegative(path + ".activeDeadlineSeconds", spec.getActiveDeadlineSeconds(), causes);
    nonNegative(path + ".backoffLimit", spec.getBackoffLimit(), causes);
    nonNegative(path + ".backoffLimitPerIndex", spec.getBackoffLimitPerIndex(), causes);
    nonNegative(path + ".maxFailedIndexes", spec.getMaxFailedIndexes(), causes);
    nonNegative(path + ".ttlSecondsAfterFinished", spec.getTtlSecondsAfterFinished(), causes);
    String mode = spec.getCompletionMode();
    if (mode != null) {
      if (!mode.equals(NON_INDEXED) && !mode.equals(INDEXED)) {
        causes.add(notSupported(path + ".completionMode", mode, List.of(NON_INDEXED, INDEXED)));
      }
      if (mode.equals(INDEXED)) {
        if (spec.getCompletions() == null) {
          causes.add(required(path + ".completions", "when completion mode is Indexed"));
        }
        if (spec.getParallelism() != null
            && spec.getParallelism() > MAX_PARALLELISM_FOR_INDEXED_JOB) {
          causes.add(
              invalid(
                  path + ".parallelism",
                  spec.getParallelism().toString(),
                  "must be less than or equal to 100000 when completion mode is Indexed"));
        }
      }
    }
    JobPolicies.perIndex(spec, path, causes);
    JobPolicies.podFailurePolicy(spec, path, causes);
    JobPolicies.successPolicy(spec, path, causes);
    String replacement = spec.getPodReplacementPolicy();
    if (replacement != null) {
      if (spec.getPodFailurePolicy() != null) {
        if (!replacement.equals("Failed")) {
          causes.add(notSupported(path + ".podReplacementPolicy", replacement, List.of("Failed")));
        }
      } else if (!replacement.equals("TerminatingOrFailed") && !replacement.equals("Failed")) {
        causes.add(
            notSupported(
                path + ".podReplacementPolicy",
                replacement,
                List.of("Failed", "TerminatingOrFailed")));
      }
    }
    PodTemplateSpec template = spec.getTemplate();
    if (template == null) {
      causes.add(required(path + ".template"));
      return;
    }
    PodSpecs.validate(template.getSpec(), path + ".template.spec", causes);
    String restartPolicy =
        template.getSpec() == null ? null : template.getSpec().getRestartPolicy();
    String policy = restartPolicy == null ? "" : restartPolicy;
    if (!RESTART_POLICIES.contains(policy)) {
      causes.add(notSupported(path + ".template.spec.restartPolicy", policy, RESTART_POLICIES));
    } else if (policy.equals("OnFailure") && spec.getPodFailurePolicy() != null) {
      causes.add(
          invalid(
              path + ".template.spec.restartPolicy",
              quote(policy),
              "only \"Never\" is supported when podFailurePolicy is specified"));
    }
  }

  /** A Job's selector: required, and selecting its pod template. */
  static void selector(JobSpec spec, List<StatusCause> causes) {
    if (spec.getSelector() == null) {
      causes.add(required("spec.selector"));
      return;
    }
    Map<String, String> labels = templateLabels(spec.getTemplate());
    if (spec.getTemplate() != null && !LabelSelectors.matches(spec.getSelector(), labels)) {
      causes.add(
          invalid(
              "spec.template.metadata.labels",
              goMap(labels),
              "`selector` does not match template `labels`"));
    }
  }

  static Map<String, String> templateLabels(PodTemplateSpec template) {
    return template == null
            || template.getMetadata() == null
            || template.getMetadata().getLabels() == null
        ? Map.of()
        : template.getMetadata().getLabels();
  }

  private static void nonNegative(String field, Number value, List<StatusCause> causes) {
    if (value != null && value.longValue() < 0) {
      causes.add(invalid(field, value.toString(), "must be greater than or equal to 0"));
    }
  }
}
