package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.containerCells;
import static io.streamplane.kinds.printers.Cells.labels;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.required;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.PodTemplate;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.defaults.PodSpecDefaults;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.validation.PodSpecs;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * core/v1 PodTemplate: its template's pod spec defaulted and validated as a workload's; printed
 * with the template's containers, images and pod labels.
 */
public final class PodTemplateStrategy implements KindStrategy {

  @Override
  public void applyDefaults(ObjectNode object, boolean create) {
    PodSpecDefaults.template(object);
  }

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var template = ((PodTemplate) object).getTemplate();
    List<StatusCause> causes = new ArrayList<>();
    if (template == null) {
      causes.add(required("template"));
      return causes;
    }
    PodSpecs.validate(template.getSpec(), "template.spec", causes);
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col("Containers", "string", "Names of each container in the template."),
              col("Images", "string", "Images referenced by each container in the template."),
              col("Pod Labels", "string", "The labels for the pod template.")),
          (o, now) -> {
            List<Object> cells = new ArrayList<>();
            cells.add(name(o));
            cells.addAll(containerCells(o.path("template").path("spec")));
            cells.add(labels(o.path("template").path("metadata").path("labels")));
            return cells;
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
