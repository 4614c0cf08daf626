package io.streamplane.kinds.apps;

import static io.streamplane.kinds.defaults.JsonDefaults.putIfAbsent;
import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.containerCells;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.printers.Cells.selector;
import static io.streamplane.kinds.printers.Cells.wide;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ReplicaSet;
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
 * apps/v1 ReplicaSet: one replica by default and the template's pod spec defaults; replicas,
 * selector and template validated; a generation raised by every spec change; selectable by {@code
 * status.replicas}; kubectl's replica set columns.
 */
public final class ReplicaSetStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    putIfAbsent(spec, "replicas", 1);
    PodSpecDefaults.template(spec);
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var spec = ((ReplicaSet) object).getSpec();
    return spec == null
        ? PodSpecs.workload(false, null, null, null)
        : PodSpecs.workload(true, spec.getReplicas(), spec.getSelector(), spec.getTemplate());
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
              col("Desired", "integer", "Replicas is the number of desired pods."),
              col(
                  "Current",
                  "integer",
                  "Replicas is the most recently observed number of replicas."),
              col("Ready", "integer", "The number of ready replicas for this replica set."),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template."),
              wide("Selector", "Label selector for pods.")),
          (o, now) -> {
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(o.path("spec").path("replicas").asLong(1));
            cells.add(o.path("status").path("replicas").asLong(0));
            cells.add(o.path("status").path("readyReplicas").asLong(0));
            cells.add(age(o, now));
            cells.addAll(containerCells(o.path("spec").path("template").path("spec")));
            cells.add(selector(o.path("spec").path("selector")));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
