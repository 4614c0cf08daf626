package io.streamplane.controller.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerState;
import io.streamplane.api.ContainerStateTerminated;
import io.streamplane.api.ContainerStatus;
import io.streamplane.api.Event;
import io.streamplane.api.Job;
import io.streamplane.api.JobCondition;
import io.streamplane.api.JobSpec;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodCondition;
import io.streamplane.api.PodFailurePolicy;
import io.streamplane.api.PodFailurePolicyOnExitCodesRequirement;
import io.streamplane.api.PodFailurePolicyOnPodConditionsPattern;
import io.streamplane.api.PodFailurePolicyRule;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.api.SuccessPolicy;
import io.streamplane.api.SuccessPolicyRule;
import io.streamplane.controller.Controller.Decision;
import io.streamplane.controller.Controller.Result;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The job controller as a pure function, driven over a small in-memory cluster that applies its
 * writes as the store would (a pod's uid is its name, a write raises the resourceVersion, a delete
 * of a pod holding a finalizer only marks it).
 */
class JobReconcilerTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  /** The cluster the reconciler's writes land in. */
  private static final class Cluster {
    Job job;
    final Map<String, Pod> pods = new LinkedHashMap<>();
    long version = 100;
    final List<Intent> sent = new ArrayList<>();
    final List<Event> events = new ArrayList<>();

    Cluster(Job job) {
      this.job = job;
    }

    Result sync(Instant now) {
      Result result =
          JobReconciler.reconcile(
              job == null ? null : KubeObjects.copy(job),
              new ArrayList<>(pods.values()),
              Expectations.decode(null),
              now);
      for (Decision decision : result.decisions()) {
        apply(decision.intent(), now);
      }
      return result;
    }

    /** Syncs until a sync writes nothing; returns how many syncs wrote something. */
    int settle(Instant now) {
      for (int i = 0; i < 20; i++) {
        if (sync(now).decisions().isEmpty()) {
          return i;
        }
      }
      throw new AssertionError("the Job does not converge: " + job.getStatus());
    }

    private void apply(Intent intent, Instant now) {
      sent.add(intent);
      if (intent.resource().equals("events")) {
        events.add((Event) intent.object());
        return;
      }
      version++;
      if (intent.resource().equals("jobs")) {
        if (intent.verb() == CommandVerb.DELETE) {
          job = null;
          return;
        }
        Job updated = (Job) intent.object();
        job.setStatus(updated.getStatus());
        job.getMetadata().setResourceVersion(Long.toString(version));
        return;
      }
      switch (intent.verb()) {
        case CREATE -> {
          Pod pod = (Pod) intent.object();
          pod.getMetadata().setUid(pod.getMetadata().getName());
          pod.getMetadata().setCreationTimestamp(now);
          pod.getMetadata().setResourceVersion(Long.toString(version));
          pods.put(intent.name(), pod);
        }
        case UPDATE -> {
          Pod pod = (Pod) intent.object();
          pod.getMetadata().setResourceVersion(Long.toString(version));
          if (pod.getMetadata().getDeletionTimestamp() != null
              && pod.getMetadata().getFinalizers() == null) {
            pods.remove(intent.name());
          } else {
            pods.put(intent.name(), pod);
          }
        }
        case DELETE -> {
          Pod pod = pods.get(intent.name());
          if (JobPods.tracked(pod)) {
            pod.getMetadata().setDeletionTimestamp(now);
          } else {
            pods.remove(intent.name());
          }
        }
        default -> throw new AssertionError(intent.verb());
      }
    }

    /** The kubelet: the pod ran and exited with {@code exitCode} at {@code at}. */
    void finish(String name, int exitCode, Instant at) {
      Pod pod = pods.get(name);
      pod.setStatus(
          PodStatus.newBuilder()
              .setPhase(exitCode == 0 ? "Succeeded" : "Failed")
              .setContainerStatuses(
                  List.of(
                      ContainerStatus.newBuilder()
                          .setName("main")
                          .setState(
                              ContainerState.newBuilder()
                                  .setTerminated(
                                      ContainerStateTerminated.newBuilder()
                                          .setExitCode(exitCode)
                                          .setFinishedAt(at)
                                          .build())
                                  .build())
                          .build()))
              .build());
      pod.getMetadata().setResourceVersion(Long.toString(++version));
    }

    /** The pod failed with {@code exitCode} and carries the pod condition {@code type}. */
    void failWithCondition(String name, int exitCode, String type, Instant at) {
      finish(name, exitCode, at);
      pods.get(name)
          .getStatus()
          .setConditions(
              List.of(PodCondition.newBuilder().setType(type).setStatus("True").build()));
    }

    /** The active pod of index {@code ix}. */
    String activeOf(int ix) {
      return pods.values().stream()
          .filter(p -> JobPods.active(p) && JobPods.index(p) == ix)
          .map(p -> p.getMetadata().getName())
          .findFirst()
          .orElseThrow(() -> new AssertionError("no active pod of index " + ix));
    }

    String message(String type) {
      return job.getStatus().getConditions().stream()
          .filter(c -> c.getType().equals(type))
          .map(JobCondition::getMessage)
          .findFirst()
          .orElseThrow();
    }

    List<String> active() {
      return pods.values().stream()
          .filter(JobPods::active)
          .map(p -> p.getMetadata().getName())
          .toList();
    }

    List<String> conditions() {
      List<JobCondition> conditions = job.getStatus().getConditions();
      return conditions == null
          ? List.of()
          : conditions.stream()
              .filter(c -> c.getStatus().equals("True"))
              .map(c -> c.getType() + "/" + c.getReason())
              .toList();
    }
  }

  private static Job job(int completions, int parallelism, String mode) {
    Map<String, String> labels = Map.of("batch.kubernetes.io/controller-uid", "job-uid");
    return Job.newBuilder()
        .setApiVersion("batch/v1")
        .setKind("Job")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName("pi")
                .setNamespace("default")
                .setUid("job-uid")
                .setResourceVersion("1")
                .setCreationTimestamp(T0)
                .build())
        .setSpec(
            JobSpec.newBuilder()
                .setCompletions(completions)
                .setParallelism(parallelism)
                .setBackoffLimit(6)
                .setCompletionMode(mode)
                .setSuspend(false)
                .setPodReplacementPolicy("TerminatingOrFailed")
                .setSelector(LabelSelector.newBuilder().setMatchLabels(labels).build())
                .setTemplate(
                    PodTemplateSpec.newBuilder()
                        .setMetadata(ObjectMeta.newBuilder().setLabels(labels).build())
                        .setSpec(
                            PodSpec.newBuilder()
                                .setRestartPolicy("Never")
                                .setContainers(
                                    List.of(
                                        Container.newBuilder()
                                            .setName("main")
                                            .setImage("busybox")
                                            .build()))
                                .build())
                        .build())
                .build())
        .build();
  }

  @Test
  void createsPodsUpToParallelismWithTheTrackingFinalizerAndStartsTheClock() {
    Cluster cluster = new Cluster(job(5, 2, "NonIndexed"));

    cluster.sync(T0);

    assertThat(cluster.active()).hasSize(2);
    Pod pod = cluster.pods.values().iterator().next();
    assertThat(pod.getMetadata().getFinalizers())
        .containsExactly("batch.kubernetes.io/job-tracking");
    assertThat(pod.getMetadata().getOwnerReferences().get(0).getKind()).isEqualTo("Job");
    assertThat(pod.getMetadata().getName()).startsWith("pi-");
    assertThat(cluster.job.getStatus().getStartTime()).isEqualTo(T0);
    assertThat(cluster.job.getStatus().getActive()).isEqualTo(2);
    assertThat(cluster.job.getStatus().getReady()).isEqualTo(0);
  }

  @Test
  void parallelismNeverExceedsTheCompletionsStillNeeded() {
    Cluster cluster = new Cluster(job(1, 3, "NonIndexed"));

    cluster.sync(T0);

    assertThat(cluster.active()).hasSize(1);
  }

  @Test
  void aFinishedPodIsCountedOnceThroughUncountedThenItsFinalizerIsRemovedThenItCounts() {
    Cluster cluster = new Cluster(job(1, 1, "NonIndexed"));
    cluster.sync(T0);
    String name = cluster.active().get(0);
    cluster.finish(name, 0, T0.plusSeconds(5));

    cluster.sync(T0.plusSeconds(6));
    assertThat(cluster.job.getStatus().getUncountedTerminatedPods().getSucceeded())
        .containsExactly(name);
    assertThat(cluster.job.getStatus().getSucceeded()).isNull();
    assertThat(JobPods.tracked(cluster.pods.get(name)))
        .as("finalizer kept until the status is seen")
        .isTrue();

    cluster.sync(T0.plusSeconds(6));
    assertThat(JobPods.tracked(cluster.pods.get(name))).isFalse();

    cluster.sync(T0.plusSeconds(7));
    assertThat(cluster.job.getStatus().getUncountedTerminatedPods().getSucceeded()).isNull();
    assertThat(cluster.job.getStatus().getSucceeded()).isEqualTo(1);
    assertThat(cluster.conditions())
        .containsExactly("SuccessCriteriaMet/CompletionsReached", "Complete/CompletionsReached");
    assertThat(cluster.job.getStatus().getCompletionTime()).isEqualTo(T0.plusSeconds(7));
    assertThat(cluster.job.getStatus().getSucceeded()).isEqualTo(1);
  }

  @Test
  void aDecisionRepeatedFromAStaleViewCountsNoPodTwice() {
    Cluster cluster = new Cluster(job(2, 1, "NonIndexed"));
    cluster.sync(T0);
    String first = cluster.active().get(0);
    cluster.finish(first, 0, T0.plusSeconds(1));
    Job before = KubeObjects.copy(cluster.job);
    cluster.sync(T0.plusSeconds(2));

    // A controller that took over saw the Job as it was before its status was written.
    Result stale =
        JobReconciler.reconcile(
            before, new ArrayList<>(cluster.pods.values()), Expectations.decode(null), T0);
    assertThat(stale.decisions())
        .as("the stale status write carries the old resourceVersion: a Conflict, not a count")
        .allSatisfy(
            d -> {
              if (d.intent().resource().equals("jobs")) {
                assertThat(KubeObjects.meta(d.intent().object()).getResourceVersion())
                    .isEqualTo(before.getMetadata().getResourceVersion());
              }
            });
    cluster.settle(T0.plusSeconds(3));
    String second = cluster.active().get(0);
    cluster.finish(second, 0, T0.plusSeconds(4));
    cluster.settle(T0.plusSeconds(5));

    assertThat(cluster.job.getStatus().getSucceeded()).isEqualTo(2);
    assertThat(cluster.conditions()).contains("Complete/CompletionsReached");
  }

  @Test
  void failuresBeyondTheBackoffLimitFailTheJobAndReplacementsWaitTheBackOff() {
    Job spec = job(1, 1, "NonIndexed");
    spec.getSpec().setBackoffLimit(1);
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    cluster.finish(cluster.active().get(0), 3, T0.plusSeconds(1));

    Result waiting = null;
    for (int i = 0; i < 5; i++) {
      waiting = cluster.sync(T0.plusSeconds(2));
    }
    assertThat(cluster.active()).as("no replacement during the first 10 s of back-off").isEmpty();
    assertThat(waiting.requeueAt()).isEqualTo(T0.plusSeconds(11));
    assertThat(cluster.job.getStatus().getFailed()).isEqualTo(1);

    cluster.sync(T0.plusSeconds(11));
    assertThat(cluster.active()).hasSize(1);
    cluster.finish(cluster.active().get(0), 3, T0.plusSeconds(12));
    cluster.settle(T0.plusSeconds(13));

    assertThat(cluster.job.getStatus().getFailed()).isEqualTo(2);
    assertThat(cluster.conditions())
        .containsExactly("FailureTarget/BackoffLimitExceeded", "Failed/BackoffLimitExceeded");
    assertThat(cluster.job.getStatus().getCompletionTime()).isNull();
  }

  @Test
  void anIndexedJobRunsEachIndexOnceAndReportsItsCompletedIndexes() {
    Cluster cluster = new Cluster(job(4, 2, "Indexed"));
    cluster.sync(T0);
    assertThat(cluster.pods.values())
        .extracting(
            p -> p.getMetadata().getAnnotations().get("batch.kubernetes.io/job-completion-index"))
        .containsExactly("0", "1");
    Pod first = cluster.pods.values().iterator().next();
    assertThat(first.getMetadata().getName()).startsWith("pi-0-");
    assertThat(first.getMetadata().getLabels())
        .containsEntry("batch.kubernetes.io/job-completion-index", "0");
    assertThat(first.getSpec().getHostname()).isEqualTo("pi-0");
    assertThat(first.getSpec().getContainers().get(0).getEnv().get(0).getName())
        .isEqualTo("JOB_COMPLETION_INDEX");

    for (int round = 0;
        round < 3 && !cluster.conditions().contains("Complete/CompletionsReached");
        round++) {
      for (String name : cluster.active()) {
        cluster.finish(name, 0, T0.plusSeconds(10 + round));
      }
      cluster.settle(T0.plusSeconds(20 + round));
    }

    assertThat(cluster.job.getStatus().getCompletedIndexes()).isEqualTo("0-3");
    assertThat(cluster.job.getStatus().getSucceeded()).isEqualTo(4);
    assertThat(cluster.pods).hasSize(4);
    assertThat(cluster.conditions()).contains("Complete/CompletionsReached");
  }

  @Test
  void completedIndexesAreWrittenAsOrderedIntervals() {
    assertThat(CompletedIndexes.format(CompletedIndexes.parse("0,1,2,5,7-8,9")))
        .isEqualTo("0-2,5,7-9");
    assertThat(CompletedIndexes.format(CompletedIndexes.parse("3-4,6"))).isEqualTo("3,4,6");
    assertThat(CompletedIndexes.format(new java.util.TreeSet<>())).isEmpty();
  }

  @Test
  void aJobPastItsActiveDeadlineDeletesItsPodsAndFails() {
    Job spec = job(1, 1, "NonIndexed");
    spec.getSpec().setActiveDeadlineSeconds(30L);
    Cluster cluster = new Cluster(spec);
    Result first = cluster.sync(T0);
    assertThat(first.requeueAt()).isEqualTo(T0.plusSeconds(30));

    cluster.sync(T0.plusSeconds(30));
    assertThat(cluster.conditions()).containsExactly("FailureTarget/DeadlineExceeded");
    assertThat(cluster.active()).isEmpty();
    cluster.settle(T0.plusSeconds(31));

    assertThat(cluster.conditions())
        .containsExactly("FailureTarget/DeadlineExceeded", "Failed/DeadlineExceeded");
    assertThat(cluster.pods.values()).noneMatch(JobPods::tracked);
  }

  @Test
  void aSuspendedJobDeletesItsActivePodsWithoutCountingThemAndResumesWithANewStartTime() {
    Cluster cluster = new Cluster(job(3, 2, "NonIndexed"));
    cluster.sync(T0);
    cluster.job.getSpec().setSuspend(true);

    cluster.settle(T0.plusSeconds(5));
    assertThat(cluster.active()).isEmpty();
    assertThat(cluster.pods).isEmpty();
    assertThat(cluster.conditions()).containsExactly("Suspended/JobSuspended");
    assertThat(cluster.job.getStatus().getFailed()).isNull();

    cluster.job.getSpec().setSuspend(false);
    cluster.sync(T0.plusSeconds(60));
    assertThat(cluster.active()).hasSize(2);
    assertThat(cluster.job.getStatus().getStartTime()).isEqualTo(T0.plusSeconds(60));
    assertThat(cluster.conditions()).isEmpty();
  }

  @Test
  void aConvergedJobWritesNothing() {
    Cluster cluster = new Cluster(job(1, 1, "NonIndexed"));
    cluster.sync(T0);
    cluster.settle(T0.plusSeconds(1));
    int sent = cluster.sent.size();

    assertThat(cluster.sync(T0.plusSeconds(2)).decisions()).as("running").isEmpty();
    cluster.finish(cluster.active().get(0), 0, T0.plusSeconds(3));
    cluster.settle(T0.plusSeconds(4));
    sent = cluster.sent.size();
    Result done = cluster.sync(T0.plusSeconds(100));

    assertThat(done.decisions()).as("complete").isEmpty();
    assertThat(done.requeueAt()).isNull();
    assertThat(cluster.sent).hasSize(sent);
  }

  @Test
  void aFinishedJobIsDeletedItsTtlAfterItFinished() {
    Job spec = job(1, 1, "NonIndexed");
    spec.getSpec().setTtlSecondsAfterFinished(60);
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    cluster.finish(cluster.active().get(0), 0, T0.plusSeconds(1));
    cluster.settle(T0.plusSeconds(2));
    assertThat(cluster.conditions()).contains("Complete/CompletionsReached");

    Result waiting = cluster.sync(T0.plusSeconds(30));
    assertThat(waiting.decisions()).isEmpty();
    assertThat(waiting.requeueAt()).isEqualTo(T0.plusSeconds(62));

    Result expired = cluster.sync(T0.plusSeconds(62));
    assertThat(expired.decisions()).hasSize(1);
    Decision delete = expired.decisions().get(0);
    assertThat(delete.intent().verb()).isEqualTo(CommandVerb.DELETE);
    assertThat(delete.intent().deleteOptions().getPropagationPolicy()).isEqualTo("Foreground");
    assertThat(delete.actor().getUsername())
        .isEqualTo("system:serviceaccount:kube-system:ttl-after-finished-controller");
  }

  @Test
  void theFinalizersOfADeletedJobsPodsAreRemoved() {
    Cluster cluster = new Cluster(job(2, 2, "NonIndexed"));
    cluster.sync(T0);
    cluster.job = null;

    cluster.settle(T0.plusSeconds(1));

    assertThat(cluster.pods.values()).noneMatch(JobPods::tracked);
  }

  private static PodFailurePolicyRule onExitCodes(String action, String operator, int... codes) {
    return PodFailurePolicyRule.newBuilder()
        .setAction(action)
        .setOnExitCodes(
            PodFailurePolicyOnExitCodesRequirement.newBuilder()
                .setOperator(operator)
                .setValues(java.util.Arrays.stream(codes).boxed().toList())
                .build())
        .build();
  }

  private static PodFailurePolicyRule onCondition(String action, String type) {
    return PodFailurePolicyRule.newBuilder()
        .setAction(action)
        .setOnPodConditions(
            List.of(
                PodFailurePolicyOnPodConditionsPattern.newBuilder()
                    .setType(type)
                    .setStatus("True")
                    .build()))
        .build();
  }

  private static Job withFailurePolicy(Job job, PodFailurePolicyRule... rules) {
    job.getSpec()
        .setPodFailurePolicy(PodFailurePolicy.newBuilder().setRules(List.of(rules)).build());
    job.getSpec().setPodReplacementPolicy("Failed");
    return job;
  }

  @Test
  void aFailJobRuleFailsTheJobAtTheFirstMatchingExitCodeWithTheRulesMessage() {
    Job spec =
        withFailurePolicy(
            job(3, 2, "NonIndexed"),
            onCondition("Ignore", "DisruptionTarget"),
            onExitCodes("FailJob", "In", 42));
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    String failing = cluster.active().get(0);
    cluster.finish(failing, 42, T0.plusSeconds(1));

    cluster.sync(T0.plusSeconds(2));
    assertThat(cluster.conditions()).containsExactly("FailureTarget/PodFailurePolicy");
    assertThat(cluster.active()).as("the other pod is deleted at once").isEmpty();
    cluster.settle(T0.plusSeconds(3));

    assertThat(cluster.conditions())
        .containsExactly("FailureTarget/PodFailurePolicy", "Failed/PodFailurePolicy");
    assertThat(cluster.message("Failed"))
        .isEqualTo(
            "Container main for pod default/"
                + failing
                + " failed with exit code 42 matching FailJob rule at index 1");
    assertThat(cluster.job.getStatus().getFailed())
        .as("at once, far below backoffLimit 6: the pod that failed and the one deleted")
        .isEqualTo(2);
  }

  @Test
  void anIgnoredFailureIsNotCountedAndACountedOneIs() {
    Job spec =
        withFailurePolicy(
            job(1, 1, "NonIndexed"),
            onCondition("Ignore", "DisruptionTarget"),
            onExitCodes("FailJob", "NotIn", 1, 2));
    spec.getSpec().setBackoffLimit(0);
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    cluster.failWithCondition(cluster.active().get(0), 137, "DisruptionTarget", T0.plusSeconds(1));

    cluster.settle(T0.plusSeconds(2));
    assertThat(cluster.conditions()).isEmpty();
    assertThat(cluster.job.getStatus().getFailed()).isNull();
    assertThat(cluster.active()).as("replaced without back-off").hasSize(1);
    assertThat(cluster.pods.values())
        .filteredOn(p -> !JobPods.active(p))
        .noneMatch(JobPods::tracked);

    cluster.finish(cluster.active().get(0), 2, T0.plusSeconds(3));
    cluster.settle(T0.plusSeconds(4));
    assertThat(cluster.job.getStatus().getFailed()).isEqualTo(1);
    assertThat(cluster.conditions())
        .as("exit code 2 is not matched by NotIn [1,2]: counted, beyond backoffLimit 0")
        .containsExactly("FailureTarget/BackoffLimitExceeded", "Failed/BackoffLimitExceeded");
  }

  @Test
  void aSuccessPolicyCompletesAnIndexedJobOnceItsIndexesSucceeded() {
    Job spec = job(5, 5, "Indexed");
    spec.getSpec()
        .setSuccessPolicy(
            SuccessPolicy.newBuilder()
                .setRules(
                    List.of(
                        SuccessPolicyRule.newBuilder().setSucceededIndexes("0,3-4").build(),
                        SuccessPolicyRule.newBuilder().setSucceededCount(2).build()))
                .build());
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    cluster.finish(cluster.activeOf(0), 0, T0.plusSeconds(1));
    cluster.settle(T0.plusSeconds(2));
    assertThat(cluster.conditions()).isEmpty();

    cluster.finish(cluster.activeOf(4), 0, T0.plusSeconds(3));
    cluster.sync(T0.plusSeconds(4));
    assertThat(cluster.conditions()).containsExactly("SuccessCriteriaMet/SuccessPolicy");
    assertThat(cluster.message("SuccessCriteriaMet")).isEqualTo("Matched rules at index 1");
    assertThat(cluster.active()).as("the remaining indexes are deleted").isEmpty();
    cluster.settle(T0.plusSeconds(5));

    assertThat(cluster.conditions())
        .containsExactly("SuccessCriteriaMet/SuccessPolicy", "Complete/SuccessPolicy");
    assertThat(cluster.job.getStatus().getCompletedIndexes()).isEqualTo("0,4");
    assertThat(cluster.job.getStatus().getCompletionTime()).isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void anIndexFailsAfterItsBackoffLimitPerIndexOrAtOnceByAFailIndexRule() {
    Job spec = withFailurePolicy(job(3, 3, "Indexed"), onExitCodes("FailIndex", "In", 42));
    spec.getSpec().setBackoffLimitPerIndex(1);
    spec.getSpec().setBackoffLimit(Integer.MAX_VALUE);
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    cluster.finish(cluster.activeOf(0), 1, T0.plusSeconds(1));
    cluster.finish(cluster.activeOf(1), 42, T0.plusSeconds(1));

    Result waiting = null;
    for (int i = 0; i < 4; i++) {
      waiting = cluster.sync(T0.plusSeconds(2));
    }
    assertThat(cluster.job.getStatus().getFailedIndexes()).isEqualTo("1");
    assertThat(cluster.active()).as("index 0 waits its back-off; index 1 failed").hasSize(1);
    assertThat(waiting.requeueAt()).isEqualTo(T0.plusSeconds(11));

    cluster.sync(T0.plusSeconds(11));
    Pod retry = cluster.pods.get(cluster.activeOf(0));
    assertThat(retry.getMetadata().getAnnotations())
        .containsEntry("batch.kubernetes.io/job-index-failure-count", "1");
    cluster.finish(retry.getMetadata().getName(), 1, T0.plusSeconds(12));
    cluster.finish(cluster.activeOf(2), 0, T0.plusSeconds(12));
    cluster.settle(T0.plusSeconds(13));

    assertThat(cluster.job.getStatus().getFailedIndexes()).isEqualTo("0,1");
    assertThat(cluster.job.getStatus().getCompletedIndexes()).isEqualTo("2");
    assertThat(cluster.job.getStatus().getFailed()).isEqualTo(3);
    assertThat(cluster.conditions())
        .containsExactly("FailureTarget/FailedIndexes", "Failed/FailedIndexes");
  }

  @Test
  void failedIndexesBeyondMaxFailedIndexesFailTheJob() {
    Job spec = job(3, 3, "Indexed");
    spec.getSpec().setBackoffLimitPerIndex(0);
    spec.getSpec().setMaxFailedIndexes(0);
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    cluster.finish(cluster.activeOf(2), 1, T0.plusSeconds(1));

    cluster.settle(T0.plusSeconds(2));

    assertThat(cluster.conditions())
        .containsExactly(
            "FailureTarget/MaxFailedIndexesExceeded", "Failed/MaxFailedIndexesExceeded");
    assertThat(cluster.job.getStatus().getFailedIndexes()).isEqualTo("2");
    assertThat(cluster.active()).isEmpty();
  }

  @Test
  void recordsTheEventsOfKubeControllerManagerOnceEach() {
    Cluster cluster = new Cluster(job(1, 1, "NonIndexed"));
    cluster.sync(T0);
    String pod = cluster.active().get(0);
    cluster.finish(pod, 0, T0.plusSeconds(1));
    cluster.settle(T0.plusSeconds(2));
    cluster.settle(T0.plusSeconds(3));

    assertThat(cluster.events)
        .extracting(e -> e.getType() + " " + e.getReason() + " " + e.getMessage())
        .containsExactly(
            "Normal SuccessfulCreate Created pod: " + pod, "Normal Completed Job completed");
    Event created = cluster.events.get(0);
    assertThat(created.getInvolvedObject().getKind()).isEqualTo("Job");
    assertThat(created.getInvolvedObject().getName()).isEqualTo("pi");
    assertThat(created.getSource().getComponent()).isEqualTo("job-controller");
    assertThat(created.getMetadata().getName()).startsWith("pi.");
  }

  @Test
  void aFailedJobRecordsAWarningWithItsReason() {
    Job spec = job(1, 1, "NonIndexed");
    spec.getSpec().setBackoffLimit(0);
    Cluster cluster = new Cluster(spec);
    cluster.sync(T0);
    cluster.finish(cluster.active().get(0), 3, T0.plusSeconds(1));

    cluster.settle(T0.plusSeconds(2));

    assertThat(cluster.events)
        .extracting(e -> e.getType() + " " + e.getReason() + " " + e.getMessage())
        .contains("Warning BackoffLimitExceeded Job has reached the specified backoff limit");
  }

  @Test
  void aPodWhoseLabelsNoLongerMatchIsReleasedWithoutItsTrackingFinalizerAndReplaced() {
    Cluster cluster = new Cluster(job(1, 1, "NonIndexed"));
    cluster.settle(T0);
    String first = cluster.active().get(0);
    cluster.pods.get(first).getMetadata().setLabels(Map.of("app", "debug"));

    List<Intent> intents =
        cluster.sync(T0.plusSeconds(1)).decisions().stream().map(Decision::intent).toList();

    assertThat(intents)
        .filteredOn(i -> i.resource().equals("pods") && i.verb() == CommandVerb.UPDATE)
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.name()).isEqualTo(first);
              assertThat(((Pod) i.object()).getMetadata().getOwnerReferences()).isNull();
              assertThat(((Pod) i.object()).getMetadata().getFinalizers()).isNull();
            });
    assertThat(intents)
        .filteredOn(i -> i.resource().equals("pods") && i.verb() == CommandVerb.CREATE)
        .hasSize(1);
  }

  @Test
  void aJobThatAdoptedAPodRunsItAndOnceConvergedWritesNothing() {
    Job job = job(1, 1, "NonIndexed");
    Pod orphan =
        Pod.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName("by-hand")
                    .setNamespace("default")
                    .setUid("by-hand")
                    .setResourceVersion("50")
                    .setCreationTimestamp(T0)
                    .setLabels(Map.of("batch.kubernetes.io/controller-uid", "job-uid"))
                    .build())
            .setSpec(job.getSpec().getTemplate().getSpec())
            .setStatus(PodStatus.newBuilder().setPhase("Running").build())
            .build();
    Pod adopted =
        ControllerRefManager.adopt(
            orphan,
            job.getMetadata(),
            new ControllerRefManager.OwnerKind("batch/v1", "Job"),
            JobReconciler.TRACKING_FINALIZER);
    Cluster cluster = new Cluster(job);
    cluster.pods.put("by-hand", adopted);

    cluster.settle(T0);

    assertThat(cluster.pods).containsOnlyKeys("by-hand");
    assertThat(cluster.job.getStatus().getActive()).isEqualTo(1);
    assertThat(cluster.sync(T0.plusSeconds(1)).decisions()).isEmpty();
  }
}
