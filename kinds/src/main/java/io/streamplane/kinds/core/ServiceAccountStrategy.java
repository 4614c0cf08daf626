package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.count;
import static io.streamplane.kinds.printers.Cells.name;

import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import java.util.List;

/** core/v1 ServiceAccount: printed with the number of its secrets. */
public final class ServiceAccountStrategy implements KindStrategy {

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              col(
                  "Secrets",
                  "string",
                  "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."),
              age()),
          (o, now) -> List.of(name(o), count(o.path("secrets")), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
