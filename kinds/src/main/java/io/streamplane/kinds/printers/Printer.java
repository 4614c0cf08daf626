package io.streamplane.kinds.printers;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A kind's row printer, as kube-apiserver's {@code pkg/printers/internalversion} prints it over
 * Kubernetes JSON: the same columns, priorities, cell types and cell text.
 *
 * <p>Contract: {@link #row} returns the wide row (every column, priority 1 included), as the API
 * server does. Missing fields print as the Go zero value would.
 */
public interface Printer {

  List<Column> columns();

  Row row(JsonNode object, Instant now);

  /** A printer whose rows carry no conditions. */
  static Printer of(List<Column> columns, BiFunction<JsonNode, Instant, List<Object>> cells) {
    return new Printer() {
      @Override
      public List<Column> columns() {
        return columns;
      }

      @Override
      public Row row(JsonNode object, Instant now) {
        return new Row(cells.apply(object, now), List.of());
      }
    };
  }

  /**
   * The API server's default table, for kinds without a printer of their own: Name and Created At.
   */
  Printer CREATED_AT =
      of(
          List.of(Cells.name(), new Column("Created At", "date", "", Cells.AGE_DESCRIPTION, 0)),
          (o, now) -> List.of(Cells.name(o), Cells.createdAt(o)));
}
