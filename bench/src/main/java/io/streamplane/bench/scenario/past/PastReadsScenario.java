package io.streamplane.bench.scenario.past;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Pod;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.measure.LatencySummary;
import io.streamplane.bench.measure.Progress;
import io.streamplane.bench.report.Markdown;
import io.streamplane.bench.report.SvgFigure;
import io.streamplane.bench.report.Target;
import io.streamplane.bench.scenario.Outcome;
import io.streamplane.bench.scenario.Scenario;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.Topics;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Reads of the past on a long log: fills {@code <cluster>.events} to a given number of events, then
 * times, through the Kubernetes API, the reads the log makes possible — a full list of the pods as
 * of a random past list version ({@code resourceVersionMatch=Exact}), one pod as of a random past
 * version, and the whole history of one pod ({@code GET /history/...}).
 *
 * <p>The fill writes commands straight to {@code <cluster>.commands}, as a gateway does but without
 * waiting for each result, so that a million events take minutes, not the hours a million API
 * requests would: {@code pods} pod creates, then rounds of updates of every pod (a label {@code
 * round} set to the round's number) until the commands number {@code events}. The real store turns
 * them into events, and the gateway's watch cache and history index read them as they would any
 * other. The pods name a scheduler nobody runs, so nothing binds or runs them. The first pod is
 * created through the API, and the others copy its stored (defaulted) form. After each round the
 * scenario lists one pod through the API and keeps the list's resourceVersion: these are the past
 * versions read later, each a real version a client was given.
 *
 * <p>Needs a Streamplane cluster and its Kafka; Kubernetes keeps no such history (etcd compacts
 * every five minutes), so there is nothing to compare with there.
 */
public final class PastReadsScenario implements Scenario {

  /**
   * @param events how many commands (so events) to append in all
   * @param pods how many pods they create; the rest are updates of those pods
   * @param samples how many reads of each kind to time
   */
  public record Options(
      String bootstrapServers, String cluster, long events, int pods, int samples, long seed) {}

  /** The figures of a run, for the JSON file. */
  public record Results(
      long commandsWritten,
      long eventsInLog,
      double fillSeconds,
      double settleSeconds,
      int versionsKept,
      LatencySummary listAtPastVersionMs,
      double listItemsMean,
      LatencySummary getAtPastVersionMs,
      LatencySummary historyMs,
      double historyVersionsMean,
      LatencySummary listLatestMs) {}

  private static final UserInfo ACTOR =
      UserInfo.newBuilder().setUsername("bench").setGroups(List.of("bench")).build();

  /** No scheduler answers to it, so the pods stay Pending: nothing binds or runs them. */
  private static final String SCHEDULER = "bench-past-nobody";

  private static final double LIST_TARGET_MS = 5_000;
  private static final double GET_TARGET_MS = 1_000;
  private static final double HISTORY_TARGET_MS = 1_000;

  private final Options options;
  private final KubeJson json = new KubeJson();

  public PastReadsScenario(Options options) {
    this.options = options;
  }

  @Override
  public String name() {
    return "past-reads";
  }

  @Override
  public Outcome run(KubeClient client) throws Exception {
    List<String> failures = new ArrayList<>();
    String namespace = "bench-past-" + Long.toString(System.currentTimeMillis(), 36);
    ObjectNode ns = KubeClient.JSON.createObjectNode();
    ns.put("apiVersion", "v1")
        .put("kind", "Namespace")
        .putObject("metadata")
        .put("name", namespace);
    check(client.post("/api/v1/namespaces", ns), "create namespace " + namespace);
    String podsPath = "/api/v1/namespaces/" + namespace + "/pods";
    KubeClient.Response first = client.post(podsPath, pod("p-0"));
    check(first, "create the first pod");
    ObjectNode template = (ObjectNode) first.body().deepCopy();
    ((ObjectNode) template.path("metadata"))
        .remove(List.of("uid", "resourceVersion", "creationTimestamp"));
    template.remove("status");

    TopicLayout layout = TopicLayout.singleBroker(options.cluster());
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
    KafkaClientSettings.applyTo(props);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    int rounds = (int) Math.max(0, (options.events() - options.pods()) / options.pods());
    long total = (long) options.pods() + (long) rounds * options.pods();
    AtomicLong sent = new AtomicLong(1);
    AtomicLong settled = new AtomicLong();
    AtomicReference<String> phase = new AtomicReference<>("fill");
    List<String> versions = new ArrayList<>();
    long fillStarted = System.nanoTime();
    double fillSeconds;
    double settleSeconds;
    try (KafkaSchemaCatalog catalog =
            new KafkaSchemaCatalog(options.bootstrapServers(), layout.topicName(Topics.SCHEMAS));
        Progress shown =
            Progress.start(
                () ->
                    phase.get().equals("fill")
                        ? Progress.Status.of("fill", sent.get(), total, "commands")
                        : Progress.Status.of("settle", settled.get(), options.pods(), "pods"))) {
      Topics topics = new Topics(layout, catalog);
      try (KafkaProducer<String, ResourceCommand> producer =
          new KafkaProducer<>(
              props, new StringSerializer(), topics.commands().valueSerde().serializer())) {
        for (int i = 1; i < options.pods(); i++) {
          send(producer, topics, CommandVerb.CREATE, namespace, template, i, 0);
          sent.incrementAndGet();
        }
        producer.flush();
        versions.add(listVersion(client, podsPath));
        for (int round = 1; round <= rounds; round++) {
          for (int i = 0; i < options.pods(); i++) {
            send(producer, topics, CommandVerb.UPDATE, namespace, template, i, round);
            sent.incrementAndGet();
          }
          producer.flush();
          versions.add(listVersion(client, podsPath));
        }
      }
      fillSeconds = (System.nanoTime() - fillStarted) / 1e9;
      phase.set("settle");
      long settleStarted = System.nanoTime();
      String last = String.valueOf(rounds);
      while (true) {
        // One pod and the count of the rest, of those at the last round: cheap to answer, and
        // its version, taken every few seconds while the store catches up, is a kept version
        // spread over the whole log.
        KubeClient.Response done =
            client.get(podsPath + "?limit=1&labelSelector=" + enc("round=" + last));
        check(done, "list the pods of the last round");
        JsonNode metadata = done.body().path("metadata");
        long count =
            done.body().path("items").size() + metadata.path("remainingItemCount").asLong(0);
        settled.set(count);
        versions.add(metadata.path("resourceVersion").asText());
        if (count >= options.pods()) {
          break;
        }
        if (System.nanoTime() - settleStarted > Duration.ofMinutes(60).toNanos()) {
          failures.add("the pods did not all reach round " + rounds + " within 60 minutes");
          break;
        }
        Thread.sleep(5000);
      }
      settleSeconds = (System.nanoTime() - settleStarted) / 1e9;
    }
    long eventsInLog = eventsInLog(layout);

    Random random = new Random(options.seed());
    List<Double> listMs = new ArrayList<>();
    List<Double> listItems = new ArrayList<>();
    List<Double> getMs = new ArrayList<>();
    List<Double> historyMs = new ArrayList<>();
    List<Double> historyVersions = new ArrayList<>();
    List<Double> latestMs = new ArrayList<>();
    AtomicLong reads = new AtomicLong();
    try (Progress shown =
        Progress.start(
            () -> Progress.Status.of("reads", reads.get(), 4L * options.samples(), "reads"))) {
      for (int s = 0; s < options.samples(); s++) {
        String version = versions.get(random.nextInt(versions.size()));
        KubeClient.Response list =
            client.get(podsPath + "?resourceVersionMatch=Exact&resourceVersion=" + enc(version));
        check(list, "list at " + version);
        listMs.add(list.nanos() / 1e6);
        listItems.add((double) list.body().path("items").size());
        reads.incrementAndGet();

        String pod = "p-" + random.nextInt(options.pods());
        String at = versions.get(random.nextInt(versions.size()));
        KubeClient.Response got =
            client.get(
                podsPath + "/" + pod + "?resourceVersionMatch=Exact&resourceVersion=" + enc(at));
        if (got.status() != 200 && got.status() != 404) {
          check(got, "get " + pod + " at " + at);
        }
        getMs.add(got.nanos() / 1e6);
        reads.incrementAndGet();

        KubeClient.Response history =
            client.get("/history" + podsPath + "/p-" + random.nextInt(options.pods()));
        check(history, "history of a pod");
        historyMs.add(history.nanos() / 1e6);
        historyVersions.add((double) history.body().path("items").size());
        reads.incrementAndGet();

        KubeClient.Response latest = client.get(podsPath);
        check(latest, "list the pods");
        latestMs.add(latest.nanos() / 1e6);
        reads.incrementAndGet();
      }
    }
    String lastVersion = versions.get(versions.size() - 1);
    JsonNode now = client.get(podsPath).body();
    JsonNode then =
        client
            .get(podsPath + "?resourceVersionMatch=Exact&resourceVersion=" + enc(lastVersion))
            .body();
    if (!now.path("items").equals(then.path("items"))) {
      failures.add(
          "the list at the last version read ("
              + lastVersion
              + ") differs from the current list, though nothing changed since");
    }
    client.delete("/api/v1/namespaces/" + namespace);

    Results results =
        new Results(
            total,
            eventsInLog,
            fillSeconds,
            settleSeconds,
            versions.size(),
            LatencySummary.of(listMs),
            mean(listItems),
            LatencySummary.of(getMs),
            LatencySummary.of(historyMs),
            mean(historyVersions),
            LatencySummary.of(latestMs));
    List<Target> targets =
        List.of(
            new Target(
                "a full list of the pods at a past version, slowest",
                LIST_TARGET_MS,
                results.listAtPastVersionMs().max(),
                "ms"),
            new Target(
                "one pod at a past version, slowest",
                GET_TARGET_MS,
                results.getAtPastVersionMs().max(),
                "ms"),
            new Target(
                "the history of one pod, slowest",
                HISTORY_TARGET_MS,
                results.historyMs().max(),
                "ms"));
    SvgFigure figure =
        new SvgFigure(
                "Reads of the past, "
                    + String.format(Locale.ROOT, "%,d", total)
                    + " events written")
            .cdf(
                "latency of each read",
                "ms",
                List.of(
                    new SvgFigure.Values("list of all pods at a past version", array(listMs)),
                    new SvgFigure.Values("list of all pods, latest", array(latestMs)),
                    new SvgFigure.Values("one pod at a past version", array(getMs)),
                    new SvgFigure.Values("history of one pod", array(historyMs))));
    String summary =
        String.format(
            Locale.ROOT,
            "%,d offsets in the events log (records and transaction markers), %,d of them events"
                + " written by this run (%,d pods, %d rounds of updates)."
                + " A full list of %,.0f pods at a past version: p50 %s, max %s; one pod at a"
                + " past version: p50 %s, max %s; the history of one pod (%.0f versions): p50"
                + " %s, max %s.",
            eventsInLog,
            total,
            options.pods(),
            rounds,
            results.listItemsMean(),
            Markdown.ms(results.listAtPastVersionMs().p50()),
            Markdown.ms(results.listAtPastVersionMs().max()),
            Markdown.ms(results.getAtPastVersionMs().p50()),
            Markdown.ms(results.getAtPastVersionMs().max()),
            results.historyVersionsMean(),
            Markdown.ms(results.historyMs().p50()),
            Markdown.ms(results.historyMs().max()));
    return new Outcome(
        "Reads of the past on a log of " + String.format(Locale.ROOT, "%,d", total) + " events",
        summary,
        body(results, rounds),
        figure,
        targets,
        failures,
        results);
  }

  private String body(Results r, int rounds) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        row(
            "list of all pods at a past version (`resourceVersionMatch=Exact`)",
            r.listAtPastVersionMs()));
    rows.add(row("list of all pods, latest (watch cache)", r.listLatestMs()));
    rows.add(row("one pod at a past version", r.getAtPastVersionMs()));
    rows.add(row("history of one pod (`GET /history/...`)", r.historyMs()));
    List<String> header = new ArrayList<>(List.of("read"));
    header.addAll(Markdown.LATENCY_HEADER);
    return "## What was measured\n\n"
        + String.format(
            Locale.ROOT,
            "The log was filled with %,d commands written straight to `commands` (%,d pod"
                + " creates, then %d rounds updating every pod) in %s; the store and the gateway"
                + " had read them all %s later. %d list versions were kept, one after each round"
                + " was sent and one every 5 s while the store worked through the commands, each"
                + " the resourceVersion of a real list, spread over the log; every timed read picks"
                + " one at random. Reads go through the Kubernetes API over HTTP, one at a"
                + " time, and their time includes decoding the answer.\n\n",
            r.commandsWritten(),
            options.pods(),
            rounds,
            Markdown.seconds(r.fillSeconds()),
            Markdown.seconds(r.settleSeconds()),
            r.versionsKept())
        + Markdown.table(header, "lrrrrr", rows)
        + String.format(
            Locale.ROOT,
            "\nLists at a past version returned %,.0f pods on average (fewer at versions taken"
                + " while the creates were still being applied); histories held %.0f versions on"
                + " average. Past reads come from the gateway's history index (RocksDB, one seek"
                + " per object, see docs/history.md); the latest list from the watch cache in"
                + " memory.\n",
            r.listItemsMean(),
            r.historyVersionsMean());
  }

  private static List<String> row(String what, LatencySummary s) {
    List<String> row = new ArrayList<>(List.of(what));
    row.addAll(Markdown.latencyCells(s));
    return row;
  }

  private void send(
      KafkaProducer<String, ResourceCommand> producer,
      Topics topics,
      CommandVerb verb,
      String namespace,
      ObjectNode template,
      int index,
      int round) {
    String name = "p-" + index;
    ObjectNode object = template.deepCopy();
    ObjectNode metadata = (ObjectNode) object.path("metadata");
    metadata.put("name", name);
    metadata.remove("generateName");
    metadata.with("labels").put("round", String.valueOf(round));
    ResourceCommand command =
        ResourceCommand.newBuilder()
            .setId(UUID.randomUUID().toString())
            .setVerb(verb)
            .setResource("pods")
            .setNamespace(namespace)
            .setName(name)
            .setEncodedObject(KindObjects.encode(json.toAvro(object, Pod.class).record()))
            .setActor(ACTOR)
            .build();
    producer.send(
        new ProducerRecord<>(
            topics.commands().name(),
            new ResourceKey("pods", "", namespace, name).toString(),
            command));
  }

  private ObjectNode pod(String name) {
    ObjectNode pod = KubeClient.JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    pod.putObject("metadata").put("name", name).putObject("labels").put("round", "0");
    ObjectNode spec = pod.putObject("spec");
    spec.put("schedulerName", SCHEDULER);
    spec.putArray("containers").addObject().put("name", "c").put("image", "nginx");
    return pod;
  }

  private static String listVersion(KubeClient client, String podsPath) throws Exception {
    KubeClient.Response list = client.get(podsPath + "?limit=1");
    check(list, "list one pod");
    return list.body().path("metadata").path("resourceVersion").asText();
  }

  private long eventsInLog(TopicLayout layout) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
    KafkaClientSettings.applyTo(props);
    String topic = layout.topicName(Topics.EVENTS);
    try (Admin admin = Admin.create(props)) {
      int partitions =
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
      java.util.Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
      for (int p = 0; p < partitions; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      return admin.listOffsets(latest).all().get().values().stream()
          .mapToLong(i -> i.offset())
          .sum();
    }
  }

  private static void check(KubeClient.Response response, String what) {
    if (!response.ok()) {
      throw new IllegalStateException(what + ": " + response.status() + " " + response.message());
    }
  }

  private static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  private static double[] array(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
