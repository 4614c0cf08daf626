package io.streamplane.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.streamplane.bench.ReportParts;
import io.streamplane.bench.metrics.MetricsDelta;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a scenario run produced, and how it is written: {@code <name>.md} (summary, target verdict,
 * chart, the scenario's own sections, the server's metrics, the command, the machine and the date),
 * {@code <name>.svg}, and optionally a JSON file with the same figures for scripts.
 *
 * @param scenario the scenario's name ({@code density}, ...)
 * @param title the report's heading
 * @param summary the result in a few lines, also printed at the end of the run
 * @param body the scenario's sections: what was measured and how, tables
 * @param results the figures for the JSON file (records, maps, lists)
 */
public record Report(
    String scenario,
    String title,
    String command,
    String server,
    Instant started,
    Duration took,
    String summary,
    String body,
    SvgFigure figure,
    List<Target> targets,
    List<String> failures,
    List<MetricsDelta.Row> metrics,
    String metricsUnavailable,
    Object results) {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Failed when something went wrong during the run or a target was missed. */
  public boolean failed() {
    return !failures.isEmpty() || targets.stream().anyMatch(t -> !t.met());
  }

  /** Writes {@code dir/name.md}, {@code dir/name.svg} and, when {@code json} is set, that file. */
  public List<Path> write(Path dir, String name, Path json) throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    Path md = dir.resolve(name + ".md");
    Files.writeString(md, markdown(name), StandardCharsets.UTF_8);
    written.add(md);
    if (!figure.isEmpty()) {
      Path svg = dir.resolve(name + ".svg");
      Files.writeString(svg, figure.render(), StandardCharsets.UTF_8);
      written.add(svg);
    }
    if (json != null) {
      Path parent = json.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Files.writeString(json, json(), StandardCharsets.UTF_8);
      written.add(json);
    }
    return written;
  }

  /** The Markdown report; {@code name} is the base name of its chart. */
  public String markdown(String name) {
    StringBuilder md = new StringBuilder("# ").append(title).append("\n\n");
    md.append(summary.strip()).append("\n\n");
    for (Target t : targets) {
      md.append("**Target** ").append(t.verdict()).append(".\n\n");
    }
    if (!failures.isEmpty()) {
      md.append("**The run had problems:**\n\n");
      failures.forEach(f -> md.append("- ").append(f).append('\n'));
      md.append('\n');
    }
    if (!figure.isEmpty()) {
      md.append("![").append(title).append("](").append(name).append(".svg)\n\n");
    }
    md.append(body.strip()).append("\n\n## Server metrics\n\n");
    if (metricsUnavailable != null) {
      md.append("Metrics were not available: ").append(metricsUnavailable).append(".\n");
    } else if (metrics.isEmpty()) {
      md.append("`/metrics` answered, but with none of the metrics this report reads.\n");
    } else {
      md.append(
          "From the server's `/metrics`, scraped before and after the run (end values for"
              + " gauges):\n\n");
      List<List<String>> rows = new ArrayList<>();
      for (MetricsDelta.Row r : metrics) {
        rows.add(
            List.of(
                "`" + r.metric() + "`",
                r.labels(),
                Markdown.num(r.start(), 0),
                Markdown.num(r.end(), 0),
                Markdown.num(r.delta(), Math.abs(r.delta()) < 10 ? 3 : 0)));
      }
      md.append(
          Markdown.table(List.of("metric", "labels", "before", "after", "change"), "llrrr", rows));
    }
    md.append("\n## How it was run\n\n")
        .append("```sh\n")
        .append(command)
        .append("\n```\n\n- Server: ")
        .append(server)
        .append("\n- Started: ")
        .append(
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
                .format(started.atZone(ZoneOffset.UTC)))
        .append(", took ")
        .append(String.format(Locale.ROOT, "%.1f s", took.toMillis() / 1000.0))
        .append('\n')
        .append(ReportParts.machine())
        .append("- Load average (1, 5, 15 min) at the end: ")
        .append(loadAverage())
        .append("\n");
    return md.toString();
  }

  /** The JSON results document. */
  public String json() throws IOException {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("scenario", scenario);
    doc.put("command", command);
    doc.put("server", server);
    doc.put("started", started.toString());
    doc.put("seconds", took.toMillis() / 1000.0);
    doc.put("failed", failed());
    doc.put("failures", failures);
    List<Map<String, Object>> targetList = new ArrayList<>();
    for (Target t : targets) {
      Map<String, Object> target = new LinkedHashMap<>();
      target.put("what", t.what());
      target.put("limit", t.limit());
      target.put("actual", t.actual());
      target.put("unit", t.unit());
      target.put("met", t.met());
      targetList.add(target);
    }
    doc.put("targets", targetList);
    doc.put("metricsUnavailable", metricsUnavailable);
    doc.put("metrics", metrics);
    doc.put("results", results);
    return JSON.writeValueAsString(doc) + "\n";
  }

  private static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
