package io.streamplane.kinds.batch;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.containerCells;
import static io.streamplane.kinds.printers.Cells.formatSelector;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.goMap;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Job;
import io.streamplane.api.JobSpec;
import io.streamplane.api.LabelSelector;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.HumanDuration;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * batch/v1 Job, as kube-apiserver's {@code pkg/registry/batch/job}: {@code SetDefaults_Job}
 * (completions and parallelism 1, backoffLimit 6, NonIndexed, not suspended, TerminatingOrFailed,
 * manualSelector false, the template's pod defaults); the generated selector and labels once the
 * Job has its uid ({@code generateSelector}: {@code controller-uid}, {@code
 * batch.kubernetes.io/controller-uid}, {@code job-name}, {@code batch.kubernetes.io/job-name} on
 * the template, the Job's own labels from its template when it has none); {@code ValidateJob} and
 * {@code ValidateJobUpdate}'s essentials (a template restarting OnFailure or Never, a generated
 * selector left as generated, selector, template, completion mode and policies immutable — the
 * template's scheduling directives and labels may change while a Job is suspended and has never
 * started, completions together with parallelism of an Indexed Job); a generation; selectable by
 * {@code status.successful}; kubectl's job columns.
 */
public final class JobStrategy implements KindStrategy {

  public static final String CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
  public static final String LEGACY_CONTROLLER_UID = "controller-uid";
  public static final String JOB_NAME = "batch.kubernetes.io/job-name";
  public static final String LEGACY_JOB_NAME = "job-name";

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    if (!has(spec, "completions") && !has(spec, "parallelism")) {
      spec.put("completions", 1);
      spec.put("parallelism", 1);
    }
    putIfAbsent(spec, "parallelism", 1);
    putIfAbsent(spec, "backoffLimit", has(spec, "backoffLimitPerIndex") ? Integer.MAX_VALUE : 6);
    JsonNode templateLabels = spec.path("template").path("metadata").path("labels");
    ObjectNode metadata = object.with("metadata");
    if (templateLabels.isObject()
        && templateLabels.size() > 0
        && metadata.path("labels").size() == 0) {
      metadata.set("labels", templateLabels.deepCopy());
    }
    putIfAbsent(spec, "completionMode", JobSpecs.NON_INDEXED);
    if (!has(spec, "suspend")) {
      spec.put("suspend", false);
    }
    JsonNode failurePolicy = spec.path("podFailurePolicy");
    for (JsonNode rule : failurePolicy.path("rules")) {
      for (JsonNode pattern : rule.path("onPodConditions")) {
        if (pattern instanceof ObjectNode p && p.path("status").asText("").isEmpty()) {
          p.put("status", "True");
        }
      }
    }
    putIfAbsent(
        spec, "podReplacementPolicy", failurePolicy.isObject() ? "Failed" : "TerminatingOrFailed");
    if (!has(spec, "manualSelector")) {
      spec.put("manualSelector", false);
    }
    PodSpecDefaults.template(spec);
  }

  private static boolean has(ObjectNode node, String field) {
    return node.has(field) && !node.get(field).isNull();
  }

  /**
   * {@code generateSelector}, which kube-apiserver runs in its Validate because the uid is known
   * only then: the template gets the four labels that tie its pods to this Job (unless the user set
   * them), and the selector {@code batch.kubernetes.io/controller-uid}. The Job's own labels, when
   * it has none, are its template's, as kube-apiserver's defaulting gives them on every read.
   */
  @Override
  public SpecificRecord withGeneratedFields(SpecificRecord object) {
    Job job = (Job) object;
    ObjectMeta meta = job.getMetadata();
    if (job.getSpec() == null || meta == null || meta.getUid() == null) {
      return object;
    }
    Job generated = KubeObjects.copy(job);
    JobSpec spec = generated.getSpec();
    if (!Boolean.TRUE.equals(spec.getManualSelector())) {
      PodTemplateSpec template =
          spec.getTemplate() == null ? new PodTemplateSpec() : spec.getTemplate();
      ObjectMeta templateMeta =
          template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
      Map<String, String> labels =
          templateMeta.getLabels() == null
              ? new HashMap<>()
              : new HashMap<>(templateMeta.getLabels());
      labels.putIfAbsent(LEGACY_JOB_NAME, meta.getName());
      labels.putIfAbsent(LEGACY_CONTROLLER_UID, meta.getUid());
      labels.putIfAbsent(JOB_NAME, meta.getName());
      labels.putIfAbsent(CONTROLLER_UID, meta.getUid());
      templateMeta.setLabels(labels);
      template.setMetadata(templateMeta);
      spec.setTemplate(template);
      LabelSelector selector =
          spec.getSelector() == null ? new LabelSelector() : spec.getSelector();
      Map<String, String> matchLabels =
          selector.getMatchLabels() == null
              ? new HashMap<>()
              : new HashMap<>(selector.getMatchLabels());
      matchLabels.putIfAbsent(CONTROLLER_UID, meta.getUid());
      selector.setMatchLabels(matchLabels);
      spec.setSelector(selector);
    }
    Map<String, String> templateLabels = JobSpecs.templateLabels(spec.getTemplate());
    if ((meta.getLabels() == null || meta.getLabels().isEmpty()) && !templateLabels.isEmpty()) {
      generated.getMetadata().setLabels(new HashMap<>(templateLabels));
    }
    return generated;
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    Job job = (Job) object;
    List<StatusCause> causes = new ArrayList<>();
    JobSpec spec = job.getSpec();
    if (spec == null) {
      causes.add(required("spec.selector"));
      causes.add(required("spec.template"));
      return causes;
    }
    if (!Boolean.TRUE.equals(spec.getManualSelector())) {
      generatedSelector(job, causes);
    }
    JobSpecs.validate(spec, "spec", causes);
    JobSpecs.selector(spec, causes);
    return causes;
  }

  /** {@code ValidateGeneratedSelector}: the generated labels and selector are as generated. */
  private static void generatedSelector(Job job, List<StatusCause> causes) {
    ObjectMeta meta = job.getMetadata();
    if (meta.getUid() == null || meta.getUid().isEmpty()) {
      causes.add(required("metadata.uid"));
      return;
    }
    Map<String, String> labels = JobSpecs.templateLabels(job.getSpec().getTemplate());
    hasLabel(labels, LEGACY_CONTROLLER_UID, meta.getUid(), causes);
    hasLabel(labels, LEGACY_JOB_NAME, meta.getName(), causes);
    hasLabel(labels, CONTROLLER_UID, meta.getUid(), causes);
    hasLabel(labels, JOB_NAME, meta.getName(), causes);
    LabelSelector selector = job.getSpec().getSelector();
    if (selector != null
        && !LabelSelectors.matches(selector, Map.of(CONTROLLER_UID, meta.getUid()))) {
      causes.add(invalid("spec.selector", "{...}", "`selector` not auto-generated"));
    }
  }

  private static void hasLabel(
      Map<String, String> labels, String key, String expected, List<StatusCause> causes) {
    String field = "spec.template.metadata.labels[" + key + "]";
    String actual = labels.get(key);
    if (actual == null) {
      causes.add(required(field, "must be '" + expected + "'"));
    } else if (!actual.equals(expected)) {
      causes.add(invalid(field, goMap(labels), "must be '" + expected + "'"));
    }
  }

  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    Job job = (Job) object;
    Job previous = (Job) old;
    List<StatusCause> causes = new ArrayList<>();
    if (job.getSpec() == null) {
      causes.add(required("spec.template"));
      return causes;
    }
    JobSpecs.validate(job.getSpec(), "spec", causes);
    JobSpecs.selector(job.getSpec(), causes);
    JobSpec spec = job.getSpec();
    JobSpec oldSpec = previous.getSpec() == null ? new JobSpec() : previous.getSpec();
    if (!Objects.equals(spec.getCompletions(), oldSpec.getCompletions())
        && !elasticIndexed(spec, oldSpec)) {
      immutable("spec.completions", String.valueOf(spec.getCompletions()), causes);
    }
    if (!Objects.equals(spec.getSelector(), oldSpec.getSelector())) {
      immutable("spec.selector", "{...}", causes);
    }
    boolean mayChangeScheduling =
        Boolean.TRUE.equals(spec.getSuspend())
            && (previous.getStatus() == null || previous.getStatus().getStartTime() == null);
    if (!Objects.equals(
        templateWithout(spec.getTemplate(), mayChangeScheduling),
        templateWithout(oldSpec.getTemplate(), mayChangeScheduling))) {
      immutable("spec.template", "core.PodTemplateSpec{...}", causes);
    }
    if (!Objects.equals(spec.getCompletionMode(), oldSpec.getCompletionMode())) {
      immutable("spec.completionMode", quoted(spec.getCompletionMode()), causes);
    }
    if (!Objects.equals(spec.getPodFailurePolicy(), oldSpec.getPodFailurePolicy())) {
      immutable("spec.podFailurePolicy", "{...}", causes);
    }
    if (!Objects.equals(spec.getSuccessPolicy(), oldSpec.getSuccessPolicy())) {
      immutable("spec.successPolicy", "{...}", causes);
    }
    if (!Objects.equals(spec.getBackoffLimitPerIndex(), oldSpec.getBackoffLimitPerIndex())) {
      immutable(
          "spec.backoffLimitPerIndex", String.valueOf(spec.getBackoffLimitPerIndex()), causes);
    }
    if (!Objects.equals(spec.getManagedBy(), oldSpec.getManagedBy())) {
      immutable("spec.managedBy", quoted(spec.getManagedBy()), causes);
    }
    return causes;
  }

  /** Kubernetes' elastic Indexed Jobs: completions may follow parallelism, both equal. */
  private static boolean elasticIndexed(JobSpec spec, JobSpec old) {
    return JobSpecs.INDEXED.equals(spec.getCompletionMode())
        && spec.getCompletions() != null
        && Objects.equals(spec.getCompletions(), spec.getParallelism())
        && old.getCompletions() != null
        && Objects.equals(old.getCompletions(), old.getParallelism());
  }

  /**
   * The template without what a suspended Job that never started may change: its labels and
   * annotations, node selector, affinity, tolerations and scheduling gates.
   */
  private static PodTemplateSpec templateWithout(PodTemplateSpec template, boolean scheduling) {
    if (template == null || !scheduling) {
      return template;
    }
    PodTemplateSpec copy = KubeObjects.MODEL.deepCopy(template.getSchema(), template);
    if (copy.getMetadata() != null) {
      copy.getMetadata().setLabels(null);
      copy.getMetadata().setAnnotations(null);
    }
    PodSpec pod = copy.getSpec();
    if (pod != null) {
      pod.setNodeSelector(null);
      pod.setAffinity(null);
      pod.setTolerations(null);
      pod.setSchedulingGates(null);
    }
    return copy;
  }

  private static void immutable(String field, String value, List<StatusCause> causes) {
    causes.add(invalid(field, value, "field is immutable"));
  }

  private static String quoted(String value) {
    return value == null ? "null" : "\"" + value + "\"";
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.objectMeta();
    fields.put("status.successful", o -> o.path("status").path("succeeded").asText("0"));
    return fields;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Status", "string", "Status of the job."),
              col(
                  "Completions",
                  "string",
                  "The number of pods which reached phase Succeeded. The value increases"
                      + " monotonically for a given spec. However, it may decrease in reaction to"
                      + " scale down of elastic indexed jobs."),
              col("Duration", "string", "Time required to complete the job."),
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
            JsonNode status = o.path("status");
            long succeeded = status.path("succeeded").asLong(0);
            String completions;
            if (spec.path("completions").isNumber()) {
              completions = succeeded + "/" + spec.path("completions").asLong();
            } else {
              long parallelism = spec.path("parallelism").asLong(0);
              completions = parallelism > 1 ? succeeded + "/1 of " + parallelism : succeeded + "/1";
            }
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(printedStatus(o));
            cells.add(completions);
            cells.add(duration(status, now));
            cells.add(age(o, now));
            cells.addAll(containerCells(spec.path("template").path("spec")));
            cells.add(formatSelector(spec.path("selector")));
            return cells;
          });

  /** {@code printJob}'s status: the first of these conditions that is True, else Running. */
  static String printedStatus(JsonNode job) {
    JsonNode conditions = job.path("status").path("conditions");
    if (condition(conditions, "Complete")) {
      return "Complete";
    } else if (condition(conditions, "Failed")) {
      return "Failed";
    } else if (job.path("metadata").path("deletionTimestamp").isTextual()) {
      return "Terminating";
    } else if (condition(conditions, "Suspended")) {
      return "Suspended";
    } else if (condition(conditions, "FailureTarget")) {
      return "FailureTarget";
    } else if (condition(conditions, "SuccessCriteriaMet")) {
      return "SuccessCriteriaMet";
    }
    return "Running";
  }

  private static boolean condition(JsonNode conditions, String type) {
    for (JsonNode c : conditions) {
      if (type.equals(c.path("type").asText()) && "True".equals(c.path("status").asText())) {
        return true;
      }
    }
    return false;
  }

  private static String duration(JsonNode status, Instant now) {
    var start = HumanDuration.parse(status.path("startTime"));
    if (start.isEmpty()) {
      return "";
    }
    var end = HumanDuration.parse(status.path("completionTime"));
    return HumanDuration.format(Duration.between(start.get(), end.orElse(now)));
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
