package io.streamplane.controller.cronjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.CronJob;
import io.streamplane.api.CronJobSpec;
import io.streamplane.api.CronJobStatus;
import io.streamplane.api.Event;
import io.streamplane.api.Job;
import io.streamplane.api.JobCondition;
import io.streamplane.api.JobSpec;
import io.streamplane.api.JobStatus;
import io.streamplane.api.JobTemplateSpec;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.controller.Controller.Decision;
import io.streamplane.controller.Controller.Result;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CronJobReconcilerTest {

  private static final ZoneId UTC = ZoneId.of("UTC");
  private static final Instant CREATED = Instant.parse("2026-01-01T10:00:30Z");

  private static CronJob cronJob(String schedule, String policy) {
    return CronJob.newBuilder()
        .setApiVersion("batch/v1")
        .setKind("CronJob")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("tick")
                .setNamespace("default")
                .setUid("cj-uid")
                .setResourceVersion("1")
                .setCreationTimestamp(CREATED)
                .build())
        .setSpec(
            CronJobSpec.newBuilder()
                .setSchedule(schedule)
                .setConcurrencyPolicy(policy)
                .setSuspend(false)
                .setSuccessfulJobsHistoryLimit(3)
                .setFailedJobsHistoryLimit(1)
                .setJobTemplate(
                    JobTemplateSpec.newBuilder()
                        .setSpec(
                            JobSpec.newBuilder()
                                .setTemplate(
                                    PodTemplateSpec.newBuilder()
                                        .setSpec(
                                            PodSpec.newBuilder()
                                                .setRestartPolicy("OnFailure")
                                                .setContainers(
                                                    List.of(
                                                        Container.newBuilder()
                                                            .setName("c")
                                                            .setImage("busybox")
                                                            .build()))
                                                .build())
                                        .build())
                                .build())
                        .build())
                .build())
        .build();
  }

  private static List<Job> created(Result result) {
    List<Job> jobs = new ArrayList<>();
    for (Decision d : result.decisions()) {
      if (d.intent().verb() == CommandVerb.CREATE && d.intent().object() instanceof Job) {
        Job job = (Job) d.intent().object();
        job.getMetadata().setUid("uid-" + job.getMetadata().getName());
        job.setStatus(
            JobStatus.newBuilder().setStartTime(Instant.parse("2026-01-01T10:01:00Z")).build());
        jobs.add(job);
      }
    }
    return jobs;
  }

  private static Job finished(Job job, String type, Instant at) {
    Job copy = KubeObjects.copy(job);
    copy.getStatus()
        .setConditions(
            List.of(
                JobCondition.newBuilder()
                    .setType(type)
                    .setStatus("True")
                    .setLastTransitionTime(at)
                    .build()));
    copy.getStatus().setCompletionTime("Complete".equals(type) ? at : null);
    return copy;
  }

  @Test
  void nothingRunsBeforeTheFirstScheduledTimeWhichIsWhenItLooksAgain() {
    Result result =
        CronJobReconciler.reconcile(
            cronJob("*/5 * * * *", "Allow"), List.of(), UTC, CREATED.plusSeconds(10));

    assertThat(result.decisions()).isEmpty();
    assertThat(result.requeueAt()).isEqualTo(Instant.parse("2026-01-01T10:05:00Z"));
  }

  @Test
  void theScheduledRunCreatesOneJobNamedByItsMinuteAndRecordsItsTime() {
    Instant at = Instant.parse("2026-01-01T10:05:03Z");
    Result result =
        CronJobReconciler.reconcile(cronJob("*/5 * * * *", "Allow"), List.of(), UTC, at);

    List<Job> jobs = created(result);
    assertThat(jobs).hasSize(1);
    Job job = jobs.get(0);
    long minutes = Instant.parse("2026-01-01T10:05:00Z").getEpochSecond() / 60;
    assertThat(job.getMetadata().getName()).isEqualTo("tick-" + minutes);
    assertThat(job.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("CronJob");
    assertThat(job.getMetadata().getAnnotations())
        .containsEntry("batch.kubernetes.io/cronjob-scheduled-timestamp", "2026-01-01T10:05:00Z");
    CronJob status = statusWritten(result);
    assertThat(status.getStatus().getLastScheduleTime())
        .isEqualTo(Instant.parse("2026-01-01T10:05:00Z"));
    assertThat(result.requeueAt()).isEqualTo(Instant.parse("2026-01-01T10:10:00Z"));

    Result again =
        CronJobReconciler.reconcile(cronJob("*/5 * * * *", "Allow"), jobs, UTC, at.plusSeconds(1));
    assertThat(again.decisions())
        .as("the same scheduled time seen with its Job: no second Job")
        .noneMatch(d -> d.intent().verb() == CommandVerb.CREATE);
  }

  @Test
  void forbidSkipsARunWhileAJobIsActiveAndReplaceDeletesIt() {
    CronJob forbid = cronJob("*/5 * * * *", "Forbid");
    List<Job> first =
        created(
            CronJobReconciler.reconcile(
                forbid, List.of(), UTC, Instant.parse("2026-01-01T10:05:00Z")));
    forbid.setStatus(
        CronJobStatus.newBuilder()
            .setLastScheduleTime(Instant.parse("2026-01-01T10:05:00Z"))
            .build());

    Result skipped =
        CronJobReconciler.reconcile(forbid, first, UTC, Instant.parse("2026-01-01T10:10:00Z"));
    assertThat(skipped.decisions()).noneMatch(d -> d.intent().verb() == CommandVerb.CREATE);

    CronJob replace = KubeObjects.copy(forbid);
    replace.getSpec().setConcurrencyPolicy("Replace");
    Result replaced =
        CronJobReconciler.reconcile(replace, first, UTC, Instant.parse("2026-01-01T10:10:00Z"));
    assertThat(replaced.decisions())
        .extracting(d -> d.intent().verb() + " " + d.intent().resource())
        .containsExactly(
            "DELETE jobs",
            "CREATE jobs",
            "UPDATE_STATUS cronjobs",
            "CREATE events",
            "CREATE events");
    assertThat(replaced.decisions())
        .filteredOn(d -> d.intent().resource().equals("events"))
        .extracting(d -> ((Event) d.intent().object()).getMessage())
        .containsExactly(
            "Deleted job " + first.get(0).getMetadata().getName(), "Created job tick-29454370");
  }

  @Test
  void aRunMissedByMoreThanTheStartingDeadlineIsSkipped() {
    CronJob late = cronJob("0 * * * *", "Allow");
    late.getSpec().setStartingDeadlineSeconds(60L);

    Result result =
        CronJobReconciler.reconcile(late, List.of(), UTC, Instant.parse("2026-01-01T11:05:00Z"));

    assertThat(result.decisions()).isEmpty();
    assertThat(result.requeueAt()).isEqualTo(Instant.parse("2026-01-01T12:00:00Z"));
  }

  @Test
  void aSuspendedCronJobRunsNothingAndTheScheduleIsReadInItsTimeZone() {
    CronJob suspended = cronJob("@hourly", "Allow");
    suspended.getSpec().setSuspend(true);
    assertThat(
            CronJobReconciler.reconcile(
                    suspended, List.of(), UTC, Instant.parse("2026-01-01T12:00:00Z"))
                .decisions())
        .isEmpty();

    CronJob paris = cronJob("0 12 * * *", "Allow");
    paris.getSpec().setTimeZone("Europe/Paris");
    Result noon =
        CronJobReconciler.reconcile(paris, List.of(), UTC, Instant.parse("2026-01-01T10:30:00Z"));
    assertThat(noon.requeueAt()).isEqualTo(Instant.parse("2026-01-01T11:00:00Z"));
  }

  @Test
  void finishedJobsBeyondTheHistoryLimitsAreDeletedOldestFirstAndTheLastSuccessIsRecorded() {
    CronJob cj = cronJob("@hourly", "Allow");
    cj.getSpec().setSuccessfulJobsHistoryLimit(1);
    cj.setStatus(
        CronJobStatus.newBuilder()
            .setLastScheduleTime(Instant.parse("2026-01-01T12:00:00Z"))
            .build());
    List<Job> jobs = new ArrayList<>();
    for (int hour = 10; hour <= 12; hour++) {
      Job job =
          CronJobReconciler.newJob(
              cj, "tick-" + hour, Instant.parse("2026-01-01T" + hour + ":00:00Z"), UTC);
      job.getMetadata().setUid("uid-" + hour);
      job.setStatus(
          JobStatus.newBuilder()
              .setStartTime(Instant.parse("2026-01-01T" + hour + ":00:01Z"))
              .build());
      jobs.add(finished(job, "Complete", Instant.parse("2026-01-01T" + hour + ":00:09Z")));
    }

    Result result =
        CronJobReconciler.reconcile(cj, jobs, UTC, Instant.parse("2026-01-01T12:30:00Z"));

    assertThat(result.decisions())
        .filteredOn(d -> d.intent().verb() == CommandVerb.DELETE)
        .extracting(d -> d.intent().name())
        .containsExactly("tick-10", "tick-11");
    assertThat(statusWritten(result).getStatus().getLastSuccessfulTime())
        .isEqualTo(Instant.parse("2026-01-01T12:00:09Z"));
    assertThat(result.decisions())
        .filteredOn(d -> d.intent().resource().equals("events"))
        .extracting(d -> ((Event) d.intent().object()).getMessage())
        .containsExactly("Deleted job tick-10", "Deleted job tick-11");

    cj.getStatus()
        .setActive(
            List.of(
                io.streamplane.api.ObjectReference.newBuilder()
                    .setName("tick-12")
                    .setUid("uid-12")
                    .build()));
    Result saw = CronJobReconciler.reconcile(cj, jobs, UTC, Instant.parse("2026-01-01T12:30:00Z"));
    assertThat(saw.decisions())
        .filteredOn(d -> d.intent().resource().equals("events"))
        .extracting(
            d ->
                ((Event) d.intent().object()).getReason()
                    + ": "
                    + ((Event) d.intent().object()).getMessage())
        .contains("SawCompletedJob: Saw completed job: tick-12, condition: Complete");
  }

  @Test
  void aConvergedCronJobWritesNothingUntilItsNextRun() {
    CronJob cj = cronJob("@hourly", "Allow");
    Instant at = Instant.parse("2026-01-01T11:00:00Z");
    Result first = CronJobReconciler.reconcile(cj, List.of(), UTC, at);
    List<Job> jobs = created(first);
    cj.setStatus(statusWritten(first).getStatus());
    Result observed = CronJobReconciler.reconcile(cj, jobs, UTC, at.plusSeconds(2));
    cj.setStatus(statusWritten(observed).getStatus());

    Result converged = CronJobReconciler.reconcile(cj, jobs, UTC, at.plusSeconds(30));

    assertThat(converged.decisions()).isEmpty();
    assertThat(converged.requeueAt()).isEqualTo(Instant.parse("2026-01-01T12:00:00Z"));
    assertThat(cj.getStatus().getActive()).hasSize(1);
  }

  private static CronJob statusWritten(Result result) {
    return (CronJob)
        result.decisions().stream()
            .filter(d -> d.intent().verb() == CommandVerb.UPDATE_STATUS)
            .findFirst()
            .orElseThrow()
            .intent()
            .object();
  }
}
