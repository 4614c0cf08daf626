package io.streamplane.kinds.batch;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.json;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.Job;
import io.streamplane.schema.objects.KubeObjects;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobStrategyTest {

  private static final String UID = "0a1b2c3d-0000-4000-8000-000000000001";

  private final JobStrategy strategy = new JobStrategy();

  /** What {@code kubectl create job pi --image=busybox -- sh -c 'echo computed'} sends. */
  private static final String KUBECTL_CREATE_JOB =
      "{'metadata':{'name':'pi','namespace':'default'},'spec':{'template':{'metadata':{},"
          + "'spec':{'containers':[{'name':'pi','image':'busybox','command':['sh','-c',"
          + "'echo computed']}],'restartPolicy':'Never'}}}}";

  private Job stored(String json) {
    Job job = created(strategy, json, Job.class);
    job.getMetadata().setUid(UID);
    return (Job) strategy.withGeneratedFields(job);
  }

  @Test
  void defaultsAsSetDefaultsJob() {
    Job job = created(strategy, KUBECTL_CREATE_JOB, Job.class);

    assertThat(job.getSpec().getCompletions()).isEqualTo(1);
    assertThat(job.getSpec().getParallelism()).isEqualTo(1);
    assertThat(job.getSpec().getBackoffLimit()).isEqualTo(6);
    assertThat(job.getSpec().getCompletionMode()).isEqualTo("NonIndexed");
    assertThat(job.getSpec().getSuspend()).isFalse();
    assertThat(job.getSpec().getManualSelector()).isFalse();
    assertThat(job.getSpec().getPodReplacementPolicy()).isEqualTo("TerminatingOrFailed");
    assertThat(job.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .isEqualTo(30L);
  }

  @Test
  void parallelismAloneLeavesCompletionsUnsetAndAPodFailurePolicyReplacesOnlyFailedPods() {
    Job job =
        created(
            strategy,
            "{'spec':{'parallelism':3,'podFailurePolicy':{'rules':[{'action':'Ignore',"
                + "'onPodConditions':[{'type':'DisruptionTarget'}]}]},'template':{'spec':{}}}}",
            Job.class);

    assertThat(job.getSpec().getCompletions()).isNull();
    assertThat(job.getSpec().getParallelism()).isEqualTo(3);
    assertThat(job.getSpec().getPodReplacementPolicy()).isEqualTo("Failed");
    assertThat(
            job.getSpec()
                .getPodFailurePolicy()
                .getRules()
                .get(0)
                .getOnPodConditions()
                .get(0)
                .getStatus())
        .isEqualTo("True");
  }

  @Test
  void theSelectorAndTheLabelsAreGeneratedFromTheUid() {
    Job job = stored(KUBECTL_CREATE_JOB);

    Map<String, String> expected =
        Map.of(
            "batch.kubernetes.io/controller-uid",
            UID,
            "batch.kubernetes.io/job-name",
            "pi",
            "controller-uid",
            UID,
            "job-name",
            "pi");
    assertThat(job.getSpec().getSelector().getMatchLabels())
        .isEqualTo(Map.of("batch.kubernetes.io/controller-uid", UID));
    assertThat(job.getSpec().getTemplate().getMetadata().getLabels()).isEqualTo(expected);
    assertThat(job.getMetadata().getLabels()).isEqualTo(expected);
    assertThat(strategy.validate(job)).isEmpty();
  }

  @Test
  void aManualSelectorIsKeptAndMustSelectTheTemplate() {
    Job job =
        stored(
            "{'metadata':{'name':'pi'},'spec':{'manualSelector':true,'selector':{'matchLabels':"
                + "{'app':'pi'}},'template':{'metadata':{'labels':{'app':'other'}},'spec':{"
                + "'restartPolicy':'Never','containers':[{'name':'c','image':'busybox'}]}}}}");

    assertThat(job.getSpec().getTemplate().getMetadata().getLabels())
        .isEqualTo(Map.of("app", "other"));
    assertThat(messages(strategy.validate(job)))
        .containsExactly(
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}:"
                + " `selector` does not match template `labels`");
  }

  @Test
  void aGeneratedLabelSetByHandMustHoldTheGeneratedValue() {
    Job job =
        stored(
            "{'metadata':{'name':'pi'},'spec':{'template':{'metadata':{'labels':{'job-name':"
                + "'other'}},'spec':{'restartPolicy':'Never','containers':[{'name':'c','image':"
                + "'busybox'}]}}}}");

    assertThat(messages(strategy.validate(job)))
        .containsExactly(
            "spec.template.metadata.labels[job-name]: Invalid value: map[string]string{"
                + "\"batch.kubernetes.io/controller-uid\":\""
                + UID
                + "\", \"batch.kubernetes.io/job-name\":\"pi\", \"controller-uid\":\""
                + UID
                + "\", \"job-name\":\"other\"}: must be 'pi'");
  }

  @Test
  void podsOfAJobRestartOnFailureOrNeverAndCountsAreNotNegative() {
    Job job =
        stored(
            "{'metadata':{'name':'pi'},'spec':{'backoffLimit':-1,'completionMode':'Indexed',"
                + "'completions':null,'parallelism':2,'template':{'spec':{'containers':[{'name':"
                + "'c','image':'busybox'}]}}}}");

    assertThat(messages(strategy.validate(job)))
        .containsExactly(
            "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
            "spec.completions: Required value: when completion mode is Indexed",
            "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values:"
                + " \"OnFailure\", \"Never\"");
  }

  @Test
  void podFailurePolicyRulesAreValidatedAsKubeApiserverDoes() {
    Job job =
        stored(
            "{'metadata':{'name':'pi'},'spec':{'podFailurePolicy':{'rules':["
                + "{'action':'FailJob','onExitCodes':{'containerName':'other','operator':'In',"
                + "'values':[0,3,3,2]}},"
                + "{'action':'FailIndex','onPodConditions':[{'type':'DisruptionTarget'}]},"
                + "{'action':'Retry','onExitCodes':{'operator':'In','values':[1]},"
                + "'onPodConditions':[{'type':'DisruptionTarget','status':'Maybe'}]},"
                + "{'action':'Ignore'}]},"
                + "'template':{'spec':{'restartPolicy':'OnFailure','containers':[{'name':'c',"
                + "'image':'busybox'}]}}}}");

    assertThat(messages(strategy.validate(job)))
        .containsExactly(
            "spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: \"other\":"
                + " must be one of the container or initContainer names in the pod template",
            "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be"
                + " 0 for the In operator",
            "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3",
            "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{0, 3, 3,"
                + " 2}: must be ordered",
            "spec.podFailurePolicy.rules[1].action: Invalid value: \"FailIndex\": requires the"
                + " backoffLimitPerIndex to be set",
            "spec.podFailurePolicy.rules[2].action: Unsupported value: \"Retry\": supported"
                + " values: \"Count\", \"FailIndex\", \"FailJob\", \"Ignore\"",
            "spec.podFailurePolicy.rules[2].onPodConditions[0].status: Unsupported value:"
                + " \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"",
            "spec.podFailurePolicy.rules[2]: Invalid value: specifying both OnExitCodes and"
                + " OnPodConditions is not supported",
            "spec.podFailurePolicy.rules[3]: Invalid value: specifying one of OnExitCodes and"
                + " OnPodConditions is required",
            "spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only \"Never\" is"
                + " supported when podFailurePolicy is specified");
  }

  @Test
  void successPolicyAndLimitsPerIndexNeedAnIndexedJob() {
    Job nonIndexed =
        stored(
            "{'metadata':{'name':'pi'},'spec':{'backoffLimitPerIndex':1,'maxFailedIndexes':1,"
                + "'successPolicy':{'rules':[{'succeededCount':1}]},"
                + "'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'c',"
                + "'image':'busybox'}]}}}}");
    Job indexed =
        stored(
            "{'metadata':{'name':'pi'},'spec':{'completionMode':'Indexed','completions':4,"
                + "'parallelism':4,'maxFailedIndexes':5,'successPolicy':{'rules':["
                + "{'succeededIndexes':'0-2,1','succeededCount':2},{'succeededIndexes':'1-3',"
                + "'succeededCount':5},{}]},"
                + "'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'c',"
                + "'image':'busybox'}]}}}}");

    assertThat(messages(strategy.validate(nonIndexed)))
        .containsExactly(
            "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
            "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode",
            "spec.successPolicy: Invalid value: batch.SuccessPolicy{...}: requires indexed"
                + " completion mode");
    assertThat(messages(strategy.validate(indexed)))
        .containsExactly(
            "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
            "spec.maxFailedIndexes: Invalid value: 5: must be less than or equal to completions",
            "spec.successPolicy.rules[0].succeededIndexes: Invalid value: \"0-2,1\": error"
                + " parsing succeededIndexes: non-increasing order, previous: 2, current: 1",
            // As kube-apiserver: an unparsed succeededIndexes counts no index.
            "spec.successPolicy.rules[0].succeededCount: Invalid value: 2: must be less than or"
                + " equal to 0 (the number of indexes in the specified succeededIndexes field)",
            "spec.successPolicy.rules[1].succeededCount: Invalid value: 5: must be less than or"
                + " equal to 4 (the number of specified completions)",
            "spec.successPolicy.rules[1].succeededCount: Invalid value: 5: must be less than or"
                + " equal to 3 (the number of indexes in the specified succeededIndexes field)",
            "spec.successPolicy.rules[2]: Required value: at least one of succeededCount or"
                + " succeededIndexes must be specified");
  }

  @Test
  void theTemplateSelectorAndCompletionsAreImmutable() {
    Job old = stored(KUBECTL_CREATE_JOB);
    Job changed = KubeObjects.copy(old);
    changed.getSpec().setCompletions(3);
    changed.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("perl");
    changed.getSpec().setParallelism(5);

    assertThat(messages(strategy.validateUpdate(changed, old)))
        .containsExactly(
            "spec.completions: Invalid value: 3: field is immutable",
            "spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable");
  }

  @Test
  void aSuspendedJobThatNeverStartedMayChangeItsSchedulingDirectives() {
    Job old = stored(KUBECTL_CREATE_JOB);
    old.getSpec().setSuspend(true);
    Job changed = KubeObjects.copy(old);
    changed.getSpec().getTemplate().getSpec().setNodeSelector(Map.of("disk", "ssd"));

    assertThat(strategy.validateUpdate(changed, old)).isEmpty();
  }

  @Test
  void anIndexedJobMayScaleCompletionsWithParallelism() {
    Job old =
        stored(
            "{'metadata':{'name':'pi'},'spec':{'completionMode':'Indexed','completions':2,"
                + "'parallelism':2,'template':{'spec':{'restartPolicy':'Never','containers':[{"
                + "'name':'c','image':'busybox'}]}}}}");
    Job scaled = KubeObjects.copy(old);
    scaled.getSpec().setCompletions(4);
    scaled.getSpec().setParallelism(4);

    assertThat(strategy.validateUpdate(scaled, old)).isEmpty();
  }

  @Test
  void isSelectableBySuccessfulPods() {
    assertThat(
            strategy
                .selectableFields()
                .get("status.successful")
                .apply(json("{'status':{'succeeded':2}}")))
        .isEqualTo("2");
  }

  @Test
  void printsStatusCompletionsAndDurationAsKubectlGetJobs() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'pi'},'spec':{'completions':1,'selector':{'matchLabels':{"
                    + "'batch.kubernetes.io/controller-uid':'u'}},'template':{'spec':{'containers':"
                    + "[{'name':'pi','image':'busybox'}]}}},'status':{'succeeded':1,"
                    + "'startTime':'2024-05-01T10:00:00Z','completionTime':'2024-05-01T10:00:07Z',"
                    + "'conditions':[{'type':'SuccessCriteriaMet','status':'True'},{'type':"
                    + "'Complete','status':'True'}]}}"))
        .containsExactly(
            "pi",
            "Complete",
            "1/1",
            "7s",
            "60m",
            "pi",
            "busybox",
            "batch.kubernetes.io/controller-uid=u");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'w'},'spec':{'parallelism':3},'status':{'startTime':"
                    + "'2024-05-01T10:30:00Z'}}"))
        .containsExactly("w", "Running", "0/1 of 3", "30m", "60m", "", "", "<none>");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'f'},'spec':{'completions':2},'status':{'conditions':[{"
                    + "'type':'FailureTarget','status':'True'},{'type':'Failed','status':'True'}]"
                    + "}}"))
        .containsExactly("f", "Failed", "0/2", "", "60m", "", "", "<none>");
  }
}
