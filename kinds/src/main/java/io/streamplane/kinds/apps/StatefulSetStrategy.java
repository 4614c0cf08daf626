package io.streamplane.kinds.apps;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.containerCells;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.forbidden;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.RollingUpdateStatefulSetStrategy;
import io.streamplane.api.StatefulSet;
import io.streamplane.api.StatefulSetPersistentVolumeClaimRetentionPolicy;
import io.streamplane.api.StatefulSetSpec;
import io.streamplane.api.StatefulSetUpdateStrategy;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.FieldErrors;
import io.streamplane.kinds.validation.PodSpecs;
import io.streamplane.log.StatusCause;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.avro.specific.SpecificRecord;

/**
 * apps/v1 StatefulSet: {@code SetDefaults_StatefulSet} (podManagementPolicy OrderedReady,
 * updateStrategy RollingUpdate with partition 0, persistentVolumeClaimRetentionPolicy Retain and
 * Retain, replicas 1, revisionHistoryLimit 10, the template's pod spec defaults, the claim
 * templates' volumeMode Filesystem and phase Pending); {@code ValidateStatefulSetSpec} (the policy
 * and strategy types, a non-negative partition, a maxUnavailable that is a positive number or
 * percentage of at most 100%, a non-empty selector that selects the template, restartPolicy Always,
 * no activeDeadlineSeconds, non-negative replicas, minReadySeconds and ordinals.start, retention
 * policies of Retain or Delete) and, on update, {@code ValidateStatefulSetUpdate}: only replicas,
 * ordinals, template, updateStrategy, revisionHistoryLimit, persistentVolumeClaimRetentionPolicy
 * and minReadySeconds may change; a generation raised by every spec change; kube-apiserver's
 * stateful set columns.
 *
 * <p>Limits: {@code rollingUpdate.maxUnavailable} is kept and acted on as if kube-apiserver's
 * MaxUnavailableStatefulSet feature were on (it is alpha, off by default in 1.32, which drops the
 * field), but not defaulted to 1, as that feature would.
 */
public final class StatefulSetStrategy implements KindStrategy {

  private static final Pattern PERCENT = Pattern.compile("^[0-9]+%$");
  private static final List<String> RETENTION = List.of("Retain", "Delete");

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    putIfAbsent(spec, "podManagementPolicy", "OrderedReady");
    ObjectNode strategy = spec.with("updateStrategy");
    if (strategy.path("type").asText("").isEmpty()) {
      strategy.put("type", "RollingUpdate");
      strategy.with("rollingUpdate");
    }
    if (strategy.path("type").asText().equals("RollingUpdate")
        && strategy.get("rollingUpdate") instanceof ObjectNode rolling) {
      putIfAbsent(rolling, "partition", 0);
    }
    ObjectNode retention = spec.with("persistentVolumeClaimRetentionPolicy");
    putIfAbsent(retention, "whenDeleted", "Retain");
    putIfAbsent(retention, "whenScaled", "Retain");
    putIfAbsent(spec, "replicas", 1);
    putIfAbsent(spec, "revisionHistoryLimit", 10);
    PodSpecDefaults.template(spec);
    for (JsonNode claim : spec.path("volumeClaimTemplates")) {
      if (claim instanceof ObjectNode c) {
        putIfAbsent(c.with("spec"), "volumeMode", "Filesystem");
        putIfAbsent(c.with("status"), "phase", "Pending");
      }
    }
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    StatefulSetSpec spec = ((StatefulSet) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    if (spec == null) {
      causes.add(required("spec.selector"));
      return causes;
    }
    String policy = spec.getPodManagementPolicy();
    if (policy == null || policy.isEmpty()) {
      causes.add(required("spec.podManagementPolicy"));
    } else if (!policy.equals("OrderedReady") && !policy.equals("Parallel")) {
      causes.add(
          invalid(
              "spec.podManagementPolicy",
              FieldErrors.quote(policy),
              "must be 'OrderedReady' or 'Parallel'"));
    }
    updateStrategy(spec.getUpdateStrategy(), causes);
    PodSpecs.replicas(spec.getReplicas(), causes);
    PodSpecs.selectorAndTemplate(spec.getSelector(), spec.getTemplate(), causes);
    if (spec.getTemplate() != null && spec.getTemplate().getSpec() != null) {
      var podSpec = spec.getTemplate().getSpec();
      String restartPolicy = podSpec.getRestartPolicy();
      if (restartPolicy != null && !"Always".equals(restartPolicy)) {
        causes.add(
            notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
      }
      if (podSpec.getActiveDeadlineSeconds() != null) {
        causes.add(
            invalid(
                "spec.template.spec.activeDeadlineSeconds",
                podSpec.getActiveDeadlineSeconds().toString(),
                "must not be specified"));
      }
    }
    nonNegative(spec.getMinReadySeconds(), "spec.minReadySeconds", causes);
    if (spec.getOrdinals() != null) {
      nonNegative(spec.getOrdinals().getStart(), "spec.ordinals.start", causes);
    }
    StatefulSetPersistentVolumeClaimRetentionPolicy retention =
        spec.getPersistentVolumeClaimRetentionPolicy();
    if (retention != null) {
      retention(retention.getWhenDeleted(), "whenDeleted", causes);
      retention(retention.getWhenScaled(), "whenScaled", causes);
    }
    return causes;
  }

  private static void retention(String value, String field, List<StatusCause> causes) {
    if (value != null && !RETENTION.contains(value)) {
      causes.add(
          notSupported("spec.persistentVolumeClaimRetentionPolicy." + field, value, RETENTION));
    }
  }

  /**
   * {@code ValidateStatefulSetUpdate}: the spec with the fields that may change taken from the old
   * object must equal the old spec.
   */
  @Override
  public List<StatusCause> validateUpdate(SpecificRecord object, SpecificRecord old) {
    List<StatusCause> causes = new ArrayList<>(validate(object));
    StatefulSetSpec spec = ((StatefulSet) object).getSpec();
    StatefulSetSpec oldSpec = ((StatefulSet) old).getSpec();
    if (spec != null && oldSpec != null) {
      StatefulSetSpec restricted = KubeObjects.copy(spec);
      restricted.setReplicas(oldSpec.getReplicas());
      restricted.setOrdinals(oldSpec.getOrdinals());
      restricted.setTemplate(oldSpec.getTemplate());
      restricted.setUpdateStrategy(oldSpec.getUpdateStrategy());
      restricted.setRevisionHistoryLimit(oldSpec.getRevisionHistoryLimit());
      restricted.setPersistentVolumeClaimRetentionPolicy(
          oldSpec.getPersistentVolumeClaimRetentionPolicy());
      restricted.setMinReadySeconds(oldSpec.getMinReadySeconds());
      if (!KubeObjects.same(restricted, oldSpec)) {
        causes.add(
            0,
            forbidden(
                "spec",
                "updates to statefulset spec for fields other than 'replicas', 'ordinals',"
                    + " 'template', 'updateStrategy', 'revisionHistoryLimit',"
                    + " 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are"
                    + " forbidden"));
      }
    }
    return causes;
  }

  private static void updateStrategy(StatefulSetUpdateStrategy strategy, List<StatusCause> causes) {
    String type = strategy == null ? null : strategy.getType();
    RollingUpdateStatefulSetStrategy rolling =
        strategy == null ? null : strategy.getRollingUpdate();
    if (type == null || type.isEmpty()) {
      causes.add(required("spec.updateStrategy"));
    } else if (type.equals("OnDelete")) {
      if (rolling != null) {
        causes.add(
            invalid(
                "spec.updateStrategy.rollingUpdate",
                "{}",
                "only allowed for updateStrategy 'RollingUpdate'"));
      }
    } else if (type.equals("RollingUpdate")) {
      if (rolling != null) {
        nonNegative(rolling.getPartition(), "spec.updateStrategy.rollingUpdate.partition", causes);
        maxUnavailable(rolling.getMaxUnavailable(), causes);
      }
    } else {
      causes.add(
          invalid(
              "spec.updateStrategy",
              "{\"type\":" + FieldErrors.quote(type) + "}",
              "must be 'RollingUpdate' or 'OnDelete'"));
    }
  }

  /** {@code ValidatePositiveIntOrPercent}, {@code IsNotMoreThan100Percent}, and not zero. */
  private static void maxUnavailable(Object value, List<StatusCause> causes) {
    if (value == null) {
      return;
    }
    String field = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    int number;
    if (value instanceof Integer i) {
      if (i < 0) {
        causes.add(invalid(field, i.toString(), "must be greater than or equal to 0"));
        return;
      }
      number = i;
    } else {
      String s = value.toString();
      if (!PERCENT.matcher(s).matches()) {
        causes.add(
            invalid(
                field,
                FieldErrors.quote(s),
                "a valid percent string must be a numeric string followed by an ending '%' (e.g."
                    + " '1%',  or '93%', regex used for validation is '[0-9]+%')"));
        return;
      }
      number = Integer.parseInt(s.substring(0, s.length() - 1));
      if (number > 100) {
        causes.add(invalid(field, FieldErrors.quote(s), "must not be greater than 100%"));
        return;
      }
    }
    if (number == 0) {
      causes.add(invalid(field, value.toString(), "must be greater than 0"));
    }
  }

  private static void nonNegative(Integer value, String field, List<StatusCause> causes) {
    if (value != null && value < 0) {
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
              col("Ready", "string", "Number of the pod with ready state"),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template.")),
          (o, now) -> {
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(
                o.path("status").path("readyReplicas").asLong(0)
                    + "/"
                    + o.path("spec").path("replicas").asLong(0));
            cells.add(age(o, now));
            cells.addAll(containerCells(o.path("spec").path("template").path("spec")));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
