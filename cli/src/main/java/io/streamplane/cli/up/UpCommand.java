package io.streamplane.cli.up;

import io.streamplane.cli.roles.NodeLifecycleOptions;
import io.streamplane.controller.ControllersApp;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.gateway.server.GatewaySecurity;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.log.UserInfo;
import io.streamplane.node.NodeFleet;
import io.streamplane.node.NodeOptions;
import io.streamplane.node.RuntimeChoice;
import io.streamplane.scheduler.SchedulerApp;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.TopicSpec;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane up}: the all-in-one local cluster. Starts a real single-node KRaft broker on a
 * persistent data directory, creates (or checks) the cluster's topics, then stays in the foreground
 * printing a status line until Ctrl-C, when it stops everything cleanly. Starting again on the same
 * directory finds the topics and every record written before.
 *
 * <p>Today the cluster is the broker, its topics, the store and a gateway serving the Kubernetes
 * API (with a kubeconfig for kubectl); controllers, scheduler and node workers join as their issues
 * land.
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = "Run the all-in-one local cluster in the foreground (Ctrl-C stops it).")
public final class UpCommand implements Callable<Integer> {

  private static final UserInfo SYSTEM =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters"))
          .build();

  @Option(
      names = "--data-dir",
      defaultValue = ".streamplane/data",
      description =
          "Where the broker keeps its log; reused across restarts (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--kafka-port",
      defaultValue = "19092",
      description = "Port of the embedded broker on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
  int kafkaPort;

  @Option(
      names = "--api-port",
      defaultValue = "6443",
      description = "Port of the Kubernetes API on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
  int apiPort;

  @Option(
      names = "--state-dir",
      defaultValue = ".streamplane/state",
      description = "Where the stream apps keep their RocksDB stores (default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(
      names = "--kubeconfig",
      defaultValue = ".streamplane/kubeconfig",
      description = "The kubeconfig written for kubectl (default: ${DEFAULT-VALUE}).")
  Path kubeconfig;

  @Option(
      names = "--pki-dir",
      defaultValue = ".streamplane/pki",
      description =
          "The cluster CA, the API's serving certificate, the administrator's client certificate"
              + " and the ServiceAccount signing key; made once, reused on restart (default:"
              + " ${DEFAULT-VALUE}).")
  Path pkiDir;

  @Option(
      names = "--no-controllers",
      description =
          "Do not run the controllers here: run 'streamplane controllers' (one or more) instead.")
  boolean withoutControllers;

  @Mixin NodeLifecycleOptions nodeLifecycle;

  @Option(
      names = "--no-scheduler",
      description = "Do not run a scheduler and binder here: run 'streamplane scheduler' instead.")
  boolean withoutScheduler;

  @Option(
      names = "--nodes",
      defaultValue = "3",
      description = "How many node workers to run here (default: ${DEFAULT-VALUE}; see --runtime).")
  int nodes;

  @Option(
      names = "--runtime",
      defaultValue = "process",
      description =
          "The node workers' runtime: process (containers are OS processes, pods answer on"
              + " 127.x.y.z) or simulated (pods go Running and Ready, no process runs)"
              + " (default: ${DEFAULT-VALUE}).")
  String runtime;

  @Option(
      names = "--crash-loop-back-off",
      defaultValue = "PT10S",
      description =
          "First back-off before restarting a crashed container again, ISO-8601; doubles per"
              + " restart up to 5 minutes (default: ${DEFAULT-VALUE}).")
  Duration crashLoopBackOff;

  @Option(
      names = "--cluster",
      defaultValue = TopicLayout.DEFAULT_CLUSTER,
      description = "Cluster name, the prefix of every topic (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Option(
      names = "--status-interval",
      defaultValue = "PT5S",
      description = "How often the status line refreshes, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration statusInterval;

  @Override
  public Integer call() throws Exception {
    if (RuntimeChoice.named(runtime).isEmpty()) {
      System.err.println(
          "streamplane up: unknown runtime '" + runtime + "' (process or simulated).");
      return 2;
    }
    for (int port : new int[] {kafkaPort, apiPort}) {
      if (!free(port)) {
        System.err.println(
            "streamplane up: port "
                + port
                + " on 127.0.0.1 is in use — is another 'streamplane up' running? (--kafka-port and"
                + " --api-port choose others)");
        return 1;
      }
    }
    Console console = new Console(System.out);
    ClusterPki pki = ClusterPki.loadOrCreate(pkiDir.toAbsolutePath(), Clock.systemUTC());
    console.line(
        "starting Kafka (KRaft, single node) on 127.0.0.1:" + kafkaPort + ", data in " + dataDir);
    EmbeddedKafkaBroker broker =
        EmbeddedKafkaBroker.builder(dataDir.toAbsolutePath()).port(kafkaPort).start();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread main = Thread.currentThread();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  main.interrupt();
                  try {
                    stopped.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "streamplane-shutdown"));
    try (broker) {
      console.line(
          "kafka: ready at "
              + broker.bootstrapServers()
              + " (cluster id "
              + broker.clusterId()
              + ") in "
              + broker.startupTime().toMillis()
              + " ms");
      TopicLayout layout = TopicLayout.singleBroker(cluster);
      try (Admin admin = Admin.create(broker.clientProperties())) {
        TopicInitializer initializer = new TopicInitializer(admin);
        // The schema catalog reads its topic, so that one comes first.
        TopicInitializer.Outcome schemasOutcome =
            initializer.ensure(List.of(Topics.schemasSpec(layout)));
        try (KafkaSchemaCatalog catalog =
            new KafkaSchemaCatalog(broker.bootstrapServers(), layout.topicName(Topics.SCHEMAS))) {
          Topics topics = new Topics(layout, catalog);
          List<TopicSpec> specs = topics.all();
          TopicInitializer.Outcome outcome = initializer.ensure(specs);
          int created = schemasOutcome.created().size() + outcome.created().size();
          console.line(
              "topics: "
                  + (specs.size() - created)
                  + " found, "
                  + created
                  + " created"
                  + (outcome.reconfigured().isEmpty()
                      ? ""
                      : ", reconfigured " + outcome.reconfigured()));
          LogStatus status = new LogStatus(admin, specs);
          Map<String, Long> records = status.recordOffsets();
          console.line("log end offsets: " + LogStatus.describe(records));
          try (AutoCloseable controllers =
                  withoutControllers
                      ? () -> {}
                      : ControllersApp.start(
                          topics,
                          nodeLifecycle.config(),
                          broker.bootstrapServers(),
                          stateDir.resolve("controllers").toAbsolutePath());
              AutoCloseable scheduling =
                  withoutScheduler ? () -> {} : startScheduling(topics, broker.bootstrapServers());
              StreamsApp store =
                  StoreApp.start(
                      topics,
                      broker.bootstrapServers(),
                      stateDir.resolve("store").toAbsolutePath());
              GatewayServer gateway =
                  GatewayServer.start(
                      broker.bootstrapServers(),
                      topics,
                      "127.0.0.1",
                      apiPort,
                      0,
                      stateDir.resolve("gateway-history").toAbsolutePath(),
                      GatewaySecurity.of(pki))) {
            console.line(
                "store"
                    + (withoutControllers ? "" : ", controllers")
                    + (withoutScheduler ? "" : ", scheduler and binder")
                    + ": started (Kafka Streams applications "
                    + StoreApp.applicationId(topics)
                    + (withoutControllers ? "" : ", " + ControllersApp.applicationId(topics))
                    + ")");
            gateway.ensureSystemNamespaces(SYSTEM);
            gateway.keepSystemNamespaces(SYSTEM, GatewayServer.SYSTEM_NAMESPACES_INTERVAL);
            console.line(
                "gateway: Kubernetes API at "
                    + gateway.url()
                    + ", metrics of every role at "
                    + gateway.url()
                    + "/metrics");
            try (AutoCloseable fleet =
                startNodes(gateway.url(), broker.bootstrapServers(), topics, pki)) {
              Kubeconfig.write(kubeconfig, gateway.url(), cluster, pki.admin());
              console.line(
                  "ready. Ctrl-C to stop. Use kubectl with:  export KUBECONFIG="
                      + kubeconfig.toAbsolutePath());
              runUntilInterrupted(console, status);
            }
          }
        }
      }
      console.line("stopping...");
    } finally {
      console.line("stopped.");
      stopped.countDown();
    }
    return 0;
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

  /**
   * The node workers of the local cluster: {@code --nodes} nodes named node-0..., their pod
   * directories under {@code <state-dir>/pods}.
   */
  private AutoCloseable startNodes(
      String apiServer, String bootstrapServers, Topics topics, ClusterPki pki) {
    if (nodes == 0) {
      return () -> {};
    }
    RuntimeChoice choice = RuntimeChoice.named(runtime).orElseThrow();
    return NodeFleet.start(
        apiServer,
        bootstrapServers,
        topics.bindings(),
        NodeFleet.numbered("node-", nodes, NodeOptions.defaults("node-0"), choice.loopback()),
        choice.factory(stateDir.resolve("pods")),
        choice.kubelet().withBackOffBase(crashLoopBackOff),
        new PkiNodeIdentities(pki));
  }

  private AutoCloseable startScheduling(Topics topics, String bootstrapServers) {
    StreamsApp binder =
        SchedulerApp.startBinder(
            topics, bootstrapServers, stateDir.resolve("binder").toAbsolutePath());
    StreamsApp scheduler =
        SchedulerApp.startScheduler(
            topics,
            SchedulerConfig.defaults(),
            "up",
            bootstrapServers,
            stateDir.resolve("scheduler").toAbsolutePath());
    return () -> {
      scheduler.close();
      binder.close();
    };
  }

  private void runUntilInterrupted(Console console, LogStatus status) {
    long started = System.nanoTime();
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(statusInterval.toMillis());
      } catch (InterruptedException e) {
        console.endStatus();
        return;
      }
      Duration up = Duration.ofNanos(System.nanoTime() - started);
      try {
        console.status(
            String.format(
                "● up %d:%02d:%02d · %s",
                up.toHours(),
                up.toMinutesPart(),
                up.toSecondsPart(),
                LogStatus.describe(status.recordOffsets())));
      } catch (RuntimeException e) {
        console.status("● up, but the broker does not answer: " + e.getMessage());
      }
    }
    console.endStatus();
  }
}
