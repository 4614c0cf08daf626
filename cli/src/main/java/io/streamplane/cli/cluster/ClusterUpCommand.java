package io.streamplane.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.cli.up.Kubeconfig;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane cluster up}: starts a local cluster of separate processes and returns once it
 * answers, leaving them running in the background ({@code cluster down} stops them):
 *
 * <ol>
 *   <li>{@code --brokers} Kafka brokers ({@code kafka.Kafka}, each its own JVM with a generated
 *       {@code server.properties}, all of them KRaft voters), replication factor 3 and {@code
 *       min.insync.replicas=2};
 *   <li>the cluster's topics, created with that replication factor;
 *   <li>the roles, each instance its own {@code streamplane <role>} process: stores, controllers, a
 *       binder, schedulers, gateways (each reading its own results partition), and node fleets
 *       (fleet i talks to gateway i modulo the number of gateways).
 * </ol>
 *
 * <p>The cluster's PKI is made once in {@code <run-dir>/pki} (as {@code up} makes its own): every
 * gateway serves HTTPS with its serving certificate, authenticates client certificates signed by
 * its CA and shares its ServiceAccount signing key; nodes sign their {@code system:node:NAME}
 * certificates with that CA; the kubeconfig holds the administrator's certificate.
 *
 * <p>Each process's command line, pid and log are in its directory of the run directory (see
 * docs/deploy.md), so a single instance can be killed and started again ({@code cluster start}).
 * Running {@code up} again on a stopped cluster restarts it on the same data.
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description =
        "Start the local cluster in the background: Kafka brokers, then every role as processes.")
final class ClusterUpCommand implements Callable<Integer> {

  @Mixin ClusterCommand.RunDirOption run;

  @Option(
      names = "--port-base",
      defaultValue = "29100",
      description =
          "First of the ports used on 127.0.0.1: broker i listens on base+i, its controller on"
              + " base+10+i, gateway i on base+20+i, the other roles' metrics from base+40"
              + " (default: ${DEFAULT-VALUE}).")
  int portBase;

  @Option(
      names = "--brokers",
      defaultValue = "3",
      description = "Kafka brokers, all KRaft voters (default: ${DEFAULT-VALUE}).")
  int brokers;

  @Option(
      names = "--cluster",
      defaultValue = TopicLayout.DEFAULT_CLUSTER,
      description = "Cluster name, the prefix of every topic (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Option(
      names = "--partitions",
      defaultValue = "6",
      description =
          "Partitions of commands/events/results, as created (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(
      names = "--gateways",
      defaultValue = "2",
      description = "Gateways (default: ${DEFAULT-VALUE}).")
  int gateways;

  @Option(
      names = "--stores",
      defaultValue = "1",
      description = "Stores (default: ${DEFAULT-VALUE}).")
  int stores;

  @Option(
      names = "--controllers",
      defaultValue = "2",
      description = "Controllers instances (default: ${DEFAULT-VALUE}).")
  int controllers;

  @Option(
      names = "--schedulers",
      defaultValue = "2",
      description = "Schedulers, without binder (default: ${DEFAULT-VALUE}).")
  int schedulers;

  @Option(
      names = "--binders",
      defaultValue = "1",
      description = "Binders, without scheduler (default: ${DEFAULT-VALUE}).")
  int binders;

  @Option(
      names = "--node-fleets",
      defaultValue = "2",
      description = "Node fleet processes (default: ${DEFAULT-VALUE}).")
  int nodeFleets;

  @Option(
      names = "--nodes-per-fleet",
      defaultValue = "2",
      description = "Nodes in each fleet, named node-<fleet>-<n> (default: ${DEFAULT-VALUE}).")
  int nodesPerFleet;

  @Option(
      names = "--runtime",
      defaultValue = "simulated",
      description = "The nodes' runtime: simulated or process (default: ${DEFAULT-VALUE}).")
  String runtime;

  @Option(
      names = "--java-opts",
      defaultValue = "-Xms64m -Xmx512m -XX:+UseSerialGC",
      description = "JVM options of every process (default: ${DEFAULT-VALUE}).")
  String javaOpts;

  @Option(
      names = "--startup-timeout",
      defaultValue = "PT4M",
      description = "How long each step may take, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  private final List<RoleInstance> started = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    String problem = refusal();
    if (problem != null) {
      System.err.println("streamplane cluster up: " + problem);
      return 2;
    }
    RunDirectory dir = run.directory();
    for (RoleInstance instance : dir.instances()) {
      if (instance.process().isPresent()) {
        System.err.println(
            "streamplane cluster up: "
                + instance.name()
                + " of "
                + dir.root()
                + " is running; 'streamplane cluster down' first");
        return 1;
      }
    }
    for (int port : ports()) {
      if (!free(port)) {
        System.err.println(
            "streamplane cluster up: port "
                + port
                + " on 127.0.0.1 is in use (--port-base chooses others)");
        return 1;
      }
    }
    try {
      start(dir);
      return 0;
    } catch (StartupException e) {
      System.err.println("streamplane cluster up: " + e.getMessage());
      System.err.println("stopping what was started...");
      for (int i = started.size() - 1; i >= 0; i--) {
        started.get(i).stop(Duration.ofSeconds(15));
      }
      return 1;
    }
  }

  private String refusal() {
    if (brokers < 1 || brokers > 10) {
      return "--brokers must be between 1 and 10";
    }
    if (gateways < 1 || gateways > Math.min(partitions, 20)) {
      return "--gateways must be between 1 and --partitions (each reads its own results partition)";
    }
    if (stores < 1 || controllers < 0 || schedulers < 0 || binders < 0 || nodeFleets < 0) {
      return "at least one store is needed, and no count may be negative";
    }
    if (stores + controllers + schedulers + binders + nodeFleets > 60) {
      return "at most 60 role instances besides the gateways";
    }
    if (!runtime.equals("simulated") && !runtime.equals("process")) {
      return "unknown runtime '" + runtime + "' (process or simulated)";
    }
    return null;
  }

  private List<Integer> ports() {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < brokers; i++) {
      ports.add(BrokerConfig.brokerPort(portBase, i));
      ports.add(BrokerConfig.controllerPort(portBase, i));
    }
    for (int i = 0; i < gateways; i++) {
      ports.add(gatewayPort(i));
    }
    for (int k = 0; k < stores + controllers + schedulers + binders + nodeFleets; k++) {
      ports.add(portBase + 40 + k);
    }
    return ports;
  }

  private int gatewayPort(int i) {
    return portBase + 20 + i;
  }

  private void start(RunDirectory dir) throws Exception {
    Files.createDirectories(dir.root());
    String bootstrap = BrokerConfig.bootstrapServers(portBase, brokers);
    short replicationFactor = BrokerConfig.replicationFactor(brokers);
    List<RoleInstance> kafka = new ArrayList<>();
    List<RoleInstance> roles = new ArrayList<>();
    List<RoleInstance> fleets = new ArrayList<>();
    String clusterId = clusterId(dir);
    // One PKI for the whole cluster, made once and kept across restarts: every gateway serves
    // the same certificate and shares the ServiceAccount signing key, so a token one issues is
    // accepted by the others; nodes sign their own certificates with its CA.
    ClusterPki pki =
        ClusterPki.loadOrCreate(dir.root().resolve("pki").toAbsolutePath(), Clock.systemUTC());
    ClusterPki.ClientIdentity administrator = pki.admin();
    for (int i = 0; i < brokers; i++) {
      RoleInstance instance = dir.instance("kafka-" + i);
      BrokerConfig config = new BrokerConfig(i, brokers, portBase, instance.dir().resolve("data"));
      Path properties = config.write(instance.dir());
      config.formatOnce(clusterId);
      instance.writeArgs(java(instance, "kafka.Kafka", properties.toString()));
      kafka.add(instance);
    }
    int metricsPort = portBase + 40;
    for (int i = 0; i < stores; i++) {
      roles.add(role(dir, "store-" + i, metricsPort++, "store", "--state-dir", "state"));
    }
    for (int i = 0; i < controllers; i++) {
      roles.add(
          role(dir, "controllers-" + i, metricsPort++, "controllers", "--state-dir", "state"));
    }
    for (int i = 0; i < binders; i++) {
      roles.add(
          role(
              dir,
              "binder-" + i,
              metricsPort++,
              "scheduler",
              "--no-scheduler",
              "--state-dir",
              "state"));
    }
    for (int i = 0; i < schedulers; i++) {
      roles.add(
          role(
              dir,
              "scheduler-" + i,
              metricsPort++,
              "scheduler",
              "--no-binder",
              "--state-dir",
              "state"));
    }
    List<RoleInstance> gatewayInstances = new ArrayList<>();
    for (int i = 0; i < gateways; i++) {
      List<String> options =
          new ArrayList<>(
              List.of(
                  "--port",
                  Integer.toString(gatewayPort(i)),
                  "--results-partition",
                  Integer.toString(i),
                  "--history-dir",
                  "history"));
      options.addAll(pki.gatewayFlags());
      gatewayInstances.add(role(dir, "gateway-" + i, 0, "gateway", options.toArray(String[]::new)));
    }
    for (int i = 0; i < nodeFleets; i++) {
      fleets.add(
          role(
              dir,
              "nodes-" + i,
              metricsPort++,
              "nodes",
              "--count",
              Integer.toString(nodesPerFleet),
              "--name-prefix",
              "node-" + i + "-",
              "--api-server",
              "https://127.0.0.1:" + gatewayPort(i % gateways),
              "--pki-dir",
              pki.directory().toString(),
              "--runtime",
              runtime,
              "--root-dir",
              "pods"));
    }
    List<RoleInstance> all = new ArrayList<>(kafka);
    all.addAll(roles);
    all.addAll(gatewayInstances);
    all.addAll(fleets);
    dir.writeInstances(all);
    Files.writeString(dir.bootstrapServersFile(), bootstrap + "\n");

    long began = System.nanoTime();
    System.out.println(
        "starting "
            + brokers
            + " Kafka brokers (KRaft, combined broker+controller) at "
            + bootstrap
            + ", run directory "
            + dir.root());
    startAll(kafka);
    TopicLayout single = TopicLayout.singleBroker(cluster);
    TopicLayout layout =
        new TopicLayout(
            cluster,
            partitions,
            single.bindingsPartitions(),
            single.auditPartitions(),
            replicationFactor);
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) timeout.toMillis()))) {
      await(
          "all " + brokers + " brokers registered",
          () -> {
            try {
              return admin.describeCluster().nodes().get().size() == brokers;
            } catch (Exception e) {
              return false;
            }
          },
          kafka);
      System.out.println(
          "kafka: "
              + brokers
              + " brokers up in "
              + since(began)
              + " ms (cluster id "
              + clusterId
              + ")");
      try (ClusterTopics topics = ClusterTopics.ensure(admin, bootstrap, layout)) {
        System.out.println(
            "topics: "
                + topics.topics().all().size()
                + " topics of "
                + cluster
                + ", replication factor "
                + replicationFactor
                + ", min.insync.replicas "
                + layout.minInSyncReplicas());
      }
    }
    startAll(roles);
    startAll(gatewayInstances);
    HttpClient http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .sslContext(administrator.sslContext())
            .build();
    for (int i = 0; i < gateways; i++) {
      String url = "https://127.0.0.1:" + gatewayPort(i) + "/readyz";
      await("gateway-" + i + " ready at " + url, () -> get(http, url) != null, started);
    }
    System.out.println(
        "roles: "
            + stores
            + " store, "
            + controllers
            + " controllers, "
            + binders
            + " binder, "
            + schedulers
            + " schedulers, "
            + gateways
            + " gateways started");
    startAll(fleets);
    int nodes = nodeFleets * nodesPerFleet;
    String nodesUrl = "https://127.0.0.1:" + gatewayPort(0) + "/api/v1/nodes";
    await(
        nodes + " nodes registered",
        () -> {
          String body = get(http, nodesUrl);
          return body != null && countItems(body) >= nodes;
        },
        started);
    Kubeconfig.write(
        dir.kubeconfig(), "https://127.0.0.1:" + gatewayPort(0), cluster, administrator);
    System.out.println(
        "ready in "
            + since(began) / 1000
            + " s: "
            + all.size()
            + " processes, "
            + nodes
            + " nodes. Stop with: streamplane cluster down --run-dir "
            + run.runDir);
    System.out.println("kubeconfig: " + dir.kubeconfig());
    System.out.println("Use kubectl with:  export KUBECONFIG=" + dir.kubeconfig());
  }

  private static long since(long began) {
    return Duration.ofNanos(System.nanoTime() - began).toMillis();
  }

  private void startAll(List<RoleInstance> instances) throws IOException {
    for (RoleInstance instance : instances) {
      ProcessHandle process = instance.start();
      started.add(instance);
      System.out.println("  " + instance.name() + ": pid " + process.pid());
    }
  }

  /**
   * Waits for {@code condition}, failing as soon as one of {@code watched} has exited (with the end
   * of its log) or after the startup timeout.
   */
  private void await(String what, BooleanSupplier condition, List<RoleInstance> watched)
      throws InterruptedException, StartupException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      for (RoleInstance instance : watched) {
        if (instance.process().isEmpty()) {
          throw new StartupException(
              instance.name()
                  + " exited while waiting for "
                  + what
                  + "; its log ends:\n"
                  + tail(instance.logFile()));
        }
      }
      if (System.nanoTime() > deadline) {
        throw new StartupException("no " + what + " after " + timeout.toSeconds() + " s");
      }
      Thread.sleep(500);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static String get(HttpClient http, String url) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static int countItems(String list) {
    try {
      JsonNode items = new ObjectMapper().readTree(list).path("items");
      return items.size();
    } catch (IOException e) {
      return 0;
    }
  }

  /** The cluster id all brokers are formatted with, kept in the run directory across restarts. */
  private static String clusterId(RunDirectory dir) throws IOException {
    Path file = dir.root().resolve("cluster-id");
    if (Files.exists(file)) {
      return Files.readString(file).trim();
    }
    String id = Uuid.randomUuid().toString();
    Files.writeString(file, id + "\n");
    return id;
  }

  private RoleInstance role(
      RunDirectory dir, String name, int metricsPort, String command, String... options)
      throws IOException {
    RoleInstance instance = dir.instance(name);
    List<String> args = new ArrayList<>();
    args.add(command);
    args.addAll(
        List.of(
            "--bootstrap-server",
            BrokerConfig.bootstrapServers(portBase, brokers),
            "--cluster",
            cluster,
            "--partitions",
            Integer.toString(partitions),
            "--replication-factor",
            Short.toString(BrokerConfig.replicationFactor(brokers))));
    if (metricsPort != 0) {
      args.addAll(List.of("--metrics-port", Integer.toString(metricsPort)));
    }
    for (int i = 0; i < options.length; i++) {
      // Directories are the instance's own: absolute, so the recorded command runs from anywhere.
      boolean directory =
          i > 0 && List.of("--state-dir", "--history-dir", "--root-dir").contains(options[i - 1]);
      args.add(directory ? instance.dir().resolve(options[i]).toString() : options[i]);
    }
    instance.writeArgs(
        java(instance, "io.streamplane.cli.Streamplane", args.toArray(String[]::new)));
    return instance;
  }

  /** The full command line of a JVM of this distribution, marked as {@code instance}'s. */
  private List<String> java(RoleInstance instance, String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(Arrays.stream(javaOpts.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList());
    command.add(RoleInstance.INSTANCE_PROPERTY + instance.dir().toAbsolutePath());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(List.of(args));
    return command;
  }

  private static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** A step of the startup that did not complete; its message says which and why. */
  private static final class StartupException extends Exception {
    StartupException(String message) {
      super(message);
    }
  }
}
