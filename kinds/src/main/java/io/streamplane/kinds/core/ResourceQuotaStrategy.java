package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import io.streamplane.kinds.quota.QuotaEvaluator;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** core/v1 ResourceQuota: printed with used/hard per resource, requests apart from limits. */
public final class ResourceQuotaStrategy implements KindStrategy {

  private static final QuotaEvaluator QUOTA = QuotaEvaluator.ownCount("resourcequotas");

  @Override
  public QuotaEvaluator quota() {
    return QUOTA;
  }

  private static final Printer PRINTER =
      Printer.of(
          List.of(
              name(),
              age(),
              col(
                  "Request",
                  "string",
                  "Request represents a minimum amount of cpu/memory that a container may consume."),
              col(
                  "Limit",
                  "string",
                  "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.")),
          (o, now) -> {
            JsonNode hard = o.path("status").path("hard");
            JsonNode used = o.path("status").path("used");
            TreeSet<String> resources = new TreeSet<>();
            hard.fieldNames().forEachRemaining(resources::add);
            List<String> request = new ArrayList<>();
            List<String> limit = new ArrayList<>();
            for (String r : resources) {
              String entry = r + ": " + used.path(r).asText("0") + "/" + hard.path(r).asText("0");
              (r.startsWith("limits.") ? limit : request).add(entry);
            }
            return List.of(
                name(o), age(o, now), String.join(", ", request), String.join(", ", limit));
          });

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
