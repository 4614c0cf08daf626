package io.streamplane.kafka.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.properties.MetaPropertiesEnsemble;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * A real single-node Kafka 4.1 cluster — one KRaft process acting as both broker and controller —
 * running inside the current JVM.
 *
 * <p>It serves two purposes: the {@code streamplane up} launcher runs it on a persistent data
 * directory, and {@code *IT} tests run it on a temporary one (see {@link KafkaBrokerExtension}).
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>The data directory is formatted exactly once, the first time it is used (when it holds no
 *       {@code meta.properties}); afterwards the same directory is reopened, so topics, records,
 *       committed offsets and the cluster id survive a {@link #close()} and a new {@link
 *       #start(Path)}.
 *   <li>The static methods return only once the node is serving: its startup completed and an admin
 *       client could describe the cluster. Otherwise they throw {@link EmbeddedKafkaStartException}
 *       within the startup timeout and leave nothing running.
 *   <li>Both listeners bind to 127.0.0.1 only. The client port is the one asked for, or a free one
 *       picked at each start (so it may change across restarts: always read {@link
 *       #bootstrapServers()}). The controller port is always picked freely; the quorum is a static
 *       one-voter quorum whose address lives only in the configuration, not in the data.
 *   <li>Settings are those a single node needs: replication factor 1 everywhere (including the
 *       offsets and transaction-state topics, so transactions and exactly-once Streams work), no
 *       automatic topic creation, no initial rebalance delay, few threads and small buffers.
 *       Callers can override any of them with {@link Builder#brokerProperty(String, String)}.
 *   <li>{@link #close()} shuts the node down and waits for it, after which the same data directory
 *       can be started again, in this JVM or another one.
 * </ul>
 *
 * <p>Limits: a single node, so no fault tolerance; plaintext, unauthenticated listeners unless the
 * caller configures the client listener {@link #BROKER_LISTENER} otherwise (for example SASL, with
 * {@link Builder#brokerProperty} and the matching {@link Builder#clientProperties}); Kafka's
 * fatal-fault handlers (for example on a corrupted metadata log) halt the whole JVM, as they would
 * a standalone broker; the server logs through SLF4J, and this module brings no logging backend; a
 * port picked as free can be taken by another process before the node binds it (the start is then
 * retried with new ports, a few times, when the ports were not fixed by the caller).
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

  /** The node id of the only node; also its voter id in the controller quorum. */
  public static final int NODE_ID = 1;

  /**
   * The name of the listener clients connect to, for its {@code listener.name.broker.*} broker
   * properties.
   */
  public static final String BROKER_LISTENER = "BROKER";

  private static final String HOST = "127.0.0.1";
  private static final String CONTROLLER_LISTENER = "CONTROLLER";
  private static final int BIND_ATTEMPTS = 3;

  private final KafkaRaftServer server;
  private final Path dataDir;
  private final boolean deleteDataDirOnClose;
  private final String clusterId;
  private final int port;
  private final Duration startupTime;
  private final Map<String, String> clientSettings;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EmbeddedKafkaBroker(
      KafkaRaftServer server,
      Path dataDir,
      boolean deleteDataDirOnClose,
      String clusterId,
      int port,
      Duration startupTime,
      Map<String, String> clientSettings) {
    this.server = server;
    this.dataDir = dataDir;
    this.deleteDataDirOnClose = deleteDataDirOnClose;
    this.clusterId = clusterId;
    this.port = port;
    this.startupTime = startupTime;
    this.clientSettings = clientSettings;
  }

  /** Starts a node on {@code dataDir} (created and formatted if new) with default settings. */
  public static EmbeddedKafkaBroker start(Path dataDir) {
    return builder(dataDir).start();
  }

  /** Starts a node on a new temporary directory that {@link #close()} deletes. */
  public static EmbeddedKafkaBroker startTemporary() {
    return temporaryBuilder().start();
  }

  /** A builder for a node on {@code dataDir}, kept after close. */
  public static Builder builder(Path dataDir) {
    return new Builder(Objects.requireNonNull(dataDir, "dataDir"), false);
  }

  /** A builder for a node on a new temporary directory, deleted on close. */
  public static Builder temporaryBuilder() {
    try {
      return new Builder(Files.createTempDirectory("streamplane-kafka-"), true);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a temporary Kafka data directory", e);
    }
  }

  /** The address clients bootstrap from, {@code 127.0.0.1:PORT}. */
  public String bootstrapServers() {
    return HOST + ":" + port;
  }

  /** The client listener's port. */
  public int port() {
    return port;
  }

  /** The cluster id, written at format time and stable across restarts on the same directory. */
  public String clusterId() {
    return clusterId;
  }

  /** The directory holding {@code meta.properties}, the metadata log and all topic data. */
  public Path dataDir() {
    return dataDir;
  }

  /** How long this start took, from the call to the node answering an admin client. */
  public Duration startupTime() {
    return startupTime;
  }

  /**
   * Minimal client configuration pointing at this node, with the {@link Builder#clientProperties}
   * it was started with; callers add serializers, ids, etc.
   */
  public Map<String, Object> clientProperties() {
    Map<String, Object> config = new LinkedHashMap<>(clientSettings);
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    return Map.copyOf(config);
  }

  /**
   * Shuts the node down and waits until it has stopped. Idempotent. A temporary data directory is
   * then deleted.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      server.shutdown();
      server.awaitShutdown();
    } finally {
      if (deleteDataDirOnClose) {
        deleteRecursively(dataDir);
      }
    }
  }

  @Override
  public String toString() {
    return "EmbeddedKafkaBroker{" + bootstrapServers() + ", dataDir=" + dataDir + "}";
  }

  /** Configures and starts one node. */
  public static final class Builder {
    private final Path dataDir;
    private final boolean deleteDataDirOnClose;
    private final Map<String, String> extraProperties = new LinkedHashMap<>();
    private final Map<String, String> clientSettings = new LinkedHashMap<>();
    private int port = 0;
    private Duration startupTimeout = Duration.ofSeconds(60);

    private Builder(Path dataDir, boolean deleteDataDirOnClose) {
      this.dataDir = dataDir.toAbsolutePath();
      this.deleteDataDirOnClose = deleteDataDirOnClose;
    }

    /** The client listener's port; 0 (the default) picks a free one at each start. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
      this.port = port;
      return this;
    }

    /** Sets or overrides one broker configuration property. */
    public Builder brokerProperty(String name, String value) {
      extraProperties.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
      return this;
    }

    /** Sets or overrides broker configuration properties. */
    public Builder brokerProperties(Map<String, String> properties) {
      properties.forEach(this::brokerProperty);
      return this;
    }

    /**
     * Kafka client settings a client needs for the client listener as configured with {@link
     * #brokerProperty} (for example {@code security.protocol}, {@code sasl.*}): the start's own
     * readiness check uses them, and {@link EmbeddedKafkaBroker#clientProperties()} returns them.
     */
    public Builder clientProperties(Map<String, String> settings) {
      settings.forEach(
          (name, value) ->
              clientSettings.put(Objects.requireNonNull(name), Objects.requireNonNull(value)));
      return this;
    }

    /** How long {@link #start()} may take before it gives up; 60 s by default. */
    public Builder startupTimeout(Duration startupTimeout) {
      this.startupTimeout = Objects.requireNonNull(startupTimeout);
      return this;
    }

    /**
     * Formats the data directory if it is new, starts the node and waits until it serves.
     *
     * @throws EmbeddedKafkaStartException if the node cannot be started within the timeout
     */
    public EmbeddedKafkaBroker start() {
      long startedAt = System.nanoTime();
      try {
        String clusterId = formatOnce(dataDir);
        for (int attempt = 1; ; attempt++) {
          int brokerPort = port != 0 ? port : freePort(-1);
          int controllerPort = freePort(brokerPort);
          try {
            KafkaRaftServer server =
                startServer(brokerProperties(brokerPort, controllerPort), startedAt);
            return new EmbeddedKafkaBroker(
                server,
                dataDir,
                deleteDataDirOnClose,
                clusterId,
                brokerPort,
                Duration.ofNanos(System.nanoTime() - startedAt),
                Map.copyOf(clientSettings));
          } catch (EmbeddedKafkaStartException e) {
            // A freely picked port may have been taken between the pick and the bind.
            if (attempt >= BIND_ATTEMPTS || !causedByBindFailure(e)) {
              throw e;
            }
          }
        }
      } catch (RuntimeException e) {
        if (deleteDataDirOnClose) {
          deleteRecursively(dataDir);
        }
        throw e;
      }
    }

    private Properties brokerProperties(int brokerPort, int controllerPort) {
      Properties props = new Properties();
      props.put("process.roles", "broker,controller");
      props.put("node.id", String.valueOf(NODE_ID));
      props.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
      props.put(
          "listeners",
          BROKER_LISTENER
              + "://"
              + HOST
              + ":"
              + brokerPort
              + ","
              + CONTROLLER_LISTENER
              + "://"
              + HOST
              + ":"
              + controllerPort);
      props.put("advertised.listeners", BROKER_LISTENER + "://" + HOST + ":" + brokerPort);
      props.put(
          "listener.security.protocol.map",
          BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
      props.put("inter.broker.listener.name", BROKER_LISTENER);
      props.put("controller.listener.names", CONTROLLER_LISTENER);
      props.put("log.dirs", dataDir.toString());

      // One node: every internal topic must be satisfiable by a single replica.
      props.put("default.replication.factor", "1");
      props.put("min.insync.replicas", "1");
      props.put("offsets.topic.replication.factor", "1");
      props.put("transaction.state.log.replication.factor", "1");
      props.put("transaction.state.log.min.isr", "1");
      props.put("share.coordinator.state.topic.replication.factor", "1");
      props.put("share.coordinator.state.topic.min.isr", "1");
      // Fewer coordinator partitions make the first group join and first transaction faster.
      props.put("offsets.topic.num.partitions", "5");
      props.put("transaction.state.log.num.partitions", "5");
      props.put("group.initial.rebalance.delay.ms", "0");
      props.put("auto.create.topics.enable", "false");
      // A producer killed mid-transaction holds back every read_committed reader of the partitions
      // it wrote, and every committed-offset fetch of its group, until its transaction is aborted:
      // by its successor's fencing, or once it times out. The coordinator looks for timed-out
      // transactions every second instead of every 10 s.
      props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
      // The controller restarts with its only broker, yet holds the registration it read from the
      // metadata log to be alive for a whole session and refuses the new one as a duplicate until
      // that session ends: after a kill -9, 9 of the 12 s the broker took to start. A single node
      // cannot have a live twin, so its session is short; heartbeats are sent every second.
      props.put("broker.session.timeout.ms", "4000");
      props.put("broker.heartbeat.interval.ms", "1000");

      // A 2-core machine shares the JVM with the applications under test.
      props.put("num.network.threads", "2");
      props.put("num.io.threads", "4");
      props.put("background.threads", "2");
      props.put("num.recovery.threads.per.data.dir", "1");
      props.put("num.replica.fetchers", "1");
      props.put("log.cleaner.threads", "1");
      // Kafka requires more than 1 MiB per cleaner thread; the default is 128 MiB.
      props.put("log.cleaner.dedupe.buffer.size", String.valueOf(8L * 1024 * 1024));

      props.putAll(extraProperties);
      return props;
    }

    private KafkaRaftServer startServer(Properties props, long startedAt) {
      KafkaRaftServer server;
      try {
        server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
      } catch (RuntimeException e) {
        throw new EmbeddedKafkaStartException("Cannot configure Kafka on " + dataDir, e);
      }
      // startup() blocks until the broker is unfenced, with no bound of its own.
      CompletableFuture<Void> startup =
          CompletableFuture.runAsync(
              server::startup,
              command -> {
                Thread thread = new Thread(command, "embedded-kafka-startup");
                thread.setDaemon(true);
                thread.start();
              });
      try {
        startup.get(remaining(startedAt), TimeUnit.NANOSECONDS);
        awaitServing(props.getProperty("advertised.listeners"), startedAt);
        return server;
      } catch (ExecutionException e) {
        stopQuietly(server);
        throw new EmbeddedKafkaStartException(
            "Kafka failed to start on " + dataDir + ": " + e.getCause(), e.getCause());
      } catch (TimeoutException e) {
        stopQuietly(server);
        throw new EmbeddedKafkaStartException(
            "Kafka did not start on " + dataDir + " within " + startupTimeout, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopQuietly(server);
        throw new EmbeddedKafkaStartException("Interrupted while starting Kafka on " + dataDir, e);
      }
    }

    /** Returns once an admin client sees this node in the cluster. */
    private void awaitServing(String advertisedListener, long startedAt)
        throws TimeoutException, InterruptedException {
      String bootstrap = advertisedListener.substring(advertisedListener.indexOf("://") + 3);
      Map<String, Object> config = new LinkedHashMap<>(clientSettings);
      config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
      Exception last = null;
      try (Admin admin = Admin.create(config)) {
        while (remaining(startedAt) > 0) {
          try {
            if (!admin
                .describeCluster()
                .nodes()
                .get(remaining(startedAt), TimeUnit.NANOSECONDS)
                .isEmpty()) {
              return;
            }
          } catch (ExecutionException | TimeoutException e) {
            last = e;
          }
          Thread.sleep(50);
        }
      }
      TimeoutException timeout =
          new TimeoutException("no answer to DescribeCluster from " + bootstrap);
      if (last != null) {
        timeout.initCause(last);
      }
      throw timeout;
    }

    private long remaining(long startedAt) {
      return startupTimeout.toNanos() - (System.nanoTime() - startedAt);
    }
  }

  /** Formats {@code dataDir} unless it already holds {@code meta.properties}; returns its id. */
  private static String formatOnce(Path dataDir) {
    try {
      if (!Files.exists(dataDir.resolve("meta.properties"))) {
        Files.createDirectories(dataDir);
        new Formatter()
            .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
            .setNodeId(NODE_ID)
            .setClusterId(Uuid.randomUuid().toString())
            .setDirectories(List.of(dataDir.toString()))
            .setMetadataLogDirectory(dataDir.toString())
            .setControllerListenerName(CONTROLLER_LISTENER)
            // A static quorum keeps the controller's address out of the data, so its port can
            // change between restarts.
            .setHasDynamicQuorum(false)
            .run();
      }
      return new MetaPropertiesEnsemble.Loader()
          .addMetadataLogDir(dataDir.toString())
          .load()
          .clusterId()
          .orElseThrow(() -> new IllegalStateException("no cluster.id in " + dataDir));
    } catch (Exception e) {
      throw new EmbeddedKafkaStartException("Cannot format Kafka data directory " + dataDir, e);
    }
  }

  /**
   * A port free on {@link #HOST} now, other than {@code taken}: the operating system may hand out a
   * port it just handed out, and two listeners on one port make the broker refuse to start.
   */
  private static int freePort(int taken) {
    while (true) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
        int picked = socket.getLocalPort();
        if (picked != taken) {
          return picked;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot find a free port on " + HOST, e);
      }
    }
  }

  private static boolean causedByBindFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return true;
      }
    }
    return false;
  }

  private static void stopQuietly(KafkaRaftServer server) {
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException ignored) {
      // The start already failed; that failure is the one reported.
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              path -> {
                try {
                  Files.deleteIfExists(path);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + dir, e);
    }
  }
}
