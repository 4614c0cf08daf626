package io.streamplane.plane;

import io.streamplane.controller.ControllersApp;
import io.streamplane.controller.nodelifecycle.NodeLifecycleConfig;
import io.streamplane.gateway.admission.DefaultTolerationSeconds;
import io.streamplane.gateway.admission.ServiceAllocation;
import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.pki.CertificateAuthority;
import io.streamplane.gateway.server.AdmissionSettings;
import io.streamplane.gateway.server.GatewaySecurity;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.kafka.KafkaClientSettings;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.log.UserInfo;
import io.streamplane.network.ClusterNetwork;
import io.streamplane.node.KubeletConfig;
import io.streamplane.node.NodeFleet;
import io.streamplane.node.NodeIdentities;
import io.streamplane.node.NodeOptions;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.scheduler.SchedulerApp;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.store.StoreApp;
import io.streamplane.streams.StreamsApp;
import io.streamplane.topics.HangingTransactions;
import io.streamplane.topics.TopicInitializer;
import io.streamplane.topics.TopicLayout;
import io.streamplane.topics.TopicSpec;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;

/**
 * A Streamplane control plane in this JVM, wired one way for everyone: {@code streamplane up}, the
 * benchmarks and the integration tests of a whole plane. {@link #builder} chooses the broker (an
 * embedded KRaft broker, or any Kafka cluster's bootstrap servers), the topic layout, the roles and
 * where their state lives; {@link Builder#start} then starts, in this order:
 *
 * <ol>
 *   <li>the embedded broker, if one was asked for;
 *   <li>the topics ({@code schemas} first, as the catalog reads it), created or checked;
 *   <li>the controllers, the binder and the scheduler, the store — the apps a write needs last;
 *   <li>the gateway, which creates the system namespaces and keeps them;
 *   <li>the node fleet, which registers through the gateway.
 * </ol>
 *
 * A {@link Progress} hears of each step, so that a console can report them as they happen. If a
 * step fails, what started is stopped again before the exception propagates. {@link #close} stops
 * everything in reverse order.
 *
 * <p>The processes of a distributed cluster ({@code streamplane gateway}, {@code store}, ...) each
 * start one role themselves; this class is for one process holding several.
 */
public final class ControlPlane implements AutoCloseable {

  /** The identity the gateway creates the system namespaces as. */
  public static final UserInfo SYSTEM =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters"))
          .build();

  /** What a console wants to hear while a plane starts; every method does nothing by default. */
  public interface Progress {
    /** Before the embedded broker starts. */
    default void brokerStarting(Path dataDir, int port) {}

    /** The embedded broker answers. */
    default void brokerStarted(EmbeddedKafkaBroker broker) {}

    /** The topics are there: {@code created} of {@code specs} were created now. */
    default void topicsReady(
        List<TopicSpec> specs, List<String> created, List<String> reconfigured, Admin admin) {}

    /** Transactions left open on partitions, that their coordinator no longer tracked, aborted. */
    default void hangingTransactionsAborted(List<HangingTransactions.OpenTransaction> aborted) {}

    /** The brokers did not answer what the search for hanging transactions asked them. */
    default void hangingTransactionsUnchecked(Throwable why) {}

    /** The Streams apps (store, and the controllers and scheduling when asked for) started. */
    default void appsStarted(ControlPlane plane) {}

    /** The gateway serves (and has created the system namespaces, unless told not to). */
    default void gatewayStarted(GatewayServer gateway) {}

    /** The service proxy and the cluster DNS serve, and kube-dns points at the DNS server. */
    default void networkStarted(ClusterNetwork network) {}
  }

  /** What the gateway does about the system namespaces (default, kube-system, ...). */
  public enum SystemNamespaces {
    /** Nothing: a test that counts namespaces sees only its own. */
    NONE,
    /** Creates them once the gateway serves. */
    CREATE,
    /**
     * Creates them, and again whenever one was deleted, and keeps Kubernetes' default RBAC policy
     * (kube-apiserver's behaviour).
     */
    KEEP
  }

  /** A node fleet to run: its nodes, their runtime and kubelet settings. */
  public record Nodes(
      List<NodeOptions> nodes,
      Function<ScheduledExecutorService, PodRuntime> runtime,
      KubeletConfig kubelet,
      NodeIdentities identities) {

    /** Nodes without identities, speaking plain HTTP to a gateway without authentication. */
    public Nodes(
        List<NodeOptions> nodes,
        Function<ScheduledExecutorService, PodRuntime> runtime,
        KubeletConfig kubelet) {
      this(nodes, runtime, kubelet, NodeIdentities.none());
    }
  }

  private final List<AutoCloseable> running = new ArrayList<>();
  private EmbeddedKafkaBroker broker;
  private String bootstrapServers;
  private Admin admin;
  private Topics topics;
  private GatewayServer gateway;

  private ControlPlane() {}

  public static Builder builder() {
    return new Builder();
  }

  /** The embedded broker; null when the plane runs against bootstrap servers. */
  public EmbeddedKafkaBroker broker() {
    return broker;
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** An admin client of the plane's Kafka, open while the plane runs. */
  public Admin admin() {
    return admin;
  }

  public Topics topics() {
    return topics;
  }

  /** The gateway; null when the plane has none. */
  public GatewayServer gateway() {
    return gateway;
  }

  /** The Kubernetes API's URL; the plane must have a gateway. */
  public String apiServer() {
    return Objects.requireNonNull(gateway, "this control plane has no gateway").url();
  }

  /**
   * Stops what runs in the reverse order of its start. The Streams apps, started one after another,
   * stop together: each waits for its threads to end their transaction and leave the group, which
   * takes each the same time whether the others have stopped or not.
   */
  @Override
  public void close() {
    List<Exception> failures = new ArrayList<>();
    int last = running.size() - 1;
    while (last >= 0) {
      int first = last;
      while (first > 0
          && running.get(last) instanceof StreamsApp
          && running.get(first - 1) instanceof StreamsApp) {
        first--;
      }
      failures.addAll(closeTogether(running.subList(first, last + 1)));
      last = first - 1;
    }
    running.clear();
    if (!failures.isEmpty()) {
      IllegalStateException failure =
          new IllegalStateException("stopping the control plane", failures.get(0));
      failures.subList(1, failures.size()).forEach(failure::addSuppressed);
      throw failure;
    }
  }

  private static List<Exception> closeTogether(List<AutoCloseable> closeables) {
    List<Exception> failures = Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    for (AutoCloseable closeable : closeables) {
      Runnable close =
          () -> {
            try {
              closeable.close();
            } catch (Exception e) {
              failures.add(e);
            }
          };
      if (closeables.size() == 1) {
        close.run();
      } else {
        Thread thread = new Thread(close, "control-plane-stop-" + threads.size());
        thread.start();
        threads.add(thread);
      }
    }
    for (Thread thread : threads) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failures.add(e);
      }
    }
    return failures;
  }

  /** The options of a plane; each setter returns the builder. */
  public static final class Builder {
    private Path brokerDataDir;
    private int brokerPort;
    private String bootstrapServers;
    private TopicLayout layout = TopicLayout.singleBroker(TopicLayout.DEFAULT_CLUSTER);
    private Path stateDir;
    private boolean store = true;
    private NodeLifecycleConfig controllers;
    private SchedulerConfig schedulerConfig;
    private String schedulerName;
    private boolean binder;
    private boolean gatewayEnabled;
    private String gatewayHost = "127.0.0.1";
    private int gatewayPort;
    private int resultsPartition;
    private Path historyDir;
    private SystemNamespaces systemNamespaces = SystemNamespaces.KEEP;
    private AuditPolicy auditPolicy = AuditPolicy.defaultPolicy();
    private GatewaySecurity security;
    private CertificateAuthority clusterSigning;
    private Nodes nodes;
    private ClusterNetwork.Config network;
    private String serviceRange = ServiceAllocation.DEFAULT_RANGE;
    private Progress progress = new Progress() {};

    private Builder() {}

    /**
     * An embedded single-node KRaft broker on {@code dataDir} (kept across restarts) and {@code
     * port} of 127.0.0.1; null for a temporary directory, 0 for a free port.
     */
    public Builder embeddedBroker(Path dataDir, int port) {
      this.brokerDataDir = dataDir;
      this.brokerPort = port;
      this.bootstrapServers = null;
      return this;
    }

    /** An embedded broker on a temporary directory and a free port. */
    public Builder embeddedBroker() {
      return embeddedBroker(null, 0);
    }

    /** Any Kafka cluster, instead of an embedded broker. */
    public Builder bootstrapServers(String bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
      this.brokerDataDir = null;
      this.brokerPort = -1;
      return this;
    }

    /** The topics' names and partitioning (default: {@link TopicLayout#singleBroker} "sp"). */
    public Builder layout(TopicLayout layout) {
      this.layout = layout;
      return this;
    }

    /** Where the Streams apps keep their RocksDB state, one directory per app under it. */
    public Builder stateDir(Path stateDir) {
      this.stateDir = stateDir.toAbsolutePath();
      return this;
    }

    /** Whether to run the store (default: yes). */
    public Builder store(boolean store) {
      this.store = store;
      return this;
    }

    /** Runs the controllers with the node lifecycle controller's {@code config}. */
    public Builder controllers(NodeLifecycleConfig config) {
      this.controllers = config;
      return this;
    }

    /** Runs a binder and a scheduler with {@code config}, its instance named {@code name}. */
    public Builder scheduling(SchedulerConfig config, String name) {
      this.schedulerConfig = config;
      this.schedulerName = name;
      this.binder = true;
      return this;
    }

    /**
     * Runs a gateway on {@code host:port} (0: a free port) reading {@code resultsPartition}, its
     * history index in {@code historyDir} (null: a temporary directory, deleted on close).
     */
    public Builder gateway(String host, int port, int resultsPartition, Path historyDir) {
      this.gatewayEnabled = true;
      this.gatewayHost = host;
      this.gatewayPort = port;
      this.resultsPartition = resultsPartition;
      this.historyDir = historyDir == null ? null : historyDir.toAbsolutePath();
      return this;
    }

    /** A gateway on a free port of 127.0.0.1 with a temporary history index. */
    public Builder gateway() {
      return gateway("127.0.0.1", 0, 0, null);
    }

    /** What the gateway does about the system namespaces (default: {@code KEEP}). */
    public Builder systemNamespaces(SystemNamespaces systemNamespaces) {
      this.systemNamespaces = systemNamespaces;
      return this;
    }

    /**
     * The host's service proxy and cluster DNS ({@link ClusterNetwork}), started after the gateway,
     * which then points the {@code kube-dns} Service at the DNS server.
     */
    public Builder network(ClusterNetwork.Config network) {
      this.network = network;
      return this;
    }

    /** The range cluster IPs come from (kube-apiserver's {@code --service-cluster-ip-range}). */
    public Builder serviceRange(String range) {
      ServiceAllocation.checkRange(range);
      this.serviceRange = range;
      return this;
    }

    /** Runs a node fleet against the gateway (which this plane must then have). */
    public Builder nodes(Nodes nodes) {
      this.nodes = nodes;
      return this;
    }

    /** Hears of each step as the plane starts. */
    public Builder progress(Progress progress) {
      this.progress = progress;
      return this;
    }

    /**
     * How the gateway secures its API (default: none, every request the admin over plain HTTP;
     * needs a history directory).
     */
    public Builder security(GatewaySecurity security) {
      this.security = Objects.requireNonNull(security);
      return this;
    }

    /**
     * The CA with which the gateway signs approved CertificateSigningRequests of the signer {@code
     * kubernetes.io/kube-apiserver-client} (default: none, they stay unsigned).
     */
    public Builder clusterSigning(CertificateAuthority ca) {
      this.clusterSigning = Objects.requireNonNull(ca);
      return this;
    }

    /** How the gateway audits its requests (default: the default policy). */
    public Builder auditPolicy(AuditPolicy auditPolicy) {
      this.auditPolicy = Objects.requireNonNull(auditPolicy);
      return this;
    }

    /** The gateway's admission settings: the toleration seconds below and the service range. */
    private AdmissionSettings admissionSettings() {
      return new AdmissionSettings(defaultTolerationSeconds(), serviceRange);
    }

    /**
     * What the gateway's DefaultTolerationSeconds plugin gives pods: the controllers' configured
     * default, so that pods (all of which pass admission, the controllers' too) are evicted when
     * the node lifecycle controller is told; kube-apiserver's 300 s without controllers here.
     */
    private long defaultTolerationSeconds() {
      return controllers != null
          ? controllers.defaultTolerationSeconds()
          : DefaultTolerationSeconds.KUBERNETES_DEFAULT;
    }

    /** Starts the plane; on failure, stops what started and rethrows. */
    public ControlPlane start() throws Exception {
      if ((store || controllers != null || schedulerConfig != null) && stateDir == null) {
        throw new IllegalStateException("a control plane running Streams apps needs a stateDir");
      }
      if (nodes != null && !gatewayEnabled) {
        throw new IllegalStateException("nodes register through the gateway: add one");
      }
      ControlPlane plane = new ControlPlane();
      try {
        startAll(plane);
        return plane;
      } catch (Exception | Error e) {
        try {
          plane.close();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }

    private void startAll(ControlPlane plane) throws Exception {
      if (bootstrapServers == null) {
        progress.brokerStarting(brokerDataDir, brokerPort);
        EmbeddedKafkaBroker.Builder builder =
            brokerDataDir == null
                ? EmbeddedKafkaBroker.temporaryBuilder()
                : EmbeddedKafkaBroker.builder(brokerDataDir.toAbsolutePath());
        if (brokerPort != 0) {
          builder.port(brokerPort);
        }
        plane.broker = builder.start();
        plane.running.add(plane.broker);
        plane.bootstrapServers = plane.broker.bootstrapServers();
        plane.admin = Admin.create(plane.broker.clientProperties());
        progress.brokerStarted(plane.broker);
      } else {
        plane.bootstrapServers = bootstrapServers;
        plane.admin = Admin.create(KafkaClientSettings.clientConfig(bootstrapServers));
      }
      plane.running.add(plane.admin);
      String bootstrap = plane.bootstrapServers;

      TopicInitializer initializer = new TopicInitializer(plane.admin);
      // The schema catalog reads its topic, so that one comes first.
      TopicInitializer.Outcome schemasOutcome =
          initializer.ensure(List.of(Topics.schemasSpec(layout)));
      KafkaSchemaCatalog catalog =
          new KafkaSchemaCatalog(bootstrap, layout.topicName(Topics.SCHEMAS));
      plane.running.add(catalog);
      plane.topics = new Topics(layout, catalog);
      List<TopicSpec> specs = plane.topics.all();
      TopicInitializer.Outcome outcome = initializer.ensure(specs);
      List<String> created = new ArrayList<>(schemasOutcome.created());
      created.addAll(outcome.created());
      progress.topicsReady(specs, created, outcome.reconfigured(), plane.admin);
      // Before any app reads: a transaction no coordinator will ever close holds back its readers
      // and its group's offsets for good (see HangingTransactions). A cluster whose ACLs do not
      // let this client look (or abort) starts all the same.
      try {
        List<HangingTransactions.OpenTransaction> aborted =
            HangingTransactions.abortAll(plane.admin, layout);
        if (!aborted.isEmpty()) {
          progress.hangingTransactionsAborted(aborted);
        }
      } catch (ExecutionException e) {
        progress.hangingTransactionsUnchecked(e.getCause());
      } catch (TimeoutException e) {
        progress.hangingTransactionsUnchecked(e);
      }

      Topics topics = plane.topics;
      if (controllers != null) {
        plane.running.add(
            ControllersApp.start(topics, controllers, bootstrap, stateDir.resolve("controllers")));
      }
      if (schedulerConfig != null) {
        StreamsApp binderApp =
            SchedulerApp.startBinder(topics, bootstrap, stateDir.resolve("binder"));
        plane.running.add(binderApp);
        plane.running.add(
            SchedulerApp.startScheduler(
                topics, schedulerConfig, schedulerName, bootstrap, stateDir.resolve("scheduler")));
      }
      if (store) {
        plane.running.add(StoreApp.start(topics, bootstrap, stateDir.resolve("store")));
      }
      progress.appsStarted(plane);

      if (gatewayEnabled) {
        plane.gateway =
            historyDir == null
                ? GatewayServer.start(bootstrap, topics, gatewayHost, gatewayPort, resultsPartition)
                : security == null
                    ? GatewayServer.start(
                        bootstrap,
                        topics,
                        gatewayHost,
                        gatewayPort,
                        resultsPartition,
                        historyDir,
                        auditPolicy,
                        admissionSettings())
                    : GatewayServer.start(
                        bootstrap,
                        topics,
                        gatewayHost,
                        gatewayPort,
                        resultsPartition,
                        historyDir,
                        security,
                        auditPolicy,
                        admissionSettings());
        plane.running.add(plane.gateway);
        if (clusterSigning != null) {
          plane.gateway.signCertificates(clusterSigning);
        }
        if (systemNamespaces != SystemNamespaces.NONE) {
          plane.gateway.ensureSystemNamespaces(SYSTEM);
        }
        if (systemNamespaces == SystemNamespaces.KEEP) {
          plane.gateway.keepSystemNamespaces(SYSTEM, GatewayServer.SYSTEM_NAMESPACES_INTERVAL);
          // Ready means ready: the defaults are in place, and authorized by, before start returns.
          plane.gateway.ensureDefaults(SYSTEM, Duration.ofSeconds(60));
          Map<String, String> failing = plane.gateway.awaitReady(Duration.ofSeconds(60));
          if (!failing.isEmpty()) {
            throw new IllegalStateException("the gateway is not ready after 60 s: " + failing);
          }
          plane.gateway.keepBootstrapPolicy(
              SYSTEM,
              GatewayServer.BOOTSTRAP_POLICY_INTERVAL,
              GatewayServer.BOOTSTRAP_POLICY_INTERVAL);
        }
        progress.gatewayStarted(plane.gateway);
      }
      if (network != null) {
        ClusterNetwork started = ClusterNetwork.start(bootstrap, topics, network);
        plane.running.add(started);
        if (plane.gateway != null) {
          plane.gateway.ensureClusterDns(SYSTEM, started.dnsAddress());
        }
        progress.networkStarted(started);
      }
      if (nodes != null && !nodes.nodes().isEmpty()) {
        plane.running.add(
            NodeFleet.start(
                plane.gateway.url(),
                bootstrap,
                topics.bindings(),
                nodes.nodes(),
                nodes.runtime(),
                nodes.kubelet(),
                nodes.identities()));
      }
    }
  }
}
