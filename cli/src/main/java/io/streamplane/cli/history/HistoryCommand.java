package io.streamplane.cli.history;

import io.streamplane.bench.measure.Progress;
import io.streamplane.cli.roles.ClusterOptions;
import io.streamplane.gateway.api.ResourceRegistry;
import io.streamplane.gateway.history.ObjectVersion;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamplane history KIND/NAME}: every version of one object in the {@code events} log,
 * oldest first, with when, who and what changed. Reads the log directly (see {@link EventLogScan}
 * for what that costs); it needs a Kafka bootstrap address, not a gateway.
 */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description = {
      "Every version of one object from the events log, oldest first: time, change,"
          + " resourceVersion, who made it, uid, and a diff of the object against the version"
          + " before.",
      "Reads the one events partition the object's key is in, from its beginning."
    })
public final class HistoryCommand implements Callable<Integer> {

  /** Machine output formats. */
  enum Output {
    json,
    yaml
  }

  @Mixin ClusterOptions cluster;

  @Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "KIND/NAME",
      description = "The object, as kubectl names it: deployment/web, deploy/web, po/web-0, ...")
  String object;

  @Option(
      names = {"-n", "--namespace"},
      description = "Namespace of a namespaced object (default: default).")
  String namespace;

  @Option(
      names = "--since",
      paramLabel = "TIME",
      description =
          "Only versions from this time on: ISO-8601 (2026-01-02T03:04:05Z) or a"
              + " duration ago (30m, 1h, 2d). Starts the scan there rather than at the beginning.")
  String since;

  @Option(
      names = "--until",
      paramLabel = "TIME",
      description = "Only versions up to this time: ISO-8601 or a duration ago.")
  String until;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "json or yaml: one entry per version with the whole object, no diffs.")
  Output output;

  @Override
  public Integer call() {
    CommandLine cmd = spec.commandLine();
    ObjectRef ref;
    Instant sinceTime;
    Instant untilTime;
    try {
      ref = ObjectRef.parse(object, namespace, ResourceRegistry.kubernetes());
      Instant now = Instant.now();
      sinceTime = since == null ? null : TimeBound.parse(since, now);
      untilTime = until == null ? null : TimeBound.parse(until, now);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
    }
    PrintWriter out = cmd.getOut();
    PrintWriter err = cmd.getErr();
    List<ObjectVersion> versions;
    try (KafkaSchemaCatalog catalog = cluster.catalog()) {
      Topics topics = new Topics(cluster.layout(), catalog);
      EventLogScan scan =
          new EventLogScan(
              cluster.bootstrapServers,
              topics.events().name(),
              topics.events().valueSerde().deserializer());
      AtomicLong scanned = new AtomicLong();
      AtomicLong total = new AtomicLong();
      try (Progress shown =
          Progress.start(() -> Progress.Status.of("scan", scanned.get(), total.get(), "records"))) {
        versions =
            scan.versions(
                ref.key(),
                sinceTime,
                untilTime,
                (done, of) -> {
                  total.set(of);
                  scanned.set(done);
                });
      }
    }
    if (versions.isEmpty()) {
      err.println("history: no versions of " + ref + " in " + cluster.layout().topicName("events"));
      err.flush();
      return 1;
    }
    HistoryView view = new HistoryView(ref.type());
    out.print(output == null ? view.text(versions) : view.machine(versions, output == Output.yaml));
    out.flush();
    return 0;
  }
}
