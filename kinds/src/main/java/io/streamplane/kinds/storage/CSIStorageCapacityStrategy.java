package io.streamplane.kinds.storage;

import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;
import static io.streamplane.kinds.validation.FieldErrors.required;

import io.streamplane.api.CSIStorageCapacity;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * storage.k8s.io/v1 CSIStorageCapacity: a storage class name required; printed with that class and
 * the capacity, {@code <unset>} when none is reported.
 */
public final class CSIStorageCapacityStrategy implements KindStrategy {

  @Override
  public List<StatusCause> validate(SpecificRecord object) {
    String storageClassName = ((CSIStorageCapacity) object).getStorageClassName();
    List<StatusCause> causes = new ArrayList<>();
    if (storageClassName == null || storageClassName.isEmpty()) {
      causes.add(required("storageClassName"));
    }
    return causes;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "StorageClassName",
                  "string",
                  "storageClassName represents the name of the StorageClass that the reported"
                      + " capacity applies to. It must meet the same requirements as the name of"
                      + " a StorageClass object (non-empty, DNS subdomain). If that object no"
                      + " longer exists, the CSIStorageCapacity object is obsolete and should be"
                      + " removed by its creator. This field is immutable."),
              col(
                  "Capacity",
                  "string",
                  "capacity is the value reported by the CSI driver in its GetCapacityResponse for"
                      + " a GetCapacityRequest with topology and parameters that match the"
                      + " previous fields.")),
          (o, now) ->
              List.of(
                  name(o),
                  o.path("storageClassName").asText(""),
                  o.hasNonNull("capacity") ? o.path("capacity").asText() : "<unset>"));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
