package io.streamplane.kinds.core;

import static io.streamplane.kinds.printers.Cells.age;
import static io.streamplane.kinds.printers.Cells.col;
import static io.streamplane.kinds.printers.Cells.name;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.kinds.KindStrategy;
import io.streamplane.kinds.printers.Printer;
import java.util.ArrayList;
import java.util.List;

/**
 * core/v1 Endpoints: printed as kubectl prints them, at most three {@code ip:port} (or bare IPs of
 * a subset without ports) and {@code + N more...}.
 */
public final class EndpointsStrategy implements KindStrategy {

  private static final int SHOWN = 3;

  private static final Printer PRINTER =
      Printer.of(
          List.of(name(), col("Endpoints", "string", "Endpoints of the service"), age()),
          (o, now) -> List.of(name(o), endpoints(o.path("subsets")), age(o, now)));

  /** kubectl's formatEndpoints. */
  static String endpoints(JsonNode subsets) {
    if (subsets.isEmpty()) {
      return "<none>";
    }
    List<String> shown = new ArrayList<>();
    int count = 0;
    boolean more = false;
    for (JsonNode subset : subsets) {
      JsonNode addresses = subset.path("addresses");
      if (subset.path("ports").isEmpty()) {
        count += addresses.size();
        for (JsonNode address : addresses) {
          if (shown.size() == SHOWN) {
            more = true;
            break;
          }
          shown.add(address.path("ip").asText());
        }
        continue;
      }
      for (JsonNode port : subset.path("ports")) {
        count += addresses.size();
        for (JsonNode address : addresses) {
          if (shown.size() == SHOWN) {
            more = true;
            break;
          }
          String ip = address.path("ip").asText();
          shown.add((ip.contains(":") ? "[" + ip + "]" : ip) + ":" + port.path("port").asInt());
        }
      }
    }
    String text = String.join(",", shown);
    return more ? text + " + " + (count - SHOWN) + " more..." : text;
  }

  @Override
  public Printer printer() {
    return PRINTER;
  }
}
