package io.streamplane.controller.job;

import io.streamplane.api.Job;
import io.streamplane.api.JobCondition;
import io.streamplane.api.JobSpec;
import io.streamplane.api.JobStatus;
import io.streamplane.api.Pod;
import io.streamplane.api.PodFailurePolicy;
import io.streamplane.api.UncountedTerminatedPods;
import io.streamplane.controller.Controller.Decision;
import io.streamplane.controller.Controller.Result;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerEvents;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Intent;
import io.streamplane.controller.PodReadiness;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Kubernetes' job controller ({@code pkg/controller/job}'s {@code syncJob}) as a pure function of
 * one Job, the pods it controls, its pending writes and the time: the pods to create or delete, the
 * tracking finalizers to remove, the status to write, and when to look again.
 *
 * <p>Counting is kube-controller-manager's, with the {@code batch.kubernetes.io/job-tracking}
 * finalizer: a finished pod's uid is first written to {@code status.uncountedTerminatedPods} (an
 * Indexed Job's succeeded pod, its index to {@code completedIndexes}); once that status is observed
 * its finalizer is removed; once the pod is observed without it (or gone) its uid moves to {@code
 * succeeded} or {@code failed}. Each step reads only what the previous one wrote and was observed,
 * so no pod is counted twice or lost whichever controller instance takes the Job over.
 *
 * <p>Then, as {@code syncJob}: {@code startTime} when the Job first runs; a failed pod matching a
 * FailJob rule of the {@code podFailurePolicy} ({@link PodFailurePolicies}; Ignore rules keep a
 * failure from counting), failures beyond {@code backoffLimit}, a passed {@code
 * activeDeadlineSeconds}, or an Indexed Job's failed indexes (beyond {@code maxFailedIndexes}, or
 * once every index has succeeded or failed) set {@code FailureTarget}; its {@code successPolicy}
 * ({@link SuccessPolicies}) or enough successes set {@code SuccessCriteriaMet}; either deletes the
 * active pods, and once none is left and everything is counted the terminal {@code Failed} or
 * {@code Complete} (with {@code completionTime}) follows with the same reason and message. With
 * {@code backoffLimitPerIndex} an index fails after that many failures or at a FailIndex rule; each
 * new pod carries its index's failures so far in {@code
 * batch.kubernetes.io/job-index-failure-count}, read from the index's latest failed pod. A
 * suspended Job deletes its active pods and is {@code Suspended}; a resumed one starts its clock
 * again. Replacements of failed pods wait Kubernetes' back-off: 10 s doubled for each failure since
 * the last success, at most 6 min.
 *
 * <p>Pods are named {@code <job>-<5 chars>} ({@code <job>-<index>-<5 chars>} when Indexed), the
 * suffix derived from the Job's uid and a slot, so a decision taken twice creates the same pods. A
 * Job with creates or deletes pending creates and deletes nothing more.
 *
 * <p>Pods the Job controls that its selector no longer selects are released, their tracking
 * finalizer removed with the controller reference ({@link ControllerRefManager#claim}); orphans are
 * adopted, with the finalizer, by the namespace's index ({@code NamespaceControllers}).
 *
 * <p>Limits: managedBy is stored and not acted on.
 */
public final class JobReconciler {

  /** The finalizer that keeps a Job's pod until the Job has counted it. */
  public static final String TRACKING_FINALIZER = JobPods.TRACKING_FINALIZER;

  public static final UserInfo JOB_CONTROLLER = ControllerActors.serviceAccount("job-controller");
  static final UserInfo TTL_AFTER_FINISHED =
      ControllerActors.serviceAccount("ttl-after-finished-controller");

  static final int BURST = 500;
  static final Duration DEFAULT_BACKOFF = Duration.ofSeconds(10);
  static final Duration MAX_BACKOFF = Duration.ofMinutes(6);

  private JobReconciler() {}

  /**
   * The decisions for {@code job} (null when it was never seen or is deleted) and the pods that
   * refer to it as their controller.
   */
  public static Result reconcile(Job job, List<Pod> pods, Expectations expectations, Instant now) {
    if (job == null || job.getSpec() == null || job.getMetadata().getDeletionTimestamp() != null) {
      // A Job being deleted or gone lets its pods go, as kube-controller-manager removes the
      // finalizers of the pods whose Job it no longer finds.
      return Result.of(Result.by(JOB_CONTROLLER, untrackAll(pods)), null);
    }
    ControllerRefManager.Claimed<Pod> claimed =
        ControllerRefManager.claim(
            job.getMetadata(), pods, pod -> matches(job, pod), TRACKING_FINALIZER);
    List<Pod> owned = claimed.kept();
    List<Decision> releases = Result.by(JOB_CONTROLLER, claimed.releases());
    JobStatus status = job.getStatus() == null ? new JobStatus() : job.getStatus();
    Result result;
    if (finished(status)) {
      List<Decision> decisions = new ArrayList<>(Result.by(JOB_CONTROLLER, untrackAll(owned)));
      result = TtlAfterFinished.decide(job, status, decisions, now);
    } else {
      result = new Sync(job, owned, status, expectations, now).run();
    }
    if (releases.isEmpty()) {
      return result;
    }
    List<Decision> decisions = new ArrayList<>(releases);
    decisions.addAll(result.decisions());
    return new Result(decisions, result.requeueAt(), result.forget());
  }

  /**
   * Whether the Job's selector selects a pod: what it adopts (with its tracking finalizer), and
   * what it releases (without it) once it no longer does.
   */
  public static boolean matches(Job job, Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return job.getSpec() != null
        && job.getSpec().getSelector() != null
        && LabelSelectors.matches(job.getSpec().getSelector(), labels == null ? Map.of() : labels);
  }

  static boolean finished(JobStatus status) {
    return condition(status, "Complete") || condition(status, "Failed");
  }

  static boolean condition(JobStatus status, String type) {
    if (status.getConditions() == null) {
      return false;
    }
    return status.getConditions().stream()
        .anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static List<Intent> untrackAll(List<Pod> pods) {
    List<Intent> intents = new ArrayList<>();
    for (Pod pod : pods) {
      if (JobPods.tracked(pod)) {
        intents.add(Intent.update("pods", "", JobPods.untracked(pod)));
      }
    }
    return intents;
  }

  /** One sync of a running Job. */
  private static final class Sync {
    private final Job job;
    private final JobSpec spec;
    private final List<Pod> owned;
    private final JobStatus old;
    private final Expectations expectations;
    private final Instant now;
    private final boolean indexed;
    private final boolean perIndex;
    private final boolean onlyReplaceFailed;
    private final PodFailurePolicy failurePolicy;
    private final List<Intent> intents = new ArrayList<>();
    private Instant requeueAt;

    Sync(Job job, List<Pod> owned, JobStatus old, Expectations expectations, Instant now) {
      this.job = job;
      this.spec = job.getSpec();
      this.owned = owned;
      this.old = old;
      this.expectations = expectations;
      this.now = now;
      this.indexed = "Indexed".equals(spec.getCompletionMode());
      this.perIndex = indexed && spec.getBackoffLimitPerIndex() != null;
      this.failurePolicy = spec.getPodFailurePolicy();
      // With a pod failure policy only a pod that reached Failed has failed (isPodFailed).
      this.onlyReplaceFailed =
          "Failed".equals(spec.getPodReplacementPolicy()) || failurePolicy != null;
    }

    Result run() {
      JobStatus.Builder next = JobStatus.newBuilder(old);
      List<JobCondition> conditions =
          old.getConditions() == null ? new ArrayList<>() : new ArrayList<>(old.getConditions());

      // Counting, in the finalizer's three steps.
      Set<String> uncountedSucceeded = new LinkedHashSet<>(list(uncounted().getSucceeded()));
      Set<String> uncountedFailed = new LinkedHashSet<>(list(uncounted().getFailed()));
      int succeeded = zero(old.getSucceeded());
      int failed = zero(old.getFailed());
      TreeSet<Integer> completedIndexes = CompletedIndexes.parse(old.getCompletedIndexes());
      TreeSet<Integer> failedIndexes = CompletedIndexes.parse(old.getFailedIndexes());
      Set<String> stillTracked = new HashSet<>();
      // Once the Job is finishing, the pods it deletes fail no index (their finalizers go at once
      // in Kubernetes, before any sync could see them fail).
      boolean finishing = condition(old, "FailureTarget") || condition(old, "SuccessCriteriaMet");
      boolean suspended = Boolean.TRUE.equals(spec.getSuspend());
      int completions = spec.getCompletions() == null ? -1 : spec.getCompletions();
      for (Pod pod : owned) {
        if (!JobPods.tracked(pod)) {
          continue;
        }
        String podUid = pod.getMetadata().getUid();
        stillTracked.add(podUid);
        if (suspended && JobPods.deleting(pod) && !JobPods.succeeded(pod)) {
          // Pods deleted because the Job is suspended count neither as failures nor successes.
          untrack(pod);
        } else if (JobPods.succeeded(pod) && !uncountedFailed.contains(podUid)) {
          if (indexed) {
            int ix = JobPods.index(pod);
            boolean counts = ix >= 0 && ix < completions;
            if (counts && !observedIndex(ix)) {
              completedIndexes.add(ix);
            } else {
              untrack(pod);
            }
          } else if (uncountedSucceeded.contains(podUid) && observedUncounted(podUid)) {
            untrack(pod);
          } else {
            uncountedSucceeded.add(podUid);
          }
        } else if (JobPods.failed(pod, onlyReplaceFailed)) {
          PodFailurePolicies.Match match = PodFailurePolicies.match(failurePolicy, pod);
          if (!match.counts()) {
            // Ignored by the policy: released uncounted, as Kubernetes removes its finalizer.
            untrack(pod);
            continue;
          }
          if (perIndex && !finishing && indexFailed(pod, match, completions)) {
            failedIndexes.add(JobPods.index(pod));
          }
          countFailed(pod, uncountedFailed);
        }
      }
      for (String podUid : new ArrayList<>(uncountedSucceeded)) {
        if (!stillTracked.contains(podUid) && observedUncounted(podUid)) {
          uncountedSucceeded.remove(podUid);
          succeeded++;
        }
      }
      for (String podUid : new ArrayList<>(uncountedFailed)) {
        if (!stillTracked.contains(podUid) && observedUncounted(podUid)) {
          uncountedFailed.remove(podUid);
          failed++;
        }
      }
      if (indexed) {
        completedIndexes.removeIf(ix -> ix >= completions);
        failedIndexes.removeIf(ix -> ix >= completions || completedIndexes.contains(ix));
        succeeded = completedIndexes.size();
      }
      int succeededSoFar = indexed ? succeeded : succeeded + uncountedSucceeded.size();
      int failedSoFar = failed + uncountedFailed.size();

      List<Pod> active = owned.stream().filter(JobPods::active).toList();
      List<Pod> terminating = owned.stream().filter(JobPods::terminating).toList();

      // Suspension and the clock.
      Instant startTime = old.getStartTime();
      if (suspended) {
        setCondition(conditions, "Suspended", "True", "JobSuspended", "Job suspended");
      } else {
        if (condition(old, "Suspended")) {
          setCondition(conditions, "Suspended", "False", "JobResumed", "Job resumed");
          startTime = now;
        }
        if (startTime == null) {
          startTime = now;
        }
      }

      // Failure and success criteria.
      JobCondition failureTarget = find(conditions, "FailureTarget");
      JobCondition successCriteria = find(conditions, "SuccessCriteriaMet");
      if (failureTarget == null && successCriteria == null) {
        int backoffLimit = spec.getBackoffLimit() == null ? 6 : spec.getBackoffLimit();
        Long deadline = spec.getActiveDeadlineSeconds();
        String failJobMessage = failJobMessage();
        Integer maxFailedIndexes = spec.getMaxFailedIndexes();
        String successPolicyMessage =
            indexed
                ? SuccessPolicies.match(spec.getSuccessPolicy(), completions, completedIndexes)
                : null;
        if (failJobMessage != null) {
          failureTarget =
              setCondition(conditions, "FailureTarget", "True", "PodFailurePolicy", failJobMessage);
        } else if (failedSoFar > backoffLimit) {
          failureTarget =
              setCondition(
                  conditions,
                  "FailureTarget",
                  "True",
                  "BackoffLimitExceeded",
                  "Job has reached the specified backoff limit");
        } else if (deadline != null
            && !suspended
            && startTime != null
            && !now.isBefore(startTime.plusSeconds(deadline))) {
          failureTarget =
              setCondition(
                  conditions,
                  "FailureTarget",
                  "True",
                  "DeadlineExceeded",
                  "Job was active longer than specified deadline");
        } else if (perIndex
            && maxFailedIndexes != null
            && failedIndexes.size() > maxFailedIndexes) {
          failureTarget =
              setCondition(
                  conditions,
                  "FailureTarget",
                  "True",
                  "MaxFailedIndexesExceeded",
                  "Job has exceeded the specified maximal number of failed indexes");
        } else if (perIndex
            && !failedIndexes.isEmpty()
            && failedIndexes.size() + completedIndexes.size() >= completions) {
          failureTarget =
              setCondition(
                  conditions, "FailureTarget", "True", "FailedIndexes", "Job has failed indexes");
        } else if (successPolicyMessage != null) {
          successCriteria =
              setCondition(
                  conditions, "SuccessCriteriaMet", "True", "SuccessPolicy", successPolicyMessage);
        } else if (successful(succeededSoFar, active.size())) {
          successCriteria =
              setCondition(
                  conditions,
                  "SuccessCriteriaMet",
                  "True",
                  "CompletionsReached",
                  "Reached expected number of succeeded pods");
        } else if (deadline != null && !suspended && startTime != null) {
          requeue(startTime.plusSeconds(deadline));
        }
      }

      if (failureTarget != null && onlyReplaceFailed) {
        // A failing Job counts every pod it deleted as failed, whatever phase it ends in.
        for (Pod pod : terminating) {
          if (JobPods.tracked(pod)) {
            countFailed(pod, uncountedFailed);
          }
        }
      }

      boolean manage = !expectations.creatingOrDeleting("pods");
      Instant completionTime = old.getCompletionTime();
      if (failureTarget != null || successCriteria != null || suspended) {
        if (manage) {
          active.stream()
              .limit(BURST)
              .forEach(p -> intents.add(Intent.delete("pods", "", p, null)));
        }
        boolean settled =
            active.isEmpty()
                && terminating.isEmpty()
                && uncountedSucceeded.isEmpty()
                && uncountedFailed.isEmpty()
                && stillTracked.isEmpty();
        if (settled && failureTarget != null) {
          setCondition(
              conditions, "Failed", "True", failureTarget.getReason(), failureTarget.getMessage());
        } else if (settled && successCriteria != null) {
          setCondition(
              conditions,
              "Complete",
              "True",
              successCriteria.getReason(),
              successCriteria.getMessage());
          completionTime = now;
        }
      } else if (manage) {
        createOrDelete(active, terminating, succeededSoFar, completedIndexes, failedIndexes);
      }

      JobStatus status =
          next.setConditions(conditions.isEmpty() ? null : conditions)
              .setStartTime(startTime)
              .setCompletionTime(completionTime)
              .setActive(activeCount(active) == 0 ? null : activeCount(active))
              .setReady((int) active.stream().filter(PodReadiness::isReady).count())
              .setTerminating(terminating.size())
              .setSucceeded(succeeded == 0 ? null : succeeded)
              .setFailed(failed == 0 ? null : failed)
              .setCompletedIndexes(
                  indexed && !completedIndexes.isEmpty()
                      ? CompletedIndexes.format(completedIndexes)
                      : null)
              .setFailedIndexes(perIndex ? CompletedIndexes.format(failedIndexes) : null)
              .setUncountedTerminatedPods(
                  UncountedTerminatedPods.newBuilder()
                      .setSucceeded(
                          uncountedSucceeded.isEmpty() ? null : new ArrayList<>(uncountedSucceeded))
                      .setFailed(
                          uncountedFailed.isEmpty() ? null : new ArrayList<>(uncountedFailed))
                      .build())
              .build();
      if (!KubeObjects.same(status, old)) {
        Job updated = KubeObjects.copy(job);
        updated.setStatus(status);
        intents.add(Intent.updateStatus("jobs", "batch", updated));
      }
      intents.addAll(events(status));
      return Result.of(Result.by(JOB_CONTROLLER, intents), requeueAt);
    }

    /**
     * The active pods as the status reports them: those observed, plus the pods created and minus
     * those deleted by this sync and the ones still pending, as {@code manageJob} counts them.
     */
    private int activeCount(List<Pod> active) {
      int count = active.size() + expectations.creating("pods");
      for (Intent intent : intents) {
        if (intent.resource().equals("pods") && intent.verb() == CommandVerb.CREATE) {
          count++;
        } else if (intent.resource().equals("pods") && intent.verb() == CommandVerb.DELETE) {
          count--;
        }
      }
      return Math.max(0, count);
    }

    /** Whether the Job has succeeded: its completions, or any success of a work queue. */
    private boolean successful(int succeededSoFar, int active) {
      if (spec.getCompletions() == null) {
        return succeededSoFar > 0 && active == 0;
      }
      return succeededSoFar >= spec.getCompletions();
    }

    /** Pods to create up to parallelism and completions, or to delete beyond parallelism. */
    private void createOrDelete(
        List<Pod> active,
        List<Pod> terminating,
        int succeededSoFar,
        TreeSet<Integer> completedIndexes,
        TreeSet<Integer> failedIndexes) {
      int parallelism = spec.getParallelism() == null ? 1 : spec.getParallelism();
      int counted = active.size() + (onlyReplaceFailed ? terminating.size() : 0);
      int wanted;
      if (spec.getCompletions() == null) {
        wanted = succeededSoFar > 0 ? 0 : parallelism;
      } else if (indexed) {
        wanted =
            Math.min(
                parallelism,
                spec.getCompletions() - completedIndexes.size() - failedIndexes.size());
      } else {
        wanted = Math.min(parallelism, Math.max(0, spec.getCompletions() - succeededSoFar));
      }
      if (counted > wanted) {
        List<Pod> ranked = new ArrayList<>(active);
        ranked.sort(DELETION_ORDER);
        ranked.stream()
            .limit(Math.min(counted - wanted, BURST))
            .forEach(p -> intents.add(Intent.delete("pods", "", p, null)));
        return;
      }
      int toCreate = Math.min(wanted - counted, BURST);
      if (toCreate <= 0) {
        return;
      }
      Instant backoffUntil = perIndex ? null : backoffUntil();
      if (backoffUntil != null && now.isBefore(backoffUntil)) {
        requeue(backoffUntil);
        return;
      }
      Set<String> taken = new HashSet<>();
      owned.forEach(p -> taken.add(p.getMetadata().getName()));
      String name = job.getMetadata().getName();
      String uid = job.getMetadata().getUid();
      if (indexed) {
        Set<Integer> running = new HashSet<>();
        for (Pod pod : owned) {
          if (JobPods.active(pod) || (onlyReplaceFailed && JobPods.terminating(pod))) {
            running.add(JobPods.index(pod));
          }
          if (JobPods.succeeded(pod)) {
            running.add(JobPods.index(pod));
          }
        }
        for (int ix = 0; ix < spec.getCompletions() && toCreate > 0; ix++) {
          if (completedIndexes.contains(ix) || failedIndexes.contains(ix) || running.contains(ix)) {
            continue;
          }
          Pod pod = JobPods.newPod(job, "", ix);
          if (perIndex) {
            IndexFailures failures = indexFailures(ix);
            if (failures.retryAt() != null && now.isBefore(failures.retryAt())) {
              requeue(failures.retryAt());
              continue;
            }
            JobPods.annotateFailures(pod, failures.counted(), failures.ignored());
          }
          for (int slot = 0; ; slot++) {
            String podName = ReplicaSetReconciler.podName(name + "-" + ix, uid, slot);
            if (taken.add(podName)) {
              pod.getMetadata().setName(podName);
              intents.add(Intent.create("pods", "", pod));
              break;
            }
          }
          toCreate--;
        }
        return;
      }
      for (int slot = 0; toCreate > 0; slot++) {
        String podName = ReplicaSetReconciler.podName(name, uid, slot);
        if (taken.add(podName)) {
          intents.add(Intent.create("pods", "", JobPods.newPod(job, podName, -1)));
          toCreate--;
        }
      }
    }

    /**
     * When a replacement may be created: the last failure plus 10 s doubled for each failure since
     * the last success, at most 6 min ({@code getRemainingTime} of the job controller's back-off
     * records); null without failures.
     */
    private Instant backoffUntil() {
      Instant lastSuccess = null;
      for (Pod pod : owned) {
        if (JobPods.succeeded(pod)) {
          Instant at = JobPods.finishedAt(pod);
          if (lastSuccess == null || at.isAfter(lastSuccess)) {
            lastSuccess = at;
          }
        }
      }
      int failures = 0;
      Instant lastFailure = null;
      for (Pod pod : owned) {
        if (JobPods.failed(pod, onlyReplaceFailed)
            && PodFailurePolicies.match(failurePolicy, pod).counts()) {
          Instant at = JobPods.finishedAt(pod);
          if (lastSuccess == null || at.isAfter(lastSuccess)) {
            failures++;
            if (lastFailure == null || at.isAfter(lastFailure)) {
              lastFailure = at;
            }
          }
        }
      }
      return failures == 0 ? null : lastFailure.plus(backoff(failures));
    }

    /**
     * The Events the job controller records: {@code SuccessfulCreate} and {@code SuccessfulDelete}
     * of pods, {@code Completed}, the reason of a {@code Failed} condition ({@code
     * BackoffLimitExceeded}, {@code DeadlineExceeded}, {@code PodFailurePolicy}, ...), {@code
     * Suspended} and {@code Resumed}; a condition's Event named after the Job's version that led to
     * it.
     */
    private List<Intent> events(JobStatus status) {
      ControllerEvents events =
          ControllerEvents.about("Job", "batch/v1", job.getMetadata(), "job-controller", now);
      List<Intent> recorded =
          new ArrayList<>(
              events.forWrites(
                  intents, "pods", pod -> "Created pod: " + pod, pod -> "Deleted pod: " + pod));
      String version = job.getMetadata().getResourceVersion();
      if (condition(status, "Complete") && !condition(old, "Complete")) {
        recorded.add(events.event(ControllerEvents.NORMAL, "Completed", "Job completed", version));
      }
      JobCondition failedCondition = find(list(status.getConditions()), "Failed");
      if (failedCondition != null && !condition(old, "Failed")) {
        recorded.add(
            events.event(
                ControllerEvents.WARNING,
                failedCondition.getReason(),
                failedCondition.getMessage(),
                version));
      }
      boolean wasSuspended = condition(old, "Suspended");
      if (condition(status, "Suspended") && !wasSuspended) {
        recorded.add(events.event(ControllerEvents.NORMAL, "Suspended", "Job suspended", version));
      } else if (wasSuspended && !condition(status, "Suspended")) {
        recorded.add(events.event(ControllerEvents.NORMAL, "Resumed", "Job resumed", version));
      }
      return recorded;
    }

    /** The message of the first failed pod a FailJob rule matches ({@code getFailJobMessage}). */
    private String failJobMessage() {
      if (failurePolicy == null) {
        return null;
      }
      for (Pod pod : owned) {
        if (JobPods.failed(pod, onlyReplaceFailed)) {
          String message = PodFailurePolicies.match(failurePolicy, pod).failJobMessage();
          if (message != null) {
            return message;
          }
        }
      }
      return null;
    }

    /**
     * {@code isIndexFailed}: a failed pod fails its index when a FailIndex rule matches it, or when
     * it counts and its index had already failed {@code backoffLimitPerIndex} times.
     */
    private boolean indexFailed(Pod pod, PodFailurePolicies.Match match, int completions) {
      int ix = JobPods.index(pod);
      if (ix < 0 || ix >= completions) {
        return false;
      }
      return match.failsIndex()
          || (match.counts() && JobPods.indexFailureCount(pod) >= spec.getBackoffLimitPerIndex());
    }

    /** What a new pod of index {@code ix} carries of its index's failures, and when it may run. */
    private record IndexFailures(int counted, int ignored, Instant retryAt) {}

    /**
     * The failures of index {@code ix} so far, from its latest failed pod ({@code
     * getNewIndexFailureCounts}): that pod's counts plus its own failure, counted or ignored by the
     * policy; the replacement waits the back-off of the counted failures since that pod finished.
     */
    private IndexFailures indexFailures(int ix) {
      Pod replaced = null;
      for (Pod pod : owned) {
        if (JobPods.index(pod) == ix && JobPods.failed(pod, onlyReplaceFailed)) {
          if (replaced == null
              || JobPods.indexFailureCount(pod) + JobPods.indexIgnoredFailureCount(pod)
                  > JobPods.indexFailureCount(replaced) + JobPods.indexIgnoredFailureCount(replaced)
              || (JobPods.indexFailureCount(pod) + JobPods.indexIgnoredFailureCount(pod)
                      == JobPods.indexFailureCount(replaced)
                          + JobPods.indexIgnoredFailureCount(replaced)
                  && JobPods.finishedAt(pod).isAfter(JobPods.finishedAt(replaced)))) {
            replaced = pod;
          }
        }
      }
      if (replaced == null) {
        return new IndexFailures(0, 0, null);
      }
      int counted = JobPods.indexFailureCount(replaced);
      int ignored = JobPods.indexIgnoredFailureCount(replaced);
      if (PodFailurePolicies.match(failurePolicy, replaced).counts()) {
        counted++;
      } else {
        ignored++;
      }
      return new IndexFailures(
          counted,
          ignored,
          counted == 0 ? null : JobPods.finishedAt(replaced).plus(backoff(counted)));
    }

    /** The failed pod's uid into uncounted, or its finalizer removed once that was observed. */
    private void countFailed(Pod pod, Set<String> uncountedFailed) {
      String podUid = pod.getMetadata().getUid();
      if (uncountedFailed.contains(podUid) && observedUncounted(podUid)) {
        untrack(pod);
      } else {
        uncountedFailed.add(podUid);
      }
    }

    private void untrack(Pod pod) {
      intents.add(Intent.update("pods", "", JobPods.untracked(pod)));
    }

    private boolean observedIndex(int ix) {
      return CompletedIndexes.parse(old.getCompletedIndexes()).contains(ix);
    }

    /** Whether the stored status (what was observed) lists the uid as uncounted. */
    private boolean observedUncounted(String podUid) {
      return list(uncounted().getSucceeded()).contains(podUid)
          || list(uncounted().getFailed()).contains(podUid);
    }

    private UncountedTerminatedPods uncounted() {
      return old.getUncountedTerminatedPods() == null
          ? new UncountedTerminatedPods()
          : old.getUncountedTerminatedPods();
    }

    private void requeue(Instant at) {
      if (requeueAt == null || at.isBefore(requeueAt)) {
        requeueAt = at;
      }
    }

    /** Sets a condition of that type, keeping it (and its transition time) when unchanged. */
    private JobCondition setCondition(
        List<JobCondition> conditions, String type, String status, String reason, String message) {
      for (int i = 0; i < conditions.size(); i++) {
        JobCondition c = conditions.get(i);
        if (type.equals(c.getType())) {
          if (status.equals(c.getStatus()) && reason.equals(c.getReason())) {
            return c;
          }
          JobCondition changed =
              JobCondition.newBuilder(c)
                  .setStatus(status)
                  .setReason(reason)
                  .setMessage(message)
                  .setLastProbeTime(now)
                  .setLastTransitionTime(now)
                  .build();
          conditions.set(i, changed);
          return changed;
        }
      }
      JobCondition added =
          JobCondition.newBuilder()
              .setType(type)
              .setStatus(status)
              .setReason(reason)
              .setMessage(message)
              .setLastProbeTime(now)
              .setLastTransitionTime(now)
              .build();
      conditions.add(added);
      return added;
    }

    private static JobCondition find(List<JobCondition> conditions, String type) {
      return conditions.stream()
          .filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus()))
          .findFirst()
          .orElse(null);
    }
  }

  /** 10 s doubled for each failure after the first, at most 6 min. */
  static Duration backoff(int failures) {
    Duration delay = DEFAULT_BACKOFF;
    for (int i = 1; i < failures && delay.compareTo(MAX_BACKOFF) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : delay;
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static int zero(Integer n) {
    return n == null ? 0 : n;
  }

  /** The pods deleted first when parallelism drops: not ready, then newest. */
  private static final java.util.Comparator<Pod> DELETION_ORDER =
      java.util.Comparator.<Pod>comparingInt(p -> PodReadiness.isReady(p) ? 1 : 0)
          .thenComparing(
              (Pod p) ->
                  p.getMetadata().getCreationTimestamp() == null
                      ? Instant.MAX
                      : p.getMetadata().getCreationTimestamp(),
              java.util.Comparator.reverseOrder())
          .thenComparing(p -> p.getMetadata().getName());
}
