package io.streamplane.e2e;

import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code ./streamplane up} cluster in its own directories and on free ports, started as a real
 * process, with a {@link Kubectl} pointed at its kubeconfig. Without {@code --nodes} among the
 * extra arguments it runs no node workers (the tests of the control plane alone register their own
 * Node objects or none).
 */
final class LocalCluster implements AutoCloseable {

  private static final Duration START = Duration.ofMinutes(3);

  final Path home;
  final Kubectl kubectl;
  private final String[] args;
  private Launcher launcher;
  private String javaOptions;

  private final int kafkaPort;
  private final int apiPort;

  LocalCluster(Path home, String... extraArgs) throws IOException {
    this(home, Launcher.freePort(), Launcher.freePort(), extraArgs);
  }

  /** A cluster on the given ports, for a test that must keep to a range of ports. */
  LocalCluster(Path home, int kafkaPort, int apiPort, String... extraArgs) {
    this.home = home;
    this.kubectl = new Kubectl(home.resolve("kubeconfig"));
    this.kafkaPort = kafkaPort;
    this.apiPort = apiPort;
    List<String> command =
        new ArrayList<>(
            List.of(
                "up",
                "--data-dir",
                home.resolve("data").toString(),
                "--state-dir",
                home.resolve("state").toString(),
                "--kubeconfig",
                home.resolve("kubeconfig").toString(),
                "--pki-dir",
                pkiDir().toString(),
                "--kafka-port",
                Integer.toString(kafkaPort),
                "--api-port",
                Integer.toString(apiPort),
                "--status-interval",
                "PT10S"));
    if (!List.of(extraArgs).contains("--nodes")) {
      command.addAll(List.of("--nodes", "0")); // most tests bring their own nodes, or none
    }
    // Clusters of several checkouts on one machine each take their own range of cluster IPs, since
    // the proxy and the DNS listen on them.
    String serviceCidr = System.getenv("STREAMPLANE_E2E_SERVICE_CIDR");
    if (serviceCidr != null && !List.of(extraArgs).contains("--service-cidr")) {
      command.addAll(List.of("--service-cidr", serviceCidr));
    }
    command.addAll(List.of(extraArgs));
    this.args = command.toArray(String[]::new);
  }

  String apiUrl() {
    return "https://127.0.0.1:" + apiPort;
  }

  /** The cluster's CA, certificates and keys, as {@code up} writes them. */
  Path pkiDir() {
    return home.resolve("pki");
  }

  /**
   * A JDK HTTP client speaking to the API as the cluster's administrator ({@code admin.crt}),
   * trusting the cluster CA.
   */
  HttpClient adminHttp() {
    return HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(5))
        .sslContext(ClusterPki.loadOrCreate(pkiDir(), Clock.systemUTC()).admin().sslContext())
        .build();
  }

  String kafkaBootstrap() {
    return "127.0.0.1:" + kafkaPort;
  }

  /**
   * Starts {@code ./streamplane node --runtime process} as its own OS process against this cluster,
   * keeping its pods under {@code rootDir}, and waits until it says it is running (not until its
   * Node is registered).
   */
  Launcher startProcessNode(String name, Path rootDir) throws IOException {
    return startNode(name, "process", rootDir);
  }

  /**
   * Starts {@code ./streamplane node --runtime simulated} as its own OS process, as {@link
   * #startProcessNode}: its pods run no process and use what their {@code
   * streamplane.io/simulated-usage} annotation says.
   */
  Launcher startSimulatedNode(String name, Path rootDir) throws IOException {
    return startNode(name, "simulated", rootDir);
  }

  private Launcher startNode(String name, String runtime, Path rootDir) throws IOException {
    Launcher node =
        Launcher.startLabelled(
            name,
            "node",
            "--name",
            name,
            "--runtime",
            runtime,
            "--api-server",
            apiUrl(),
            "--pki-dir",
            pkiDir().toString(),
            "--bootstrap-server",
            kafkaBootstrap(),
            "--root-dir",
            rootDir.toString());
    node.awaitLine("Ctrl-C to stop", START);
    return node;
  }

  /** JVM options (system properties) for the cluster's process; call before {@link #start}. */
  LocalCluster javaOptions(String options) {
    this.javaOptions = options;
    return this;
  }

  LocalCluster start() throws IOException {
    launcher = Launcher.startWithJavaOptions("streamplane", javaOptions, args);
    launcher.awaitLine("ready.", START);
    return this;
  }

  /** Ctrl-C, and waits until the cluster has stopped. */
  void stop() throws Exception {
    launcher.interrupt(Duration.ofSeconds(60));
  }

  /** kill -9 of the whole cluster process: no shutdown hook runs. */
  void kill() throws Exception {
    launcher.kill();
  }

  /** The end offset of each partition of the cluster's {@code sp.commands} topic. */
  java.util.Map<org.apache.kafka.common.TopicPartition, Long> commandOffsets() {
    try (var consumer = commandReader()) {
      var partitions =
          consumer.partitionsFor("sp.commands").stream()
              .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition()))
              .toList();
      return consumer.endOffsets(partitions);
    }
  }

  /** The keys of the commands appended after {@code from} (as {@link #commandOffsets} gave it). */
  List<String> commandKeysSince(java.util.Map<org.apache.kafka.common.TopicPartition, Long> from) {
    List<String> keys = new ArrayList<>();
    try (var consumer = commandReader()) {
      consumer.assign(from.keySet());
      from.forEach(consumer::seek);
      var end = consumer.endOffsets(from.keySet());
      long deadline = System.currentTimeMillis() + 10_000;
      while (System.currentTimeMillis() < deadline
          && from.keySet().stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
      }
    }
    return keys;
  }

  private org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> commandReader() {
    java.util.Properties config = new java.util.Properties();
    config.put("bootstrap.servers", kafkaBootstrap());
    return new org.apache.kafka.clients.consumer.KafkaConsumer<>(
        config,
        new org.apache.kafka.common.serialization.StringDeserializer(),
        new org.apache.kafka.common.serialization.ByteArrayDeserializer());
  }

  Launcher launcher() {
    return launcher;
  }

  @Override
  public void close() {
    if (launcher != null) {
      launcher.close();
    }
    // The broker's log and the apps' stores are most of a cluster's gigabyte; its output,
    // kubeconfig and certificates stay for whoever reads a failure.
    deleteTree(home.resolve("data"));
    deleteTree(home.resolve("state"));
  }

  /** Deletes what it can of {@code dir}; a busy mount point left behind is skipped. */
  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      paths
          .sorted(java.util.Comparator.reverseOrder())
          .forEach(
              path -> {
                try {
                  Files.deleteIfExists(path);
                } catch (IOException e) {
                  // Still mounted or in use: left for the machine's temporary-file cleanup.
                }
              });
    } catch (IOException | java.io.UncheckedIOException e) {
      // Gone while walked, or unreadable: nothing more to do.
    }
  }
}
