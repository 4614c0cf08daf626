package io.streamplane.bench.profile;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a Streamplane JVM's CPU goes, by name: a thread's <em>hop</em> (the role it works for: the
 * gateway, the store, the broker...) from the thread's name, and a sampled stack's <em>stage</em>
 * within its hop (Jetty, authentication, JSON, admission, managedFields, Avro, the store's logic,
 * the Kafka Streams commit...) from its frames.
 *
 * <p>A stage is the first rule, in the order of {@link #STAGES}, that matches any frame of the
 * stack: the commit comes first so that the producer and store calls it makes count as the commit;
 * then the libraries (a JSON parse inside admission counts as JSON, a produce inside the gateway's
 * write as the producer), then Streamplane's packages, then what remains of each framework.
 */
public final class Stages {

  /** A rule: a frame whose {@code class.method} starts with one of the prefixes is the stage. */
  private record Rule(String stage, List<String> prefixes) {

    boolean matches(String frame) {
      for (String p : prefixes) {
        if (frame.startsWith(p)) {
          return true;
        }
      }
      return false;
    }
  }

  private record HopRule(String hop, Pattern name) {}

  /** The thread's hop when its name says nothing else. */
  public static final String OTHER = "other";

  private static final List<HopRule> HOPS =
      List.of(
          // A Kafka client's own threads are named after the client: classified by it below.
          new HopRule("store", Pattern.compile(".*-store(-.*)?")),
          new HopRule("controllers", Pattern.compile(".*-controllers(-.*)?")),
          new HopRule("scheduler", Pattern.compile(".*-scheduler-.*scheduler(-.*)?")),
          new HopRule("binder", Pattern.compile(".*-binder(-.*)?")),
          new HopRule(
              "gateway",
              Pattern.compile(
                  "gateway-\\d+.*|streamplane-gateway.*|watch-cache|command-results"
                      + "|controller-requests.*|.*\\.controller-requests\\.gateways|history-index"
                      + "|defaults-writer|system-namespaces|WebSocket@.*|serviceaccounts.*"
                      + "|resourcequota.*|service-allocat.*|horizontal-pod-.*|resource-metric.*"
                      + "|customresourced.*")),
          new HopRule(
              "broker",
              Pattern.compile(
                  "data-plane-kafka-.*|group-coordinator.*|share-coordinator.*|share-group-.*"
                      + "|TxnMarkerSender.*|AddPartitionsToTxn.*|transaction-log-manager.*"
                      + "|quorum-controller.*|kafka-\\d+-.*|kafka-scheduler.*|kafka-log-cleaner.*"
                      + "|ExpirationReaper.*|executor-.*|broker-\\d+-.*|controller-\\d+-.*"
                      + "|raft-.*|LogDirFailureHandler|persister-.*|PersisterState.*"
                      + "|network-partition-.*|client-metrics-.*|SensorExpiryThread")),
          new HopRule("RocksDB background", Pattern.compile("rocksdb:.*")),
          new HopRule("nodes", Pattern.compile("node-.*|HttpClient-.*")),
          new HopRule("network (proxy, DNS)", Pattern.compile("service-table|service-proxy.*")),
          new HopRule("JVM: JIT compiler", Pattern.compile("C\\d CompilerThre.*|Sweeper thread")),
          new HopRule("JVM: garbage collector", Pattern.compile("GC Thread.*|G\\d .*|VM Thread")),
          new HopRule("JVM: Flight Recorder", Pattern.compile("JFR .*")),
          new HopRule(
              "JVM (other)",
              Pattern.compile(
                  "VM Periodic.*|Service Thread|Monitor Deflati.*|Common-Cleaner|Finalizer"
                      + "|Reference Handl.*|Signal Dispatch.*|Notification Th.*"
                      + "|Attach Listener")));

  private static final Pattern KAFKA_CLIENT_THREAD =
      Pattern.compile(
          "kafka-(?:producer-network-thread|coordinator-heartbeat-thread|admin-client-thread)"
              + " \\| (.*)");

  private static final List<Rule> STAGES =
      List.of(
          new Rule(
              "Kafka Streams commit (transaction)",
              List.of(
                  "org.apache.kafka.streams.processor.internals.TaskExecutor.commit",
                  "org.apache.kafka.streams.processor.internals.TaskManager.commit",
                  "org.apache.kafka.streams.processor.internals.StreamsProducer.commit")),
          new Rule(
              "TLS",
              List.of("sun.security.", "javax.crypto.", "com.sun.crypto.", "javax.net.ssl.")),
          new Rule("JSON", List.of("com.fasterxml.jackson.")),
          new Rule("Avro", List.of("org.apache.avro.")),
          new Rule("RocksDB (Java side)", List.of("org.rocksdb.")),
          new Rule(
              "Kafka producer",
              List.of(
                  "org.apache.kafka.clients.producer.",
                  "org.apache.kafka.common.record.MemoryRecordsBuilder")),
          new Rule("Kafka consumer", List.of("org.apache.kafka.clients.consumer.")),
          new Rule("authentication", List.of("io.streamplane.gateway.authn.")),
          new Rule("authorization", List.of("io.streamplane.gateway.authz.")),
          new Rule("audit", List.of("io.streamplane.gateway.audit.")),
          new Rule("managedFields", List.of("io.streamplane.gateway.apply.")),
          new Rule("admission", List.of("io.streamplane.gateway.admission.")),
          new Rule("the cache (reads, watch)", List.of("io.streamplane.gateway.cache.")),
          new Rule(
              "the write (command, result)",
              List.of("io.streamplane.gateway.write.", "io.streamplane.gateway.storage.")),
          new Rule(
              "decode, convert, serve (gateway)",
              List.of(
                  "io.streamplane.gateway.codec.",
                  "io.streamplane.gateway.conversion.",
                  "io.streamplane.gateway.request.",
                  "io.streamplane.gateway.api.",
                  "io.streamplane.gateway.server.")),
          new Rule("the store's logic", List.of("io.streamplane.store.")),
          new Rule("controllers' logic", List.of("io.streamplane.controller.")),
          new Rule("scheduler's logic", List.of("io.streamplane.scheduler.")),
          new Rule("object model (schemas, kinds)", List.of("io.streamplane.")),
          new Rule(
              "broker: produce (append, replication)",
              List.of(
                  "kafka.server.KafkaApis.handleProduceRequest",
                  "kafka.cluster.Partition.append",
                  "org.apache.kafka.storage.internals.log.")),
          new Rule(
              "broker: fetch",
              List.of(
                  "kafka.server.KafkaApis.handleFetchRequest",
                  "kafka.server.ReplicaManager.fetchMessages",
                  "kafka.server.DelayedFetch")),
          new Rule(
              "broker: transactions",
              List.of(
                  "kafka.coordinator.transaction.",
                  "org.apache.kafka.coordinator.transaction.",
                  "kafka.server.KafkaApis.handleEndTxn",
                  "kafka.server.KafkaApis.handleAddPartitionsToTxn",
                  "kafka.server.KafkaApis.handleAddOffsetsToTxn",
                  "kafka.server.KafkaApis.handleTxnOffsetCommit",
                  "kafka.server.KafkaApis.handleWriteTxnMarkers",
                  "kafka.server.AddPartitionsToTxnManager")),
          new Rule(
              "broker: groups and offsets",
              List.of("org.apache.kafka.coordinator.group.", "kafka.coordinator.group.")),
          new Rule("Kafka Streams (other)", List.of("org.apache.kafka.streams.")),
          new Rule(
              "network I/O",
              List.of(
                  "org.apache.kafka.common.network.",
                  "kafka.network.",
                  "sun.nio.",
                  "java.nio.",
                  "jdk.internal.net.http.")),
          new Rule("HTTP server (Jetty)", List.of("org.eclipse.jetty.")),
          new Rule("broker (other)", List.of("kafka.", "org.apache.kafka.")));

  private Stages() {}

  /** The hop of the thread named {@code name} (a Java thread name, or an OS one when ended). */
  public static String hop(String name) {
    var client = KAFKA_CLIENT_THREAD.matcher(name);
    if (client.matches()) {
      String hop = hop(client.group(1));
      // An admin client or consumer whose id says nothing: a Kafka client of the JVM.
      return hop.equals(OTHER) ? "Kafka clients (admin, other)" : hop;
    }
    for (HopRule rule : HOPS) {
      if (rule.name().matcher(name).matches()) {
        return rule.hop();
      }
    }
    return OTHER;
  }

  /**
   * The stage of a sampled stack, its frames as {@code class.method} from the innermost; "other
   * code" when no rule matches (JDK code outside any stage, say).
   */
  public static String stage(List<String> frames) {
    for (Rule rule : STAGES) {
      for (String frame : frames) {
        if (rule.matches(frame)) {
          return rule.stage();
        }
      }
    }
    return "other code";
  }
}
