package io.streamplane.bench.scenario.idle;

import static io.streamplane.bench.report.Markdown.num;
import static io.streamplane.bench.report.Markdown.seconds;

import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.measure.ProcessCpu;
import io.streamplane.bench.measure.Progress;
import io.streamplane.bench.measure.Sampler;
import io.streamplane.bench.measure.TimeSeries;
import io.streamplane.bench.profile.CpuProfile;
import io.streamplane.bench.profile.CpuReport;
import io.streamplane.bench.profile.Profiler;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.bench.report.Target;
import io.streamplane.bench.scenario.Outcome;
import io.streamplane.bench.scenario.Scenario;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * What a Streamplane cluster writes while nobody uses it: the end offsets of all its topics at the
 * start and the end of a window (and every few seconds for the chart), and the records {@code
 * <cluster>.commands} and {@code <cluster>.events} received in the window, decoded with the
 * cluster's schemas and counted by verb, resource and actor. A cluster at rest should write only
 * its nodes' Lease renewals (and what follows from them); the report says plainly whether it did.
 * With a process id, also that process's CPU over the window.
 *
 * <p>This scenario reads Kafka directly, so it measures Streamplane only; the API server is used
 * for its {@code /metrics} if a kubeconfig is found.
 */
public final class IdleScenario implements Scenario {

  /**
   * @param pid the process whose CPU to report, or null
   * @param target the non-Lease commands per second to stay under, or null
   * @param profile whether to break the process's CPU down by hop and stage ({@link Profiler})
   */
  public record Options(
      Duration duration,
      String bootstrapServers,
      String cluster,
      Long pid,
      Duration sampleInterval,
      Double target,
      boolean profile) {

    public Options {
      if (profile && pid == null) {
        throw new IllegalArgumentException("--profile needs --pid: the process to profile");
      }
    }
  }

  /** One topic's writes in the window (offsets advanced: records plus transaction markers). */
  public record TopicRate(String topic, String kind, long offsets, double perSecond) {}

  /** One class of records of a decoded topic. */
  public record Breakdown(
      String verb, String resource, String actor, long records, double perSecond) {}

  /** The figures of a run, for the JSON file. */
  public record Results(
      double windowSeconds,
      List<TopicRate> topics,
      double clusterRecordsPerSecond,
      List<Breakdown> commands,
      long commandsRead,
      long leaseRenewals,
      long otherCommands,
      double otherCommandsPerSecond,
      List<Breakdown> events,
      long eventsRead,
      Long pid,
      double cpuPercentOfOneCore,
      List<CpuProfile.Breakdown> cpu,
      List<TimeSeries> series) {}

  private final Options options;

  public IdleScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "idle";
  }

  @Override
  public boolean needsApiServer() {
    return false;
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
    KafkaClientSettings.applyTo(props);
    String cluster = options.cluster();
    String commandsTopic = cluster + "." + Topics.COMMANDS;
    String eventsTopic = cluster + "." + Topics.EVENTS;
    List<String> failures = new ArrayList<>();
    TimeSeries all = new TimeSeries("all topics of " + cluster);
    TimeSeries commands = new TimeSeries(commandsTopic);
    TimeSeries events = new TimeSeries(eventsTopic);
    AtomicLong soFar = new AtomicLong();
    Map<TopicPartition, Long> start;
    Map<TopicPartition, Long> end;
    double window;
    double cpuStart;
    double cpuEnd;
    List<CpuProfile.Breakdown> cpu = List.of();
    try (Admin admin = Admin.create(props);
        Profiler profiler = options.profile() ? Profiler.start(options.pid()) : null) {
      TopicOffsets offsets = TopicOffsets.of(admin, cluster);
      if (profiler != null) {
        profiler.begin("at rest");
      }
      cpuStart = options.pid() == null ? -1 : ProcessCpu.read(options.pid());
      start = offsets.end();
      long started = System.nanoTime();
      Instant deadline = Instant.now().plus(options.duration());
      AtomicReference<Map<TopicPartition, Long>> previous = new AtomicReference<>(start);
      double[] previousAt = {0};
      try (Progress progress =
              Progress.start(
                  () ->
                      new Progress.Status(
                          "idle",
                          (System.nanoTime() - started) / 1_000_000_000L,
                          options.duration().toSeconds(),
                          "s",
                          String.format(Locale.ROOT, "%,d records written", soFar.get())));
          Sampler sampler =
              Sampler.every(
                  options.sampleInterval(),
                  t -> {
                    // The first tick comes at once, and the last one when the window closes:
                    // rates over a sliver of time would only be noise.
                    if (t - previousAt[0] < options.sampleInterval().toMillis() / 2000.0) {
                      return;
                    }
                    Map<TopicPartition, Long> now;
                    try {
                      now = offsets.end();
                    } catch (Exception e) {
                      return;
                    }
                    double dt = t - previousAt[0];
                    Map<String, Long> delta = TopicOffsets.perTopic(previous.get(), now);
                    long clusterDelta =
                        delta.entrySet().stream()
                            .filter(e -> !TopicOffsets.BROKER_TOPICS.contains(e.getKey()))
                            .mapToLong(Map.Entry::getValue)
                            .sum();
                    all.add(t, clusterDelta / dt);
                    commands.add(t, delta.getOrDefault(commandsTopic, 0L) / dt);
                    events.add(t, delta.getOrDefault(eventsTopic, 0L) / dt);
                    soFar.set(
                        TopicOffsets.perTopic(start, now).entrySet().stream()
                            .filter(e -> !TopicOffsets.BROKER_TOPICS.contains(e.getKey()))
                            .mapToLong(Map.Entry::getValue)
                            .sum());
                    previous.set(now);
                    previousAt[0] = t;
                  })) {
        while (Instant.now().isBefore(deadline)) {
          Thread.sleep(
              Math.max(1, Math.min(200, Duration.between(Instant.now(), deadline).toMillis())));
        }
        end = offsets.end();
        window = (System.nanoTime() - started) / 1e9;
        cpuEnd = options.pid() == null ? -1 : ProcessCpu.read(options.pid());
      }
      if (profiler != null) {
        profiler.end(1);
        cpu = profiler.finish();
      }
    }
    double cpuPercent = Double.NaN;
    if (options.pid() != null) {
      if (cpuStart < 0 || cpuEnd < 0) {
        failures.add("cannot read /proc/" + options.pid() + "/stat: is the process running?");
      } else {
        cpuPercent = 100 * (cpuEnd - cpuStart) / window;
      }
    }
    List<TopicRate> topics = new ArrayList<>();
    TopicOffsets.perTopic(start, end)
        .forEach(
            (topic, n) ->
                topics.add(
                    new TopicRate(
                        topic,
                        TopicOffsets.BROKER_TOPICS.contains(topic)
                            ? "broker"
                            : topic.startsWith(cluster + ".") ? "log" : "Streams internal",
                        n,
                        n / window)));
    LogBreakdown.Result commandRows;
    LogBreakdown.Result eventRows;
    // Only the catalogue's names and serdes are used; the layout's partition counts are not.
    TopicLayout layout = TopicLayout.singleBroker(cluster);
    try (KafkaSchemaCatalog catalog =
        new KafkaSchemaCatalog(options.bootstrapServers(), layout.topicName(Topics.SCHEMAS))) {
      Topics catalogue = new Topics(layout, catalog);
      var commandSerde = catalogue.commands().valueSerde().deserializer();
      commandRows =
          LogBreakdown.read(
              options.bootstrapServers(),
              commandsTopic,
              start,
              end,
              bytes -> commandSerde.deserialize(commandsTopic, bytes),
              (ResourceCommand c) ->
                  new LogBreakdown.Row(
                      c.getVerb().toString(),
                      resource(c.getResource().toString(), c.getGroup().toString()),
                      c.getActor().getUsername().toString(),
                      0),
              Duration.ofSeconds(30));
      var eventSerde = catalogue.events().valueSerde().deserializer();
      eventRows =
          LogBreakdown.read(
              options.bootstrapServers(),
              eventsTopic,
              start,
              end,
              bytes -> eventSerde.deserialize(eventsTopic, bytes),
              (ResourceEvent e) ->
                  new LogBreakdown.Row(
                      e.getType().toString(),
                      resource(e.getResource().toString(), e.getGroup().toString()),
                      e.getActor().getUsername().toString(),
                      0),
              Duration.ofSeconds(30));
    }
    for (LogBreakdown.Result r : List.of(commandRows, eventRows)) {
      if (!r.complete()) {
        failures.add("could not read every record of the window within 30 s (open transaction?)");
      }
      if (r.undecodable() > 0) {
        failures.add(r.undecodable() + " records could not be decoded: " + r.firstError());
      }
    }
    long leases =
        commandRows.rows().stream()
            .filter(IdleScenario::isLeaseRenewal)
            .mapToLong(LogBreakdown.Row::records)
            .sum();
    long other = commandRows.records() - leases;
    double clusterRate =
        topics.stream().filter(t -> !t.kind().equals("broker")).mapToLong(TopicRate::offsets).sum()
            / window;
    Results results =
        new Results(
            window,
            topics,
            clusterRate,
            breakdown(commandRows, window),
            commandRows.records(),
            leases,
            other,
            other / window,
            breakdown(eventRows, window),
            eventRows.records(),
            options.pid(),
            cpuPercent,
            cpu,
            List.of(all, commands, events));
    return outcome(results, failures, commandsTopic, eventsTopic);
  }

  static boolean isLeaseRenewal(LogBreakdown.Row row) {
    return row.verb().equals("UPDATE") && row.resource().equals("leases.coordination.k8s.io");
  }

  private static String resource(String resource, String group) {
    return group.isEmpty() ? resource : resource + "." + group;
  }

  private static List<Breakdown> breakdown(LogBreakdown.Result result, double window) {
    return result.rows().stream()
        .map(
            r ->
                new Breakdown(r.verb(), r.resource(), r.actor(), r.records(), r.records() / window))
        .toList();
  }

  private Outcome outcome(
      Results r, List<String> failures, String commandsTopic, String eventsTopic) {
    List<Target> targets = new ArrayList<>();
    if (options.target() != null) {
      targets.add(
          new Target(
              "commands other than Lease renewals per second",
              options.target(),
              r.otherCommandsPerSecond(),
              "records/s"));
    }
    String verdict =
        r.otherCommands() == 0
            ? "**Nothing but Lease renewals was written to `" + commandsTopic + "`.**"
            : String.format(
                Locale.ROOT,
                "**%,d commands other than Lease renewals were written to `%s` (%s/s)**: %s.",
                r.otherCommands(),
                commandsTopic,
                num(r.otherCommandsPerSecond(), 2),
                top(r.commands()));
    String summary =
        String.format(
                Locale.ROOT,
                "At rest for %s, the cluster's topics received %s records/s (and the broker's"
                    + " offset and transaction topics %s/s); `%s` %s/s, of which %,d Lease renewals"
                    + " (%s/s).",
                seconds(r.windowSeconds()),
                num(r.clusterRecordsPerSecond(), 2),
                num(
                    r.topics().stream()
                            .filter(t -> t.kind().equals("broker"))
                            .mapToLong(TopicRate::offsets)
                            .sum()
                        / r.windowSeconds(),
                    2),
                commandsTopic,
                num(r.commandsRead() / r.windowSeconds(), 2),
                r.leaseRenewals(),
                num(r.leaseRenewals() / r.windowSeconds(), 2))
            + (Double.isNaN(r.cpuPercentOfOneCore())
                ? ""
                : String.format(
                    Locale.ROOT,
                    " Process %d used %.1f%% of one core.",
                    r.pid(),
                    r.cpuPercentOfOneCore()))
            + "\n\n"
            + verdict;
    List<SvgFigure.Bar> bars = new ArrayList<>();
    for (TopicRate t : r.topics()) {
      if (t.offsets() > 0) {
        bars.add(
            new SvgFigure.Bar(
                shorten(t.topic()),
                t.perSecond(),
                String.format(Locale.ROOT, "%.2f/s", t.perSecond())));
      }
    }
    SvgFigure figure =
        new SvgFigure("idle: records written by a cluster at rest")
            .bars("Offsets advanced per second, by topic (topics with writes)", bars)
            .timeSeries("Records per second over the window", "records/s", r.series());
    CpuReport.panels(figure, r.cpu(), CpuReport.Measure.PERCENT_OF_A_CORE);
    return new Outcome(
        "A cluster at rest: what it writes",
        summary,
        body(r, commandsTopic, eventsTopic),
        figure,
        targets,
        failures,
        r);
  }

  private static String shorten(String topic) {
    return topic.length() > 50
        ? topic.substring(0, 24) + "…" + topic.substring(topic.length() - 25)
        : topic;
  }

  private static String top(List<Breakdown> rows) {
    StringBuilder s = new StringBuilder();
    int shown = 0;
    for (Breakdown b : rows) {
      if (isLeaseRenewal(new LogBreakdown.Row(b.verb(), b.resource(), b.actor(), 0))) {
        continue;
      }
      if (shown++ == 3) {
        s.append(", ...");
        break;
      }
      s.append(shown > 1 ? ", " : "")
          .append(
              String.format(
                  Locale.ROOT, "%,d %s %s by %s", b.records(), b.verb(), b.resource(), b.actor()));
    }
    return s.toString();
  }

  private String body(Results r, String commandsTopic, String eventsTopic) {
    StringBuilder md = new StringBuilder("## What was measured\n\n");
    md.append(
            String.format(
                Locale.ROOT,
                "Nothing was sent to the cluster. The end offset of every partition of the"
                    + " cluster's topics (`%1$s.*`, the Streams apps' `%1$s-*` repartition and"
                    + " changelog topics, and the broker's `__consumer_offsets` and"
                    + " `__transaction_state`) was read with the Kafka admin client at the start"
                    + " and the end of a %2$s window (and every %3$s for the chart); a topic's"
                    + " rate is its offsets advanced ÷ the window. Offsets count records and, for"
                    + " transactional writers (the store, controllers and scheduler), one commit"
                    + " marker per partition per transaction. The records `%4$s` and `%5$s`"
                    + " received in the window were then read (`read_committed`), decoded with"
                    + " the cluster's Avro schemas and counted by verb, resource and actor.%n%n",
                options.cluster(),
                seconds(r.windowSeconds()),
                seconds(options.sampleInterval().toMillis() / 1000.0),
                commandsTopic,
                eventsTopic))
        .append("## Topics\n\n");
    List<List<String>> rows = new ArrayList<>();
    for (TopicRate t : r.topics()) {
      rows.add(
          List.of("`" + t.topic() + "`", t.kind(), num(t.offsets(), 0), num(t.perSecond(), 2)));
    }
    md.append(
        Markdown.table(List.of("topic", "kind", "offsets advanced", "per second"), "llrr", rows));
    md.append("\n## `").append(commandsTopic).append("` by verb, resource and actor\n\n");
    md.append(breakdownTable(r.commands(), "verb", true));
    md.append(
        String.format(
            Locale.ROOT,
            "%n%,d records read: %,d Lease renewals (`UPDATE leases.coordination.k8s.io`), %,d"
                + " other.%n",
            r.commandsRead(),
            r.leaseRenewals(),
            r.otherCommands()));
    md.append("\n## `").append(eventsTopic).append("` by type, resource and actor\n\n");
    md.append(breakdownTable(r.events(), "type", false));
    md.append(String.format(Locale.ROOT, "%n%,d records read.%n", r.eventsRead()));
    if (r.pid() != null) {
      md.append("\n## CPU\n\n")
          .append(
              Double.isNaN(r.cpuPercentOfOneCore())
                  ? "Process " + r.pid() + ": not readable.\n"
                  : String.format(
                      Locale.ROOT,
                      "Process %d used %.1f%% of one core over the window (user + system time"
                          + " from `/proc/%d/stat`).%n",
                      r.pid(),
                      r.cpuPercentOfOneCore(),
                      r.pid()));
      if (!r.cpu().isEmpty()) {
        md.append('\n')
            .append(
                CpuReport.markdown(r.pid(), r.cpu(), CpuReport.Measure.PERCENT_OF_A_CORE)
                    .replaceFirst("^## ", "### "));
      }
    }
    return md.toString();
  }

  private static String breakdownTable(List<Breakdown> rows, String first, boolean markLeases) {
    if (rows.isEmpty()) {
      return "No records in the window.\n";
    }
    List<List<String>> table = new ArrayList<>();
    for (Breakdown b : rows) {
      List<String> row =
          new ArrayList<>(
              List.of(
                  b.verb(), b.resource(), b.actor(), num(b.records(), 0), num(b.perSecond(), 2)));
      if (markLeases) {
        boolean lease = isLeaseRenewal(new LogBreakdown.Row(b.verb(), b.resource(), b.actor(), 0));
        row.add(lease ? "Lease renewal" : "**other**");
      }
      table.add(row);
    }
    List<String> header =
        new ArrayList<>(List.of(first, "resource", "actor", "records", "per second"));
    if (markLeases) {
      header.add("");
    }
    return Markdown.table(header, "lllrrl", table);
  }
}
