package io.streamplane.kinds.storage;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.count;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.duplicate;
import static io.streamplane.kinds.validation.FieldErrors.required;

import io.streamplane.api.CSINode;
import io.streamplane.api.CSINodeDriver;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * storage.k8s.io/v1 CSINode: drivers named once each, with a node ID; printed with how many drivers
 * the node has registered.
 */
public final class CSINodeStrategy implements KindStrategy {

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    var spec = ((CSINode) object).getSpec();
    List<StatusCause> causes = new ArrayList<>();
    List<CSINodeDriver> drivers =
        spec == null || spec.getDrivers() == null ? List.of() : spec.getDrivers();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < drivers.size(); i++) {
      CSINodeDriver driver = drivers.get(i);
      String path = "spec.drivers[" + i + "]";
      if (driver.getName() == null || driver.getName().isEmpty()) {
        causes.add(required(path + ".name"));
      } else if (!names.add(driver.getName())) {
        causes.add(duplicate(path + ".name", driver.getName()));
      }
      if (driver.getNodeID() == null || driver.getNodeID().isEmpty()) {
        causes.add(required(path + ".nodeID"));
      }
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Drivers",
                  "integer",
                  "Drivers indicates the number of CSI drivers registered on the node"),
              age()),
          (o, now) -> List.of(name(o), count(o.path("spec").path("drivers")), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
