package io.streamplane.controller.job;

import io.streamplane.api.Job;
import io.streamplane.api.JobCondition;
import io.streamplane.api.JobStatus;
import io.streamplane.controller.Controller.Decision;
import io.streamplane.controller.Controller.Result;
import io.streamplane.controller.Intent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Kubernetes' TTL-after-finished controller ({@code pkg/controller/ttlafterfinished}) for one
 * finished Job: a Job with {@code ttlSecondsAfterFinished} is deleted (Foreground, so its pods go
 * first) that many seconds after it finished — its {@code completionTime}, or when its {@code
 * Complete} or {@code Failed} condition turned True. Until then the Job is looked at again at that
 * moment and at no other: the wait is a due time in the controller's queue, which survives a
 * rebalance.
 */
final class TtlAfterFinished {

  private TtlAfterFinished() {}

  static Result decide(Job job, JobStatus status, List<Decision> decisions, Instant now) {
    Integer ttl = job.getSpec().getTtlSecondsAfterFinished();
    Instant finishedAt = finishedAt(status);
    if (ttl == null || finishedAt == null) {
      return Result.of(decisions, null);
    }
    Instant expireAt = finishedAt.plusSeconds(ttl);
    if (now.isBefore(expireAt)) {
      return Result.of(decisions, expireAt);
    }
    List<Decision> all = new ArrayList<>(decisions);
    all.add(
        new Decision(
            Intent.delete("jobs", "batch", job, "Foreground"), JobReconciler.TTL_AFTER_FINISHED));
    return Result.of(all, null);
  }

  static Instant finishedAt(JobStatus status) {
    if (status.getConditions() != null) {
      for (JobCondition c : status.getConditions()) {
        if (("Complete".equals(c.getType()) || "Failed".equals(c.getType()))
            && "True".equals(c.getStatus())) {
          return c.getLastTransitionTime() != null
              ? c.getLastTransitionTime()
              : status.getCompletionTime();
        }
      }
    }
    return null;
  }
}
