package io.streamplane.cli.audit;

import io.streamplane.log.AuditEvent;
import io.streamplane.log.ObjectRef;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Audit events as {@code streamplane audit}'s table: TIME USER VERB RESOURCE NAMESPACE/NAME CODE
 * LATENCY, one request stage a line. Columns are as wide as their widest cell among the rows given
 * at once; rows printed later (following) keep those widths where they fit.
 */
final class AuditTable {

  static final List<String> HEADER =
      List.of("TIME", "USER", "VERB", "RESOURCE", "NAMESPACE/NAME", "CODE", "LATENCY");

  private final int[] widths = new int[HEADER.size()];

  AuditTable() {
    for (int i = 0; i < widths.length; i++) {
      widths[i] = HEADER.get(i).length();
    }
  }

  /** The header and {@code events}' rows, widened to fit them. */
  String render(List<AuditEvent> events, boolean header) {
    List<List<String>> rows = new ArrayList<>();
    for (AuditEvent event : events) {
      rows.add(cells(event));
    }
    for (List<String> row : rows) {
      widen(row);
    }
    StringBuilder text = new StringBuilder();
    if (header) {
      text.append(line(HEADER));
    }
    for (List<String> row : rows) {
      text.append(line(row));
    }
    return text.toString();
  }

  /** One more row, in the widths known so far. */
  String row(AuditEvent event) {
    List<String> cells = cells(event);
    widen(cells);
    return line(cells);
  }

  static List<String> cells(AuditEvent event) {
    ObjectRef ref = event.getObjectRef();
    String resource;
    String object;
    if (ref == null) {
      resource = path(event.getRequestURI());
      object = "";
    } else {
      resource =
          orEmpty(ref.getResource())
              + (ref.getApiGroup() == null || ref.getApiGroup().isEmpty()
                  ? ""
                  : "." + ref.getApiGroup())
              + (ref.getSubresource() == null ? "" : "/" + ref.getSubresource());
      String namespace = orEmpty(ref.getNamespace());
      String name = orEmpty(ref.getName());
      object = namespace.isEmpty() ? name : namespace + "/" + name;
    }
    String user = event.getUser().getUsername();
    return List.of(
        event.getStageTimestamp().truncatedTo(ChronoUnit.MILLIS).toString(),
        user.isEmpty() ? "(unauthenticated)" : user,
        event.getVerb(),
        resource,
        object.isEmpty() ? "-" : object,
        event.getResponseStatus() == null
            ? "-"
            : Integer.toString(event.getResponseStatus().getCode()),
        latency(Duration.between(event.getRequestReceivedTimestamp(), event.getStageTimestamp())));
  }

  static String latency(Duration d) {
    long micros = d.toNanos() / 1000;
    if (micros < 1000) {
      return micros + "µs";
    }
    if (micros < 1_000_000) {
      return String.format(Locale.ROOT, "%.1fms", micros / 1000.0);
    }
    return String.format(Locale.ROOT, "%.2fs", micros / 1e6);
  }

  private static String path(String uri) {
    int q = uri.indexOf('?');
    return q < 0 ? uri : uri.substring(0, q);
  }

  private void widen(List<String> row) {
    for (int i = 0; i < row.size(); i++) {
      widths[i] = Math.max(widths[i], row.get(i).length());
    }
  }

  private String line(List<String> cells) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      String cell = cells.get(i);
      line.append(cell);
      if (i < cells.size() - 1) {
        line.append(" ".repeat(Math.max(widths[i] - cell.length(), 0) + 3));
      }
    }
    return line.append('\n').toString();
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
