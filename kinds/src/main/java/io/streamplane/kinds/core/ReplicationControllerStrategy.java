package io.streamplane.kinds.core;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.containerCells;
import static io.streamplane.kinds.printers.Cells.labels;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.wide;
import static io.streamplane.kinds.validation.FieldErrors.goMap;
import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.notSupported;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ReplicationController;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.selection.Fields;
import io.streamplane.kinds.validation.PodSpecs;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;

/**
 * core/v1 ReplicationController, stored and printed (the ReplicaSet controller runs it): {@code
 * SetDefaults_ReplicationController} (selector and labels from the template's labels, one replica),
 * its selector map required to select the template, whose pods must restart Always; a generation
 * raised by every spec change; selectable by {@code status.replicas}.
 */
public final class ReplicationControllerStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    JsonNode templateLabels = spec.path("template").path("metadata").path("labels");
    if (templateLabels.isObject() && !templateLabels.isEmpty()) {
      if (spec.path("selector").isEmpty()) {
        spec.set("selector", templateLabels.deepCopy());
      }
      if (object.path("metadata").path("labels").isEmpty()) {
        object.with("metadata").set("labels", templateLabels.deepCopy());
      }
    }
    putIfAbsent(spec, "replicas", 1);
    PodSpecDefaults.template(spec);
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var spec = ((ReplicationController) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    if (spec == null) {
      causes.add(required("spec.selector"));
      causes.add(required("spec.template"));
      return causes;
    }
    PodSpecs.replicas(spec.getReplicas(), causes);
    Map<String, String> selector = spec.getSelector() == null ? Map.of() : spec.getSelector();
    if (selector.isEmpty()) {
      causes.add(required("spec.selector"));
    }
    var template = spec.getTemplate();
    if (template == null) {
      causes.add(required("spec.template"));
      return causes;
    }
    Map<String, String> labels =
        template.getMetadata() == null || template.getMetadata().getLabels() == null
            ? Map.of()
            : template.getMetadata().getLabels();
    if (!selector.isEmpty()
        && !selector.entrySet().stream()
            .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
      causes.add(
          invalid(
              "spec.template.metadata.labels",
              goMap(labels),
              "`selector` does not match template `labels`"));
    }
    PodSpecs.validate(template.getSpec(), "spec.template.spec", causes);
    String restartPolicy =
        template.getSpec() == null ? null : template.getSpec().getRestartPolicy();
    if (restartPolicy != null && !restartPolicy.equals("Always")) {
      causes.add(
          notSupported("spec.template.spec.restartPolicy", restartPolicy, List.of("Always")));
    }
    return causes;
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public Map<String, Function<JsonNode, String>> selectableFields() {
    Map<String, Function<JsonNode, String>> fields = Fields.objectMeta();
    fields.put("status.replicas", o -> o.path("status").path("replicas").asText("0"));
    return fields;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Desired",
                  "integer",
                  "Replicas is the number of desired replicas. This is a pointer to distinguish"
                      + " between explicit zero and unspecified. Defaults to 1. More info:"
                      + " https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"),
              col(
                  "Current",
                  "integer",
                  "Replicas is the most recently observed number of replicas. More info:"
                      + " https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"),
              col(
                  "Ready",
                  "integer",
                  "The number of ready replicas for this replication controller."),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template."),
              wide(
                  "Selector",
                  "Selector is a label query over pods that should match the Replicas count. If"
                      + " Selector is empty, it is defaulted to the labels present on the Pod"
                      + " template. Label keys and values that must match in order to be"
                      + " controlled by this replication controller, if empty defaulted to labels"
                      + " on Pod template. More info:"
                      + " https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors")),
          (o, now) -> {
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(o.path("spec").path("replicas").asLong(1));
            cells.add(o.path("status").path("replicas").asLong(0));
            cells.add(o.path("status").path("readyReplicas").asLong(0));
            cells.add(age(o, now));
            cells.addAll(containerCells(o.path("spec").path("template").path("spec")));
            cells.add(labels(o.path("spec").path("selector")));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
