package io.streamplane.cli.history;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.load.Kubeconfig;
import io.streamplane.bench.measure.Progress;
import io.streamplane.cli.roles.ClusterOptions;
import io.streamplane.gateway.history.ObjectVersion;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
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
 * oldest first, with when, who and what changed. Asks the gateway of a kubeconfig ({@code GET
 * /history/...}, answered from its history index), or, with {@code --bootstrap-server}, reads the
 * log directly (see {@link EventLogScan} for what that costs).
 */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description = {
      "Every version of one object from the events log, oldest first: time, change,"
          + " resourceVersion, who made it, uid, and a diff of the object against the version"
          + " before.",
      "Asks the gateway of the kubeconfig (GET /history/..., answered from its index of the"
          + " log); with --bootstrap-server, reads the one events partition the object's key is"
          + " in, from its beginning, instead."
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
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "The kubeconfig of the cluster whose gateway to ask (default: $KUBECONFIG, else"
              + " ./.streamplane/kubeconfig, else ~/.kube/config).")
  Path kubeconfig;

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
    boolean fromLog = cmd.getParseResult().hasMatchedOption("--bootstrap-server");
    try {
      ResourceRegistry registry = ResourceRegistry.kubernetes();
      registry.serveCustom(definedKind(registry, fromLog));
      ref = ObjectRef.parse(object, namespace, registry);
      Instant now = Instant.now();
      sinceTime = since == null ? null : TimeBound.parse(since, now);
      untilTime = until == null ? null : TimeBound.parse(until, now);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cmd, e.getMessage(), e);
    }
    PrintWriter out = cmd.getOut();
    PrintWriter err = cmd.getErr();
    HistoryView view = new HistoryView(ref.type());
    ArrayNode entries;
    String source;
    if (fromLog) {
      entries = view.entries(fromLog(ref, sinceTime, untilTime));
      source = cluster.layout().topicName("events");
    } else {
      KubeClient api = new KubeClient(Kubeconfig.load(kubeconfig(), null));
      entries = fromGateway(api, ref, sinceTime, untilTime);
      source = api.server();
    }
    if (entries.isEmpty()) {
      err.println("history: no versions of " + ref + " in " + source);
      err.flush();
      return 1;
    }
    out.print(output == null ? view.text(entries) : view.machine(entries, output == Output.yaml));
    out.flush();
    return 0;
  }

  private Path kubeconfig() {
    if (kubeconfig != null) {
      return kubeconfig;
    }
    return Kubeconfig.defaultFile(
            System.getenv(), Path.of("").toAbsolutePath(), Path.of(System.getProperty("user.home")))
        .orElseThrow(
            () ->
                new CommandLine.ParameterException(
                    spec.commandLine(),
                    "no kubeconfig: give --kubeconfig, set KUBECONFIG, or start a cluster with"
                        + " ./streamplane up (or read the log with --bootstrap-server)"));
  }

  /**
   * The kind of a custom resource named {@code <plural>.<group>/<name>}, from its definition (named
   * {@code <plural>.<group>}) as the log or the gateway has it last, deleted or not; empty for any
   * other name.
   */
  private List<io.streamplane.kinds.ResourceType> definedKind(
      ResourceRegistry registry, boolean fromLog) {
    int slash = object.indexOf('/');
    String typeName = slash < 0 ? object : object.substring(0, slash);
    if (!typeName.contains(".")) {
      return List.of();
    }
    try {
      ObjectRef.parse(object, namespace, registry);
      return List.of();
    } catch (IllegalArgumentException e) {
      // Not a built-in kind: perhaps one a definition defines.
    }
    com.fasterxml.jackson.databind.JsonNode definition = null;
    if (fromLog) {
      List<ObjectVersion> versions =
          fromLog(
              ObjectRef.parse("customresourcedefinitions/" + typeName, null, registry), null, null);
      if (!versions.isEmpty()) {
        definition =
            new io.streamplane.schema.convert.KubeJson()
                .toJson(
                    io.streamplane.schema.objects.KindObjects.of(
                        versions.get(versions.size() - 1).event()));
      }
    } else {
      try {
        KubeClient.Response answer =
            new KubeClient(Kubeconfig.load(kubeconfig(), null))
                .get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + typeName);
        definition = answer.ok() ? answer.body() : null;
      } catch (IOException e) {
        return List.of();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return List.of();
      }
    }
    io.streamplane.kinds.ResourceType row =
        definition == null
            ? null
            : io.streamplane.kinds.apiextensions.CustomResources.storageRow(definition);
    return row == null ? List.of() : List.of(row);
  }

  /** {@code GET /history/<the object's path>} on the gateway. */
  private static ArrayNode fromGateway(
      KubeClient api, ObjectRef ref, Instant since, Instant until) {
    StringBuilder path = new StringBuilder("/history").append(ref.apiPath());
    String separator = "?";
    if (since != null) {
      path.append(separator).append("since=").append(since);
      separator = "&";
    }
    if (until != null) {
      path.append(separator).append("until=").append(until);
    }
    KubeClient.Response answer;
    try {
      answer = api.get(path.toString());
    } catch (IOException e) {
      throw new IllegalStateException("cannot reach " + api.server() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    if (!answer.ok()) {
      throw new IllegalStateException(
          "history of " + ref + ": " + answer.status() + " " + answer.message());
    }
    return (ArrayNode) answer.body().path("items");
  }

  /** Scans the object's partition of {@code events} itself; see {@link EventLogScan}. */
  private List<ObjectVersion> fromLog(ObjectRef ref, Instant since, Instant until) {
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
        return scan.versions(
            ref.key(),
            since,
            until,
            (done, of) -> {
              total.set(of);
              scanned.set(done);
            });
      }
    }
  }
}
