package io.streamplane.kinds.batch;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.containerCells;
import static io.streamplane.kinds.printers.Cells.formatSelector;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.CronJob;
import io.streamplane.api.CronJobSpec;
import io.streamplane.api.JobSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.HumanDuration;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * batch/v1 CronJob, as kube-apiserver's {@code pkg/registry/batch/cronjob}: {@code
 * SetDefaults_CronJob} (concurrencyPolicy Allow, not suspended, 3 successful and 1 failed Jobs
 * kept, the job template's pod defaults); {@code ValidateCronJob}'s essentials (a name of at most
 * 52 characters, a standard cron schedule without {@code TZ=}, a known time zone, the concurrency
 * policy, non-negative deadlines and limits, a job template valid as a Job's spec whose selector is
 * left to generation); a generation; kubectl's cron job columns.
 */
public final class CronJobStrategy implements KindStrategy {

  /** A Job's name is the CronJob's and an 11-character suffix, within 63 characters. */
  static final int MAX_NAME_LENGTH = 52;

  private static final List<String> CONCURRENCY_POLICIES = List.of("Allow", "Forbid", "Replace");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    putIfAbsent(spec, "concurrencyPolicy", "Allow");
    if (!spec.has("suspend") || spec.get("suspend").isNull()) {
      spec.put("suspend", false);
    }
    putIfAbsent(spec, "successfulJobsHistoryLimit", 3);
    putIfAbsent(spec, "failedJobsHistoryLimit", 1);
    PodSpecDefaults.template(spec.with("jobTemplate").with("spec"));
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    CronJob cronJob = (CronJob) object;
    List<StatusCause> causes = new ArrayList<>();
    String name = cronJob.getMetadata() == null ? null : cronJob.getMetadata().getName();
    if (name != null && name.length() > MAX_NAME_LENGTH) {
      causes.add(invalid("metadata.name", quote(name), "must be no more than 52 characters"));
    }
    CronJobSpec spec = cronJob.getSpec();
    if (spec == null) {
      causes.add(required("spec.schedule"));
      return causes;
    }
    String schedule = spec.getSchedule();
    if (schedule == null || schedule.isEmpty()) {
      causes.add(required("spec.schedule"));
    } else if (schedule.contains("TZ")) {
      causes.add(
          invalid(
              "spec.schedule",
              quote(schedule),
              "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
    } else {
      String error = CronSchedule.error(schedule);
      if (error != null) {
        causes.add(invalid("spec.schedule", quote(schedule), error));
      }
    }
    String timeZone = spec.getTimeZone();
    if (timeZone != null && zone(timeZone) == null) {
      causes.add(invalid("spec.timeZone", quote(timeZone), "unknown time zone " + timeZone));
    }
    String policy = spec.getConcurrencyPolicy();
    if (policy != null && !CONCURRENCY_POLICIES.contains(policy)) {
      causes.add(notSupported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES));
    }
    nonNegative("spec.startingDeadlineSeconds", spec.getStartingDeadlineSeconds(), causes);
    nonNegative("spec.successfulJobsHistoryLimit", spec.getSuccessfulJobsHistoryLimit(), causes);
    nonNegative("spec.failedJobsHistoryLimit", spec.getFailedJobsHistoryLimit(), causes);
    if (spec.getJobTemplate() == null || spec.getJobTemplate().getSpec() == null) {
      causes.add(required("spec.jobTemplate.spec.template"));
      return causes;
    }
    JobSpec jobSpec = spec.getJobTemplate().getSpec();
    JobSpecs.validate(jobSpec, "spec.jobTemplate.spec", causes);
    if (jobSpec.getSelector() != null) {
      causes.add(
          invalid("spec.jobTemplate.spec.selector", "{...}", "`selector` will be auto-generated"));
    }
    if (Boolean.TRUE.equals(jobSpec.getManualSelector())) {
      causes.add(
          notSupported("spec.jobTemplate.spec.manualSelector", "true", List.of("nil", "false")));
    }
    return causes;
  }

  /** The zone of a CronJob's {@code spec.timeZone}, or null when Java knows none of that name. */
  public static ZoneId zone(String timeZone) {
    if (timeZone == null || timeZone.isEmpty() || timeZone.equals("Local")) {
      return null;
    }
    try {
      return ZoneId.of(timeZone);
    } catch (DateTimeException e) {
      return null;
    }
  }

  private static void nonNegative(String field, Number value, List<StatusCause> causes) {
    if (value != null && value.longValue() < 0) {
      causes.add(invalid(field, value.toString(), "must be greater than or equal to 0"));
    }
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Schedule",
                  "string",
                  "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
              col(
                  "Timezone",
                  "string",
                  "The time zone name for the given schedule, see"
                      + " https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not"
                      + " specified, this will default to the time zone of the"
                      + " kube-controller-manager process."),
              col(
                  "Suspend",
                  "boolean",
                  "This flag tells the controller to suspend subsequent executions, it does not"
                      + " apply to already started executions. Defaults to false."),
              col("Active", "integer", "A list of pointers to currently running jobs."),
              col(
                  "Last Schedule",
                  "string",
                  "Information when was the last time the job was successfully scheduled."),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template."),
              wide(
                  "Selector",
                  "A label query over pods that should match the pod count. Normally, the system"
                      + " sets this field for you. More info:"
                      + " https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")),
          (o, now) -> {
            JsonNode spec = o.path("spec");
            JsonNode suspend = spec.path("suspend");
            JsonNode lastSchedule = o.path("status").path("lastScheduleTime");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(spec.path("schedule").asText(""));
            cells.add(
                spec.path("timeZone").isTextual() ? spec.path("timeZone").asText() : "<none>");
            cells.add(suspend.isBoolean() ? (suspend.asBoolean() ? "True" : "False") : "<unset>");
            cells.add((long) o.path("status").path("active").size());
            cells.add(lastSchedule.isTextual() ? HumanDuration.since(lastSchedule, now) : "<none>");
            cells.add(age(o, now));
            JsonNode jobSpec = spec.path("jobTemplate").path("spec");
            cells.addAll(containerCells(jobSpec.path("template").path("spec")));
            cells.add(formatSelector(jobSpec.path("selector")));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
