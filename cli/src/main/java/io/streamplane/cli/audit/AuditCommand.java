package io.streamplane.cli.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.bench.measure.Progress;
import io.streamplane.cli.history.TimeBound;
import io.streamplane.cli.roles.ClusterOptions;
import io.streamplane.gateway.audit.AuditJson;
import io.streamplane.log.AuditEvent;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code streamplane audit}: the audit topic as a query, historic or live. Reads every partition of
 * the cluster's {@code audit} topic from {@code --since} ({@link AuditLogScan}), keeps the events
 * that pass the filters ({@link AuditFilter}), prints them oldest first as a table or as
 * audit.k8s.io/v1 Event JSON lines, and with {@code --follow} goes on printing new ones as the
 * gateways write them. While scanning, a progress line with the rate (events/s) goes to stderr.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Query the audit topic: who did what to which object, when, and what they were answered."
          + " Historic (from --since, default: the beginning of the topic) or live (--follow).",
      "Filters combine (all must hold); options that take a list accept commas: --verb"
          + " create,delete."
    })
public final class AuditCommand implements Callable<Integer> {

  /** Machine output formats. */
  enum Output {
    json
  }

  @Mixin ClusterOptions cluster;

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--user", split = ",", paramLabel = "NAME", description = "The user's name.")
  List<String> users = new ArrayList<>();

  @Option(
      names = "--group",
      split = ",",
      paramLabel = "GROUP",
      description = "A group of the user (system:masters, system:nodes, ...).")
  List<String> groups = new ArrayList<>();

  @Option(
      names = "--verb",
      split = ",",
      paramLabel = "VERB",
      description = "get, list, watch, create, update, patch, delete, deletecollection, ...")
  List<String> verbs = new ArrayList<>();

  @Option(
      names = "--resource",
      split = ",",
      paramLabel = "RESOURCE",
      description = "A plural, in any group (pods) or in one (deployments.apps).")
  List<String> resources = new ArrayList<>();

  @Option(
      names = {"-n", "--namespace"},
      split = ",",
      paramLabel = "NAMESPACE",
      description = "The object's namespace.")
  List<String> namespaces = new ArrayList<>();

  @Option(names = "--name", split = ",", paramLabel = "NAME", description = "The object's name.")
  List<String> names = new ArrayList<>();

  @Option(
      names = "--code",
      split = ",",
      paramLabel = "CODE",
      description = "The response code (403) or class (4xx).")
  List<String> codes = new ArrayList<>();

  @Option(
      names = "--since",
      paramLabel = "TIME",
      description =
          "From this time on: RFC 3339 (2026-01-02T03:04:05Z) or a duration ago (30m, 1h, 2d)."
              + " The scan starts there (offsetsForTimes), not at the beginning.")
  String since;

  @Option(
      names = "--until",
      paramLabel = "TIME",
      description = "Up to this time: RFC 3339 or a duration ago.")
  String until;

  @Option(
      names = "--stage",
      split = ",",
      paramLabel = "STAGE",
      description =
          "RequestReceived, ResponseStarted, ResponseComplete, Panic. Default: the last event of"
              + " each request (ResponseComplete, Panic, or the ResponseStarted of a 401).")
  List<String> stages = new ArrayList<>();

  @Option(
      names = {"-f", "--follow"},
      description = "After the historic events, print new ones as they are written.")
  boolean follow;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "json: one audit.k8s.io/v1 Event a line, as kube-apiserver's audit log.")
  Output output;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> STAGES =
      Set.of("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic");

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    AuditFilter filter;
    try {
      Instant now = Instant.now();
      for (String stage : stages) {
        if (!STAGES.contains(stage)) {
          throw new IllegalArgumentException(
              "--stage: '" + stage + "' is none of " + String.join(", ", STAGES));
        }
      }
      filter =
          new AuditFilter(
              users,
              groups,
              verbs,
              resources,
              namespaces,
              names,
              codes,
              since == null ? null : TimeBound.parse(since, now),
              until == null ? null : TimeBound.parse(until, now),
              new LinkedHashSet<>(stages));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
    }
    PrintWriter out = cmd.getOut();
    PrintWriter err = cmd.getErr();
    AuditTable table = new AuditTable();
    try (KafkaSchemaCatalog catalog = cluster.catalog();
        AuditLogScan scan =
            new AuditLogScan(
                cluster.bootstrapServers,
                new Topics(cluster.layout(), catalog).audit().name(),
                new Topics(cluster.layout(), catalog).audit().valueSerde().deserializer())) {
      Thread stopper = new Thread(scan::wakeup, "audit-stop");
      if (follow) {
        Runtime.getRuntime().addShutdownHook(stopper);
      }
      List<AuditEvent> matched = new ArrayList<>();
      AtomicLong live = new AtomicLong();
      long started = System.nanoTime();
      boolean[] printedHistoric = {false};
      try (Progress progress =
          Progress.start(
              () ->
                  printedHistoric[0]
                      ? Progress.Status.of("follow", live.get(), 0, "events shown")
                      : Progress.Status.of("scan", scan.scanned(), scan.total(), "events"))) {
        scan.scan(
            filter.since(),
            follow,
            event -> {
              if (event != null && filter.matches(event)) {
                matched.add(event);
              }
            },
            () -> {
              printHistoric(out, table, matched);
              printedHistoric[0] = true;
            },
            event -> {
              if (event != null && filter.matches(event)) {
                live.incrementAndGet();
                out.print(output == Output.json ? json(event) : table.row(event));
                out.flush();
              }
            });
        if (!printedHistoric[0]) {
          // Interrupted before the history was read: show what was.
          printHistoric(out, table, matched);
          printedHistoric[0] = true;
        }
      } finally {
        if (follow) {
          try {
            Runtime.getRuntime().removeShutdownHook(stopper);
          } catch (IllegalStateException shuttingDown) {
            // The hook is running: Ctrl-C ended the follow.
          }
        }
      }
      double seconds = Math.max((System.nanoTime() - started) / 1e9, 1e-9);
      err.println(
          String.format(
              Locale.ROOT,
              "audit: scanned %,d events of %s in %.2f s (%,.0f events/s), %,d matched",
              scan.scanned(),
              cluster.layout().topicName(Topics.AUDIT),
              seconds,
              scan.scanned() / seconds,
              matched.size() + live.get()));
      err.flush();
    }
    return 0;
  }

  private void printHistoric(PrintWriter out, AuditTable table, List<AuditEvent> matched) {
    matched.sort(
        Comparator.comparing(AuditEvent::getStageTimestamp).thenComparing(AuditEvent::getAuditID));
    if (output == Output.json) {
      for (AuditEvent event : matched) {
        out.print(json(event));
      }
    } else {
      out.print(table.render(matched, true));
    }
    out.flush();
  }

  private static String json(AuditEvent event) {
    try {
      return JSON.writeValueAsString(AuditJson.of(event)) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
