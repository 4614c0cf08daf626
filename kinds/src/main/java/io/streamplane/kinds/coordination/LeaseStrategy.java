package io.streamplane.kinds.coordination;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;

import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import java.util.List;

/** coordination.k8s.io/v1 Lease: printed with its holder. */
public final class LeaseStrategy implements KindStrategy {

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Holder",
                  "string",
                  "holderIdentity contains the identity of the holder of a current lease."),
              age()),
          (o, now) ->
              List.of(name(o), o.path("spec").path("holderIdentity").asText(""), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
