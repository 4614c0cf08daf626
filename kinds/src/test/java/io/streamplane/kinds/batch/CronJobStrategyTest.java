package io.streamplane.kinds.batch;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.CronJob;
import org.junit.jupiter.api.Test;

class CronJobStrategyTest {

  private final CronJobStrategy strategy = new CronJobStrategy();

  /** What {@code kubectl create cronjob hello --image=busybox --schedule='*\/1 * * * *'} sends. */
  private static String cronJob(String name, String spec) {
    return "{'metadata':{'name':'"
        + name
        + "','namespace':'default'},'spec':{"
        + spec
        + "'jobTemplate':{'metadata':{'name':'hello'},'spec':{'template':{'metadata':{},'spec':"
        + "{'containers':[{'name':'hello','image':'busybox'}],'restartPolicy':'OnFailure'}}}}}}";
  }

  @Test
  void defaultsAsSetDefaultsCronJob() {
    CronJob cronJob =
        created(strategy, cronJob("hello", "'schedule':'*/1 * * * *',"), CronJob.class);

    assertThat(cronJob.getSpec().getConcurrencyPolicy()).isEqualTo("Allow");
    assertThat(cronJob.getSpec().getSuspend()).isFalse();
    assertThat(cronJob.getSpec().getSuccessfulJobsHistoryLimit()).isEqualTo(3);
    assertThat(cronJob.getSpec().getFailedJobsHistoryLimit()).isEqualTo(1);
    assertThat(cronJob.getSpec().getJobTemplate().getSpec().getTemplate().getSpec().getDnsPolicy())
        .isEqualTo("ClusterFirst");
    assertThat(strategy.validate(cronJob)).isEmpty();
  }

  @Test
  void theScheduleTimeZoneAndPolicyAreValidated() {
    CronJob cronJob =
        created(
            strategy,
            cronJob(
                "a-name-that-is-longer-than-fifty-two-characters-really",
                "'schedule':'61 * * * *','timeZone':'Mars/Olympus','concurrencyPolicy':'Sometimes',"),
            CronJob.class);

    assertThat(messages(strategy.validate(cronJob)))
        .containsExactly(
            "metadata.name: Invalid value:"
                + " \"a-name-that-is-longer-than-fifty-two-characters-really\": must be no more"
                + " than 52 characters",
            "spec.schedule: Invalid value: \"61 * * * *\": Failed to parse cron expression. Value 61"
                + " not in range [0, 59]",
            "spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus",
            "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values:"
                + " \"Allow\", \"Forbid\", \"Replace\"");
  }

  @Test
  void aTimeZoneBelongsInItsFieldAndTheJobTemplateSelectorIsGenerated() {
    CronJob cronJob =
        created(
            strategy,
            cronJob("hello", "'schedule':'TZ=UTC 0 * * * *',")
                .replace("'spec':{'template'", "'spec':{'selector':{},'template'"),
            CronJob.class);

    assertThat(messages(strategy.validate(cronJob)))
        .containsExactly(
            "spec.schedule: Invalid value: \"TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in"
                + " schedule, use timeZone field instead",
            "spec.jobTemplate.spec.selector: Invalid value: {...}: `selector` will be"
                + " auto-generated");
  }

  @Test
  void printsScheduleTimeZoneSuspendActiveAndLastScheduleAsKubectlGetCronJobs() {
    assertThat(columns(strategy))
        .containsExactly(
            "Name",
            "Schedule",
            "Timezone",
            "Suspend",
            "Active",
            "Last Schedule",
            "Age",
            "Containers",
            "Images",
            "Selector");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'hello'},'spec':{'schedule':'@hourly','suspend':false,"
                    + "'jobTemplate':{'spec':{'template':{'spec':{'containers':[{'name':'c',"
                    + "'image':'busybox'}]}}}}},'status':{'active':[{'name':'hello-1'}],"
                    + "'lastScheduleTime':'2024-05-01T10:59:00Z'}}"))
        .containsExactly(
            "hello", "@hourly", "<none>", "False", 1L, "60s", "60m", "c", "busybox", "<none>");
  }
}
