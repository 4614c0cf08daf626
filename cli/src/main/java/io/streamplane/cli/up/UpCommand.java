package io.streamplane.cli.up;

import io.streamplane.cli.roles.AuditPolicyOption;
import io.streamplane.cli.roles.NodeLifecycleOptions;
import io.streamplane.cli.roles.NodeRuntimeOptions;
import io.streamplane.controller.ControllersApp;
import io.streamplane.gateway.admission.ServiceAllocation;
import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.gateway.server.GatewaySecurity;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.network.ClusterNetwork;
import io.streamplane.node.NodeFleet;
import io.streamplane.node.RuntimeChoice;
import io.streamplane.plane.ControlPlane;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.store.StoreApp;
import io.streamplane.topics.HangingTransactions;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.TopicSpec;
import io.streamplane.topics.Topics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
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
 * <p>The cluster is the broker, its topics, the store, the controllers, a scheduler and a binder, a
 * gateway serving the Kubernetes API (with a kubeconfig for kubectl) and a fleet of nodes, wired by
 * {@link ControlPlane}; the nodes take the options of {@code streamplane nodes} ({@link
 * NodeRuntimeOptions}) but run real processes by default.
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = "Run the all-in-one local cluster in the foreground (Ctrl-C stops it).")
public final class UpCommand implements Callable<Integer> {

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

  @Mixin AuditPolicyOption audit;

  @Option(
      names = "--no-scheduler",
      description = "Do not run a scheduler and binder here: run 'streamplane scheduler' instead.")
  boolean withoutScheduler;

  @Option(
      names = "--service-cidr",
      defaultValue = ServiceAllocation.DEFAULT_RANGE,
      description =
          "The range cluster IPs come from, IPv4, mask 12 to 29: the kubernetes Service holds its"
              + " first address, kube-dns its tenth (default: ${DEFAULT-VALUE}, loopback addresses"
              + " pod IPs never use).")
  String serviceCidr;

  @Option(
      names = "--no-proxy",
      description =
          "Do not run the service proxy and cluster DNS here: run 'streamplane proxy' instead"
              + " (one per host).")
  boolean withoutProxy;

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

  @Mixin NodeRuntimeOptions node;

  @Option(
      names = "--cluster",
      defaultValue = TopicLayout.DEFAULT_CLUSTER,
      description = "Cluster name, the prefix of every topic (default: ${DEFAULT-VALUE}).")
  String cluster;

  @Option(
      names = "--storage-capacity",
      defaultValue = "10Gi",
      description =
          "The storage each node's host-path CSI driver gives out, under the state directory"
              + " (process runtime; default: ${DEFAULT-VALUE}).")
  String storageCapacity;

  @Option(
      names = "--status-interval",
      defaultValue = "PT5S",
      description = "How often the status line refreshes, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration statusInterval;

  @Override
  public Integer call() throws Exception {
    String refusal = NodeRuntimeOptions.refusal("up", runtime);
    if (refusal != null) {
      System.err.println(refusal);
      return 2;
    }
    AuditPolicy auditPolicy;
    try {
      auditPolicy = audit.policy();
    } catch (IllegalArgumentException e) {
      System.err.println("streamplane up: " + e.getMessage());
      return 2;
    }
    try {
      ServiceAllocation.checkRange(serviceCidr);
    } catch (IllegalArgumentException e) {
      System.err.println("streamplane up: --service-cidr: " + e.getMessage());
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
    ClusterPki pki;
    try {
      pki = ClusterPki.loadOrCreate(pkiDir.toAbsolutePath(), Clock.systemUTC(), serviceCidr);
    } catch (java.io.UncheckedIOException e) {
      System.err.println("streamplane up: --pki-dir: " + e.getMessage());
      return 1;
    }
    ConsoleProgress progress = new ConsoleProgress(console);
    ControlPlane.Builder builder =
        ControlPlane.builder()
            .embeddedBroker(dataDir.toAbsolutePath(), kafkaPort)
            .layout(TopicLayout.singleBroker(cluster))
            .stateDir(stateDir)
            .gateway("127.0.0.1", apiPort, 0, stateDir.resolve("gateway-history"))
            .security(GatewaySecurity.of(pki))
            .clusterSigning(pki.ca())
            .auditPolicy(auditPolicy)
            .serviceRange(serviceCidr)
            .progress(progress);
    if (!withoutControllers) {
      builder.controllers(nodeLifecycle.config());
    }
    if (!withoutScheduler) {
      builder.scheduling(SchedulerConfig.defaults(), "up");
    }
    if (!withoutProxy) {
      builder.network(ClusterNetwork.Config.defaults());
    }
    if (nodes > 0) {
      RuntimeChoice choice = RuntimeChoice.named(runtime).orElseThrow();
      builder.nodes(
          new ControlPlane.Nodes(
              NodeFleet.numbered(
                  "node-", nodes, node.template(choice, "node-0"), choice.loopback()),
              node.factory(choice, stateDir.resolve("pods")),
              node.kubelet(choice)
                  .withClusterDns(
                      ServiceAllocation.clusterDnsAddress(serviceCidr), "cluster.local"),
              new PkiNodeIdentities(pki)));
    }
    // Installed last: once it is, nothing may fail before the try whose finally releases it, or a
    // failing start would leave the JVM's exit waiting on the hook forever.
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
    HostPathStorage storage = null;
    try (ControlPlane plane = builder.start()) {
      Kubeconfig.write(kubeconfig, plane.apiServer(), cluster, pki.admin());
      if (nodes > 0 && RuntimeChoice.named(runtime).orElseThrow() == RuntimeChoice.PROCESS) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
          names.add("node-" + i);
        }
        storage =
            HostPathStorage.start(
                stateDir.resolve("csi").toAbsolutePath(),
                node.root(stateDir.resolve("pods")),
                names,
                plane.apiServer(),
                cluster,
                pki,
                storageCapacity);
        console.line(
            "storage: CSI driver hostpath.csi.streamplane.io on "
                + nodes
                + " node(s), "
                + storageCapacity
                + " each; default StorageClass "
                + HostPathStorage.STORAGE_CLASS);
      }
      console.line(
          "ready. Ctrl-C to stop. Use kubectl with:  export KUBECONFIG="
              + kubeconfig.toAbsolutePath());
      runUntilInterrupted(console, progress.status);
      console.line("stopping...");
    } finally {
      if (storage != null) {
        storage.close();
      }
      console.line("stopped.");
      stopped.countDown();
    }
    return 0;
  }

  /** The console lines of each step, as the plane starts. */
  private final class ConsoleProgress implements ControlPlane.Progress {
    private final Console console;
    private LogStatus status;

    ConsoleProgress(Console console) {
      this.console = console;
    }

    @Override
    public void brokerStarting(Path dir, int port) {
      console.line("starting Kafka (KRaft, single node) on 127.0.0.1:" + port + ", data in " + dir);
    }

    @Override
    public void brokerStarted(EmbeddedKafkaBroker broker) {
      console.line(
          "kafka: ready at "
              + broker.bootstrapServers()
              + " (cluster id "
              + broker.clusterId()
              + ") in "
              + broker.startupTime().toMillis()
              + " ms");
    }

    @Override
    public void topicsReady(
        List<TopicSpec> specs, List<String> created, List<String> reconfigured, Admin admin) {
      console.line(
          "topics: "
              + (specs.size() - created.size())
              + " found, "
              + created.size()
              + " created"
              + (reconfigured.isEmpty() ? "" : ", reconfigured " + reconfigured));
      status = new LogStatus(admin, specs);
      console.line("log end offsets: " + LogStatus.describe(status.recordOffsets()));
    }

    @Override
    public void hangingTransactionsAborted(List<HangingTransactions.OpenTransaction> aborted) {
      console.line(
          "kafka: aborted "
              + aborted.size()
              + " transactions that no coordinator tracked any more, left open by the last run on "
              + aborted.stream()
                  .map(t -> t.partition().toString())
                  .sorted()
                  .collect(Collectors.joining(", ")));
    }

    @Override
    public void hangingTransactionsUnchecked(Throwable why) {
      console.line("kafka: could not look for transactions left open by the last run: " + why);
    }

    @Override
    public void appsStarted(ControlPlane plane) {
      Topics topics = plane.topics();
      console.line(
          "store"
              + (withoutControllers ? "" : ", controllers")
              + (withoutScheduler ? "" : ", scheduler and binder")
              + ": started (Kafka Streams applications "
              + StoreApp.applicationId(topics)
              + (withoutControllers ? "" : ", " + ControllersApp.applicationId(topics))
              + ")");
    }

    @Override
    public void gatewayStarted(GatewayServer gateway) {
      console.line(
          "gateway: Kubernetes API at "
              + gateway.url()
              + ", metrics of every role at "
              + gateway.url()
              + "/metrics");
    }

    @Override
    public void networkStarted(ClusterNetwork network) {
      console.line(
          "proxy: Services at their cluster IPs and node ports; cluster DNS at "
              + network.dnsAddress().getHostString()
              + ":"
              + network.dnsAddress().getPort()
              + " (kube-dns, "
              + ServiceAllocation.clusterDnsAddress(serviceCidr)
              + ":53)");
    }
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
