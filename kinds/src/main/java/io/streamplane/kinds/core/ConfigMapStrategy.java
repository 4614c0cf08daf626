package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.count;
import static io.streamplane.kinds.printers.Cells.name;

import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.quota.QuotaEvaluator;
import java.util.List;

/** core/v1 ConfigMap: printed with the number of its data and binary data entries. */
public final class ConfigMapStrategy implements KindStrategy {

  private static final QuotaEvaluator QUOTA = QuotaEvaluator.ownCount("configmaps");

  @Override
  public QuotaEvaluator quota() {
    return QUOTA;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(name(), col("Data", "string", "Data contains the configuration data."), age()),
          (o, now) ->
              List.of(name(o), count(o.path("data")) + count(o.path("binaryData")), age(o, now)));

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
