package io.streamplane.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.bench.measure.LatencySummary;
import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.metrics.MetricsDelta;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class ReportTest {

  @TempDir Path dir;

  @Test
  void theFigureIsWellFormedSvgWithAPanelPerChart() throws Exception {
    TimeSeries running = new TimeSeries("Running");
    running.add(0, 0);
    running.add(1.5, 40);
    running.add(3, 100);

    String svg = figure(running).render();

    Document doc = parse(svg);
    assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
    assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(3);
    assertThat(svg).contains("Pod startup &lt;SLI&gt;").contains("Running").contains("create");
  }

  @Test
  void negativeValuesAndEmptySeriesStillDraw() throws Exception {
    SvgFigure figure =
        new SvgFigure("lag")
            .cdf("lag", "ms", List.of(new SvgFigure.Values("w", new double[] {-3, -1, 2, 40})))
            .histogram("lag", "ms", new double[] {-3, -1, 2, 40}, 10)
            .timeSeries("nothing", "x", List.of(new TimeSeries("empty")))
            .bars("topics", List.of(new SvgFigure.Bar("sp.commands", 0.2, "0.2/s")));

    Document doc = parse(figure.render());

    assertThat(doc.getElementsByTagName("polyline").getLength()).isEqualTo(1);
    assertThat(figure.render()).contains(">-10<").contains("sp.commands");
  }

  @Test
  void axesRunInRoundStepsFromZeroOrBelowTheLowestValue() {
    assertThat(SvgFigure.range(0, 10_145)).containsExactly(0, 12_500, 2_500);
    assertThat(SvgFigure.range(0, 20)).containsExactly(0, 20, 5);
    assertThat(SvgFigure.range(0, 0.7)).containsExactly(0, 0.8, 0.2);
    assertThat(SvgFigure.range(-80, 25)).containsExactly(-100, 25, 25);
    assertThat(SvgFigure.range(0, 0)).containsExactly(0, 0.2, 0.2);
  }

  @Test
  void theMarkdownStatesTheFiguresTargetCommandMetricsAndMachine() throws Exception {
    Report report =
        report(
            List.of(new Target("p99 pod startup latency", 5000, 6500, "ms")),
            List.of(new MetricsDelta.Row("apiserver_request_total", "verb=POST", 5, 25, 20)),
            null);

    List<Path> written = report.write(dir, "density-small", dir.resolve("json/out.json"));

    assertThat(written)
        .containsExactly(
            dir.resolve("density-small.md"),
            dir.resolve("density-small.svg"),
            dir.resolve("json/out.json"));
    String md = Files.readString(dir.resolve("density-small.md"));
    assertThat(md)
        .startsWith("# Pod startup\n\n20 pods Running")
        .contains(
            "**Target** **missed** by 1,500 ms, 30% over: p99 pod startup latency was 6,500 ms")
        .contains("![Pod startup](density-small.svg)")
        .contains("| 20 | 1,300 ms | 6,500 ms |")
        .contains("| `apiserver_request_total` | verb=POST | 5 | 25 | 20 |")
        .contains("streamplane bench density --deployments 2 --replicas 10")
        .contains("## Machine")
        .contains("- Server: http://127.0.0.1:6443");
    assertThat(report.failed()).isTrue();
    parse(Files.readString(dir.resolve("density-small.svg")));
  }

  @Test
  void aMetTargetAndMissingMetricsAreSaidPlainly() throws Exception {
    Report report =
        report(
            List.of(new Target("p99 pod startup latency", 5000, 1900, "ms")),
            List.of(),
            "GET /metrics answered 404");

    String md = report.markdown("x");

    assertThat(md)
        .contains(
            "**Target** **met**: p99 pod startup latency was 1,900 ms, target ≤ 5,000 ms"
                + " (3,100 ms, 62% below it)")
        .contains("Metrics were not available: GET /metrics answered 404.");
    assertThat(report.failed()).isFalse();
  }

  @Test
  void theJsonHasTheResultsAndTargets() throws Exception {
    Report report =
        report(List.of(new Target("p99", 10, 5, "ms")), List.of(), "GET /metrics answered 404");

    JsonNode json = new ObjectMapper().readTree(report.json());

    assertThat(json.path("scenario").asText()).isEqualTo("density");
    assertThat(json.at("/targets/0/met").asBoolean()).isTrue();
    assertThat(json.at("/results/startup/p50").asDouble()).isEqualTo(1300);
    assertThat(json.at("/results/running/points/1/value").asDouble()).isEqualTo(20);
  }

  private static SvgFigure figure(TimeSeries running) {
    return new SvgFigure("Pod startup <SLI>")
        .histogram("startup", "ms", new double[] {900, 1200, 1500, 4000}, 20)
        .cdf(
            "startup and scheduling",
            "ms",
            List.of(
                new SvgFigure.Values("create → Running", new double[] {900, 1200, 1500, 4000}),
                new SvgFigure.Values("create → scheduled", new double[] {100, 150, 300, 700})))
        .timeSeries("pods", "pods", List.of(running));
  }

  private static Report report(List<Target> targets, List<MetricsDelta.Row> rows, String missing) {
    TimeSeries running = new TimeSeries("Running");
    running.add(0, 0);
    running.add(2, 20);
    LatencySummary startup = LatencySummary.of(new double[] {1200, 1300, 6500});
    String body =
        "## Pod startup\n\n"
            + Markdown.table(
                Markdown.LATENCY_HEADER,
                "rrrrr",
                List.of(
                    List.of(
                        "20",
                        Markdown.ms(startup.p50()),
                        Markdown.ms(startup.p90()),
                        Markdown.ms(startup.p99()),
                        Markdown.ms(startup.max()))));
    return new Report(
        "density",
        "Pod startup",
        "./streamplane bench density --deployments 2 --replicas 10",
        "http://127.0.0.1:6443 (context sp, no credentials)",
        Instant.parse("2026-01-02T03:04:05Z"),
        Duration.ofSeconds(12),
        "20 pods Running in 4.0 s: 5.0 pods/s.",
        body,
        figure(running),
        targets,
        List.of(),
        rows,
        missing,
        Map.of("startup", startup, "running", running));
  }

  private static Document parse(String xml) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
  }
}
