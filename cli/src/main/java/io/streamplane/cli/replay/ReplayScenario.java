package io.streamplane.cli.replay;

import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.measure.LatencySummary;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.bench.report.Target;
import io.streamplane.bench.scenario.Outcome;
import io.streamplane.bench.scenario.Scenario;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How fast the log replays: {@code runs} times, the whole of {@code <cluster>.events} up to its end
 * folded into the state it describes, exactly as {@code streamplane replay --until} does ({@link
 * ReplayCommand#fold}: read on every core, the last record of each key kept, only those decoded).
 * Reads Kafka only; Streamplane only.
 */
public final class ReplayScenario implements Scenario {

  public record Options(String bootstrapServers, String cluster, int runs) {}

  /** One replay of the log. */
  public record Run(long events, double megabytes, double seconds, int objects) {
    double eventsPerSecond() {
      return events / seconds;
    }

    double megabytesPerSecond() {
      return megabytes / seconds;
    }
  }

  public record Results(List<Run> runs, double bestEventsPerSecond, double medianEventsPerSecond) {}

  private static final double TARGET_EVENTS_PER_SECOND = 200_000;

  private final Options options;

  public ReplayScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "replay";
  }

  @Override
  public boolean needsApiServer() {
    return false;
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    TopicLayout layout = TopicLayout.singleBroker(options.cluster());
    List<Run> runs = new ArrayList<>();
    try (KafkaSchemaCatalog catalog =
        new KafkaSchemaCatalog(options.bootstrapServers(), layout.topicName(Topics.SCHEMAS))) {
      Topics topics = new Topics(layout, catalog);
      long[] end;
      try (LogReader reader = new LogReader(options.bootstrapServers())) {
        end = reader.ends(topics.events().name());
      }
      for (int i = 0; i < options.runs(); i++) {
        ReplayCommand.Folded folded = ReplayCommand.fold(options.bootstrapServers(), topics, end);
        ReplayRate rate = folded.rate();
        runs.add(new Run(rate.records(), rate.megabytes(), rate.seconds(), folded.state().size()));
      }
    }
    double[] rates = runs.stream().mapToDouble(Run::eventsPerSecond).toArray();
    LatencySummary summary = LatencySummary.of(rates);
    Results results = new Results(runs, summary.max(), summary.p50());
    Run first = runs.get(0);
    List<List<String>> rows = new ArrayList<>();
    List<SvgFigure.Bar> bars = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      Run r = runs.get(i);
      rows.add(
          List.of(
              Integer.toString(i + 1),
              String.format(Locale.ROOT, "%,d", r.events()),
              Markdown.num(r.megabytes(), 1),
              Markdown.seconds(r.seconds()),
              String.format(Locale.ROOT, "%,.0f", r.eventsPerSecond()),
              Markdown.num(r.megabytesPerSecond(), 1),
              String.format(Locale.ROOT, "%,d", r.objects())));
      bars.add(
          new SvgFigure.Bar(
              "run " + (i + 1),
              r.eventsPerSecond(),
              String.format(Locale.ROOT, "%,.0f events/s", r.eventsPerSecond())));
    }
    String summaryText =
        String.format(
            Locale.ROOT,
            "%,d events (%.1f MB) of %s replayed into %,d objects, %d times: best %,.0f events/s"
                + " (%.1f MB/s), median %,.0f events/s.",
            first.events(),
            first.megabytes(),
            layout.topicName(Topics.EVENTS),
            first.objects(),
            runs.size(),
            summary.max(),
            runs.stream().mapToDouble(Run::megabytesPerSecond).max().orElse(Double.NaN),
            summary.p50());
    String body =
        "## What was measured\n\n"
            + "Each run reads the whole events log up to the end offsets taken once before the"
            + " first run, folds it into the state it describes and decodes the surviving"
            + " records, as `streamplane replay --until` does: one consumer per core, the last"
            + " record of each key kept as bytes, only those decoded (docs/replay.md). The time"
            + " runs from the first fetch to the decoded state; the first run includes the JIT's"
            + " warm-up.\n\n"
            + Markdown.table(
                List.of("run", "events", "MB", "time", "events/s", "MB/s", "objects"),
                "rrrrrrr",
                rows);
    return new Outcome(
        "Replay of the events log",
        summaryText,
        body,
        new SvgFigure("Replay of the events log").bars("events per second, by run", bars),
        // At least 200,000 events/s, put as a time to stay under: a million events in 5 s.
        List.of(
            new Target(
                "the time to replay a million events, best run",
                1e6 / TARGET_EVENTS_PER_SECOND,
                1e6 / summary.max(),
                "s")),
        List.of(),
        results);
  }
}
