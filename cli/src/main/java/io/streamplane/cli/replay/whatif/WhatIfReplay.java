package io.streamplane.cli.replay.whatif;

import io.streamplane.bench.measure.Progress;
import io.streamplane.cli.history.TimeBound;
import io.streamplane.cli.roles.ClusterOptions;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.scheduler.whatif.WhatIfResult;
import io.streamplane.scheduler.whatif.WhatIfSimulation;
import io.streamplane.scheduler.whatif.WhatIfWindow;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;

/**
 * What-if scheduling over the log, {@code streamplane replay --scheduler-config}: the pods
 * scheduled between {@code from} and {@code until}, replayed through a scheduler built from the
 * configuration over the cluster as it was, and a report of how the placements differ from what
 * really happened (see {@link WhatIfSimulation} for what is modelled). Reads the {@code events}
 * topic directly; it needs a Kafka bootstrap address, not a gateway.
 */
public final class WhatIfReplay {

  private final ClusterOptions cluster;
  private final Path schedulerConfig;
  private final String from;
  private final String until;
  private final Path output;
  private final String name;

  /** The what-if of {@code replay}'s options; run it with {@link #run}. */
  public WhatIfReplay(
      ClusterOptions cluster,
      Path schedulerConfig,
      String from,
      String until,
      Path output,
      String name) {
    this.cluster = cluster;
    this.schedulerConfig = schedulerConfig;
    this.from = from;
    this.until = until;
    this.output = output;
    this.name = name;
  }

  /**
   * Runs the what-if, writing to {@code cmd}'s output and reporting bad options as {@code cmd}'s
   * parameter errors; returns the exit status.
   */
  public int run(CommandLine cmd) throws IOException {
    Instant fromTime;
    Instant untilTime;
    SchedulerConfig config;
    try {
      Instant now = Instant.now();
      fromTime = from == null ? Instant.EPOCH : TimeBound.parse(from, now);
      untilTime = until == null ? now : TimeBound.parse(until, now);
      if (untilTime.isBefore(fromTime)) {
        throw new IllegalArgumentException(
            "--until (" + untilTime + ") is before --from (" + fromTime + ")");
      }
      if (!Files.isReadable(schedulerConfig)) {
        throw new IllegalArgumentException("cannot read --scheduler-config " + schedulerConfig);
      }
      config = SchedulerConfig.parse(Files.readString(schedulerConfig));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
    }
    PrintWriter out = cmd.getOut();
    Instant started = Instant.now();
    AtomicReference<String> phase = new AtomicReference<>("read events");
    AtomicLong done = new AtomicLong();
    AtomicLong total = new AtomicLong();
    WhatIfWindow window;
    WhatIfResult result;
    Duration read;
    Duration simulated;
    String topic;
    AtomicReference<String> unit = new AtomicReference<>("records");
    try (KafkaSchemaCatalog catalog = cluster.catalog();
        Progress shown =
            Progress.start(
                () -> Progress.Status.of(phase.get(), done.get(), total.get(), unit.get()))) {
      Topics topics = new Topics(cluster.layout(), catalog);
      topic = topics.events().name();
      long t0 = System.nanoTime();
      window =
          new SchedulingLog(
                  cluster.bootstrapServers, topic, topics.events().valueSerde().deserializer())
              .window(
                  fromTime,
                  untilTime,
                  (r, of) -> {
                    total.set(of);
                    done.set(r);
                  });
      long t1 = System.nanoTime();
      unit.set("");
      phase.set("simulate " + window.changes().size() + " changes");
      result = WhatIfSimulation.run(window, config);
      long t2 = System.nanoTime();
      read = Duration.ofNanos(t1 - t0);
      simulated = Duration.ofNanos(t2 - t1);
    }
    WhatIfReport.Run run =
        new WhatIfReport.Run(
            commandLine(cmd),
            schedulerConfig.toString(),
            config,
            fromTime,
            untilTime,
            topic,
            started,
            read,
            simulated);
    List<Path> written = WhatIfReport.write(output, name, result, run);
    out.print(WhatIfReport.summary(result));
    out.printf(
        Locale.ROOT,
        "- Decisions: %,d in %.3f s (%,.0f decisions/s)%n",
        result.decisions(),
        simulated.toNanos() / 1e9,
        WhatIfReport.decisionsPerSecond(result, simulated));
    for (Path p : written) {
      out.println("wrote " + p);
    }
    out.flush();
    return 0;
  }

  private static String commandLine(CommandLine cmd) {
    StringBuilder line = new StringBuilder("streamplane");
    CommandLine.ParseResult parsed = cmd.getParseResult();
    for (String a : parsed == null ? List.<String>of() : parsed.originalArgs()) {
      line.append(' ').append(a);
    }
    return line.toString();
  }
}
