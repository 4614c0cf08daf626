package io.streamplane.controller.cronjob;

import io.streamplane.api.CronJob;
import io.streamplane.api.CronJobSpec;
import io.streamplane.api.CronJobStatus;
import io.streamplane.api.Job;
import io.streamplane.api.JobCondition;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.controller.Controller.Result;
import io.streamplane.controller.ControllerActors;
import io.streamplane.controller.ControllerEvents;
import io.streamplane.controller.Intent;
import io.streamplane.controller.Owners;
import io.streamplane.kinds.batch.CronJobStrategy;
import io.streamplane.kinds.batch.CronSchedule;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Kubernetes' CronJob controller ({@code pkg/controller/cronjob}'s {@code syncCronJob}) as a pure
 * function of one CronJob, the Jobs it controls and the time: the Job of the most recent scheduled
 * time not yet run, named {@code <cronjob>-<scheduled time in minutes since the epoch>} so a
 * decision taken twice creates one Job; {@code concurrencyPolicy} (Forbid skips a run while a Job
 * is active, Replace deletes the active Jobs first); {@code startingDeadlineSeconds} (a run missed
 * by more is skipped); {@code suspend}; the history limits (the oldest finished Jobs beyond {@code
 * successfulJobsHistoryLimit} and {@code failedJobsHistoryLimit} are deleted); and the status:
 * {@code active}, {@code lastScheduleTime}, {@code lastSuccessfulTime}. The schedule is read in
 * {@code spec.timeZone}, else the controllers' own zone; the next run is the moment to look again,
 * a due time in the controller's queue.
 *
 * <p>Limits: no Events (missed schedules, {@code UnknownTimeZone}); a Job created and not yet
 * observed enters {@code active} when it is observed.
 */
public final class CronJobReconciler {

  static final UserInfo CRONJOB_CONTROLLER = ControllerActors.serviceAccount("cronjob-controller");
  static final String SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp";

  private CronJobReconciler() {}

  public static Result reconcile(CronJob cronJob, List<Job> jobs, ZoneId localZone, Instant now) {
    if (cronJob == null
        || cronJob.getSpec() == null
        || cronJob.getMetadata().getDeletionTimestamp() != null) {
      return Result.nothing();
    }
    CronJobSpec spec = cronJob.getSpec();
    ObjectMeta meta = cronJob.getMetadata();
    List<Job> owned =
        jobs.stream().filter(j -> Owners.controlledBy(j.getMetadata(), meta.getUid())).toList();
    CronJobStatus old = cronJob.getStatus() == null ? new CronJobStatus() : cronJob.getStatus();
    List<Intent> intents = new ArrayList<>();

    List<Job> active = owned.stream().filter(j -> !finished(j)).toList();
    Instant lastSuccessful = old.getLastSuccessfulTime();
    for (Job job : owned) {
      Instant completed = job.getStatus() == null ? null : job.getStatus().getCompletionTime();
      if (condition(job, "Complete")
          && completed != null
          && (lastSuccessful == null || completed.isAfter(lastSuccessful))) {
        lastSuccessful = completed;
      }
    }
    Instant lastSchedule = old.getLastScheduleTime();
    Instant requeueAt = null;

    CronSchedule schedule = parse(spec.getSchedule());
    ZoneId zone = spec.getTimeZone() == null ? localZone : CronJobStrategy.zone(spec.getTimeZone());
    if (schedule != null && zone != null && !Boolean.TRUE.equals(spec.getSuspend())) {
      Instant earliest = lastSchedule != null ? lastSchedule : meta.getCreationTimestamp();
      if (earliest == null) {
        earliest = now;
      }
      Long deadline = spec.getStartingDeadlineSeconds();
      if (deadline != null && earliest.isBefore(now.minusSeconds(deadline))) {
        earliest = now.minusSeconds(deadline);
      }
      Instant scheduled = mostRecent(schedule, earliest, now, zone);
      ZonedDateTime next = schedule.next(now.atZone(zone));
      requeueAt = next == null ? null : next.toInstant();
      String jobName =
          meta.getName() + "-" + (scheduled == null ? 0 : scheduled.getEpochSecond() / 60);
      boolean alreadyRun =
          scheduled == null
              || owned.stream().anyMatch(j -> j.getMetadata().getName().equals(jobName));
      boolean tooLate =
          scheduled != null && deadline != null && scheduled.plusSeconds(deadline).isBefore(now);
      String policy = spec.getConcurrencyPolicy() == null ? "Allow" : spec.getConcurrencyPolicy();
      if (!alreadyRun && !tooLate && !("Forbid".equals(policy) && !active.isEmpty())) {
        if ("Replace".equals(policy)) {
          active.forEach(j -> intents.add(Intent.delete("jobs", "batch", j, "Background")));
        }
        intents.add(Intent.create("jobs", "batch", newJob(cronJob, jobName, scheduled, zone)));
        lastSchedule = scheduled;
      }
    }

    historyLimit(owned, "Complete", spec.getSuccessfulJobsHistoryLimit(), 3, intents);
    historyLimit(owned, "Failed", spec.getFailedJobsHistoryLimit(), 1, intents);

    CronJobStatus status =
        CronJobStatus.newBuilder(old)
            .setActive(
                active.isEmpty() ? null : active.stream().map(CronJobReconciler::ref).toList())
            .setLastScheduleTime(lastSchedule)
            .setLastSuccessfulTime(lastSuccessful)
            .build();
    if (!KubeObjects.same(status, old)) {
      CronJob updated = KubeObjects.copy(cronJob);
      updated.setStatus(status);
      intents.add(Intent.updateStatus("cronjobs", "batch", updated));
    }
    intents.addAll(events(cronJob, old, owned, intents, now));
    return Result.of(Result.by(CRONJOB_CONTROLLER, intents), requeueAt);
  }

  /**
   * The Events the CronJob controller records: {@code SuccessfulCreate} and {@code
   * SuccessfulDelete} of its Jobs, and {@code SawCompletedJob} for a Job of its {@code active} list
   * found finished.
   */
  private static List<Intent> events(
      CronJob cronJob, CronJobStatus old, List<Job> owned, List<Intent> writes, Instant now) {
    ControllerEvents events =
        ControllerEvents.about(
            "CronJob", "batch/v1", cronJob.getMetadata(), "cronjob-controller", now);
    List<Intent> recorded =
        new ArrayList<>(
            events.forWrites(
                writes, "jobs", job -> "Created job " + job, job -> "Deleted job " + job));
    Set<String> wasActive = new HashSet<>();
    if (old.getActive() != null) {
      old.getActive().forEach(ref -> wasActive.add(ref.getUid()));
    }
    for (Job job : owned) {
      if (wasActive.contains(job.getMetadata().getUid()) && finished(job)) {
        String type = condition(job, "Complete") ? "Complete" : "Failed";
        recorded.add(
            events.event(
                ControllerEvents.NORMAL,
                "SawCompletedJob",
                "Saw completed job: " + job.getMetadata().getName() + ", condition: " + type,
                job.getMetadata().getUid()));
      }
    }
    return recorded;
  }

  /** The latest scheduled time in {@code (earliest, now]}, or null. */
  static Instant mostRecent(CronSchedule schedule, Instant earliest, Instant now, ZoneId zone) {
    Instant found = null;
    ZonedDateTime t = schedule.next(earliest.atZone(zone));
    // Kubernetes gives up counting after 100 missed runs and takes the most recent; so do we,
    // jumping ahead rather than walking a year of minutes.
    int steps = 0;
    while (t != null && !t.toInstant().isAfter(now)) {
      found = t.toInstant();
      if (++steps > 100) {
        ZonedDateTime recent = schedule.next(now.minusSeconds(3600).atZone(zone));
        while (recent != null && !recent.toInstant().isAfter(now)) {
          found = recent.toInstant();
          recent = schedule.next(recent);
        }
        return found;
      }
      t = schedule.next(t);
    }
    return found;
  }

  private static CronSchedule parse(String text) {
    try {
      return CronSchedule.parse(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * {@code getJobFromTemplate2}: the template's Job, owned by the CronJob, stamped with its time.
   */
  static Job newJob(CronJob cronJob, String name, Instant scheduled, ZoneId zone) {
    var template = cronJob.getSpec().getJobTemplate();
    ObjectMeta templateMeta =
        template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    Map<String, String> annotations =
        templateMeta.getAnnotations() == null
            ? new HashMap<>()
            : new HashMap<>(templateMeta.getAnnotations());
    annotations.put(
        SCHEDULED_TIMESTAMP,
        DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(scheduled.atZone(zone).toOffsetDateTime()));
    ObjectMeta meta =
        ObjectMeta.newBuilder()
            .setName(name)
            .setNamespace(cronJob.getMetadata().getNamespace())
            .setLabels(
                templateMeta.getLabels() == null ? null : new HashMap<>(templateMeta.getLabels()))
            .setAnnotations(annotations)
            .setOwnerReferences(
                List.of(Owners.controllerRef("batch/v1", "CronJob", cronJob.getMetadata())))
            .build();
    return Job.newBuilder()
        .setApiVersion("batch/v1")
        .setKind("Job")
        .setMetadata(meta)
        .setSpec(KubeObjects.MODEL.deepCopy(template.getSpec().getSchema(), template.getSpec()))
        .build();
  }

  /** Deletes the oldest finished Jobs of one kind beyond the limit ({@code removeOldestJobs}). */
  private static void historyLimit(
      List<Job> owned, String type, Integer limit, int defaultLimit, List<Intent> intents) {
    int keep = limit == null ? defaultLimit : limit;
    List<Job> finished =
        owned.stream()
            .filter(j -> condition(j, type) && j.getMetadata().getDeletionTimestamp() == null)
            .sorted(
                Comparator.comparing(
                    (Job j) ->
                        j.getStatus().getStartTime() == null
                            ? Instant.EPOCH
                            : j.getStatus().getStartTime()))
            .toList();
    Set<String> deleting = intents.stream().map(Intent::name).collect(Collectors.toSet());
    for (Job job : finished.subList(0, Math.max(0, finished.size() - keep))) {
      if (!deleting.contains(job.getMetadata().getName())) {
        intents.add(Intent.delete("jobs", "batch", job, "Background"));
      }
    }
  }

  static boolean finished(Job job) {
    return condition(job, "Complete") || condition(job, "Failed");
  }

  private static boolean condition(Job job, String type) {
    if (job.getStatus() == null || job.getStatus().getConditions() == null) {
      return false;
    }
    for (JobCondition c : job.getStatus().getConditions()) {
      if (type.equals(c.getType()) && "True".equals(c.getStatus())) {
        return true;
      }
    }
    return false;
  }

  private static ObjectReference ref(Job job) {
    return ObjectReference.newBuilder()
        .setApiVersion("batch/v1")
        .setKind("Job")
        .setName(job.getMetadata().getName())
        .setNamespace(job.getMetadata().getNamespace())
        .setUid(job.getMetadata().getUid())
        .build();
  }
}
