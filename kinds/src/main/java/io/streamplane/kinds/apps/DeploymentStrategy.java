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
import io.streamplane.api.Deployment;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.PodSpecs;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * apps/v1 Deployment: {@code SetDefaults_Deployment} (one replica, RollingUpdate with 25%/25%,
 * revision history 10, progress deadline 600 s, the template's pod spec defaults); replicas,
 * selector and template validated; a generation raised by every spec change; a status subresource
 * that also writes annotations (the controller's revision); kubectl's deployment columns.
 */
public final class DeploymentStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    ObjectNode spec = object.with("spec");
    putIfAbsent(spec, "replicas", 1);
    ObjectNode strategy = spec.with("strategy");
    if (!strategy.has("type")) {
      strategy.put("type", "RollingUpdate");
    }
    if (strategy.path("type").asText().equals("RollingUpdate")) {
      ObjectNode rolling = strategy.with("rollingUpdate");
      if (!rolling.has("maxUnavailable")) {
        rolling.put("maxUnavailable", "25%");
      }
      if (!rolling.has("maxSurge")) {
        rolling.put("maxSurge", "25%");
      }
    }
    putIfAbsent(spec, "revisionHistoryLimit", 10);
    putIfAbsent(spec, "progressDeadlineSeconds", 600);
    PodSpecDefaults.template(spec);
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var spec = ((Deployment) object).getSpec();
    return spec == null
        ? PodSpecs.workload(false, null, null, null)
        : PodSpecs.workload(true, spec.getReplicas(), spec.getSelector(), spec.getTemplate());
  }

  @Override
  public boolean keepsGeneration() {
    return true;
  }

  @Override
  public boolean statusWritesAnnotations() {
    return true;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Ready", "string", "Number of the pod with ready state"),
              col(
                  "Up-to-date",
                  "string",
                  "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
              col(
                  "Available",
                  "string",
                  "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
              age(),
              wide("Containers", "Names of each container in the template."),
              wide("Images", "Images referenced by each container in the template."),
              wide(
                  "Selector",
                  "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.")),
          (o, now) -> {
            JsonNode status = o.path("status");
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.add(
                status.path("readyReplicas").asLong(0)
                    + "/"
                    + o.path("spec").path("replicas").asLong(1));
            cells.add(status.path("updatedReplicas").asLong(0));
            cells.add(status.path("availableReplicas").asLong(0));
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
