package io.streamplane.bench.chaos;

import io.streamplane.bench.metrics.MetricsEndpoint;
import io.streamplane.bench.metrics.PrometheusText;
import io.streamplane.bench.metrics.Scrape;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.topics.ClusterTopics;
import io.streamplane.topics.TopicLayout;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * A multi-process control plane on this machine, started by the harness itself: a KRaft quorum of
 * Kafka brokers (each broker also a controller; {@code kafka.Kafka} from the distribution's jars,
 * the ones on this JVM's class path), the cluster's topics replicated three ways with {@code
 * min.insync.replicas=2}, and each role instance as its own {@code streamplane <role>} process.
 * Every process has a directory under the run directory holding its log, state and command line.
 *
 * <p>Ports: brokers at {@code portBase + i}, their quorum listeners at {@code portBase + 10 + i},
 * gateways at {@code portBase + 100 + i} (each serving {@code /metrics} on its API port), and the
 * {@code /metrics} of every other role instance from {@code portBase + 200}, in start order.
 */
public final class ProcessCluster implements Cluster {

  /** What to start. */
  public record Layout(
      Path runDir,
      int portBase,
      String cluster,
      int partitions,
      int brokers,
      int gateways,
      int stores,
      int controllers,
      int schedulers,
      int nodes,
      String nodeCpu) {}

  private static final Duration START_TIMEOUT = Duration.ofMinutes(4);

  private final Layout layout;
  private final String java;
  private final String classPath;
  private final Map<String, Proc> procs = new LinkedHashMap<>();
  private final Map<String, String> metricsUrls = new LinkedHashMap<>();
  private final ClusterPki pki;
  private final ClusterPki.ClientIdentity admin;

  private ProcessCluster(Layout layout) {
    this.layout = layout;
    this.java = ProcessHandle.current().info().command().orElse("java");
    this.classPath =
        List.of(System.getProperty("java.class.path").split(":")).stream()
            .map(p -> Path.of(p).toAbsolutePath().toString())
            .collect(Collectors.joining(":"));
    // The gateways serve HTTPS with this PKI's certificate, share its ServiceAccount signing key
    // and authenticate client certificates its CA signed; the harness acts as the administrator.
    this.pki =
        ClusterPki.loadOrCreate(layout.runDir().resolve("pki").toAbsolutePath(), Clock.systemUTC());
    this.admin = pki.admin();
  }

  /** Starts the brokers, creates the topics, starts every role and waits for the gateways. */
  public static ProcessCluster start(Layout layout, PrintStream log) throws Exception {
    ProcessCluster cluster = new ProcessCluster(layout);
    // Ctrl-C (or any end of this JVM) must not leave brokers and roles running, or paused.
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "chaos-cluster-stop"));
    try {
      cluster.startAll(log);
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  private void startAll(PrintStream log) throws Exception {
    Files.createDirectories(layout.runDir());
    String clusterId = Uuid.randomUuid().toString();
    for (int i = 0; i < layout.brokers(); i++) {
      Path dir = layout.runDir().resolve("kafka-" + i);
      Path data = dir.resolve("data");
      Files.createDirectories(data);
      Path config = dir.resolve("server.properties");
      Properties props = brokerProperties(i, data);
      try (OutputStream out = Files.newOutputStream(config)) {
        props.store(out, "broker " + i + " of the chaos cluster");
      }
      new Formatter()
          .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
          .setNodeId(i)
          .setClusterId(clusterId)
          .setDirectories(List.of(data.toString()))
          .setMetadataLogDirectory(data.toString())
          .setControllerListenerName("CONTROLLER")
          .setHasDynamicQuorum(false)
          .run();
      add(
          "kafka-" + i,
          "kafka",
          dir,
          List.of(
              java,
              "-Xmx512m",
              "-XX:+UseSerialGC",
              "-cp",
              classPath,
              "kafka.Kafka",
              config.toString()));
    }
    log.println("chaos: " + layout.brokers() + " Kafka brokers at " + bootstrapServers());
    TopicLayout topics =
        new TopicLayout(
            layout.cluster(),
            layout.partitions(),
            layout.partitions(),
            3,
            (short) Math.min(3, layout.brokers()));
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    try (Admin client = Admin.create(admin)) {
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (true) {
        try {
          int seen = client.describeCluster().nodes().get(10, TimeUnit.SECONDS).size();
          if (seen == layout.brokers()) {
            break;
          }
        } catch (Exception e) {
          // Not up yet.
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("the brokers did not form a cluster; see " + layout.runDir());
        }
        Thread.sleep(500);
      }
      ClusterTopics.ensure(client, bootstrapServers(), topics).close();
    }
    log.println("chaos: topics of cluster '" + layout.cluster() + "' created (replication 3)");
    for (int i = 0; i < layout.stores(); i++) {
      role("store-" + i, "store", List.of());
    }
    for (int i = 0; i < layout.gateways(); i++) {
      List<String> options =
          new ArrayList<>(
              List.of(
                  "--port",
                  Integer.toString(gatewayPort(i)),
                  "--results-partition",
                  Integer.toString(i),
                  "--history-dir",
                  layout.runDir().resolve("gateway-" + i).resolve("history").toString()));
      options.addAll(pki.gatewayFlags());
      role("gateway-" + i, "gateway", options);
    }
    for (int i = 0; i < layout.controllers(); i++) {
      role("controllers-" + i, "controllers", List.of());
    }
    for (int i = 0; i < layout.schedulers(); i++) {
      role("scheduler-" + i, "scheduler", List.of());
    }
    awaitGateways();
    log.println("chaos: gateways at " + apiServers());
    if (layout.nodes() > 0) {
      Path dir = layout.runDir().resolve("nodes-0");
      List<String> args =
          new ArrayList<>(
              List.of(
                  "--count",
                  Integer.toString(layout.nodes()),
                  "--name-prefix",
                  "chaos-node-",
                  "--cpu",
                  layout.nodeCpu(),
                  "--api-server",
                  apiServers().get(0),
                  "--pki-dir",
                  pki.directory().toString()));
      args.addAll(metricsPort("nodes-0"));
      add("nodes-0", "nodes", dir, streamplane(dir, "nodes", args));
    }
    log.println(
        "chaos: started "
            + procs.keySet()
            + " ("
            + layout.runDir()
            + " holds their logs and command lines)");
  }

  private Properties brokerProperties(int id, Path data) {
    int rf = Math.min(3, layout.brokers());
    String minIsr = rf >= 3 ? "2" : "1";
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", Integer.toString(id));
    p.put(
        "controller.quorum.voters",
        IntStream.range(0, layout.brokers())
            .mapToObj(i -> i + "@127.0.0.1:" + (layout.portBase() + 10 + i))
            .collect(Collectors.joining(",")));
    p.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:"
            + (layout.portBase() + id)
            + ",CONTROLLER://127.0.0.1:"
            + (layout.portBase() + 10 + id));
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + (layout.portBase() + id));
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", data.toString());
    p.put("num.partitions", "1");
    p.put("default.replication.factor", Integer.toString(rf));
    p.put("min.insync.replicas", minIsr);
    p.put("offsets.topic.replication.factor", Integer.toString(rf));
    p.put("transaction.state.log.replication.factor", Integer.toString(rf));
    p.put("transaction.state.log.min.isr", minIsr);
    p.put("share.coordinator.state.topic.replication.factor", Integer.toString(rf));
    p.put("auto.create.topics.enable", "false");
    p.put("unclean.leader.election.enable", "false");
    p.put("group.initial.rebalance.delay.ms", "0");
    return p;
  }

  private void role(String name, String role, List<String> extra) throws IOException {
    Path dir = layout.runDir().resolve(name);
    List<String> args = new ArrayList<>(extra);
    if (!role.equals("gateway")) {
      args.add("--state-dir");
      args.add(dir.resolve("state").toString());
      args.addAll(metricsPort(name));
    }
    add(name, role, dir, streamplane(dir, role, args));
  }

  /** The {@code --metrics-port} flag of the next role instance without an HTTP server. */
  private List<String> metricsPort(String name) {
    int port = layout.portBase() + 200 + metricsUrls.size();
    metricsUrls.put(name, "http://127.0.0.1:" + port + "/metrics");
    return List.of("--metrics-port", Integer.toString(port));
  }

  private List<String> streamplane(Path dir, String role, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx384m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Dstreamplane.instance=" + dir);
    command.add("-cp");
    command.add(classPath);
    command.add("io.streamplane.cli.Streamplane");
    command.add(role);
    command.add("--bootstrap-server");
    command.add(bootstrapServers());
    command.add("--cluster");
    command.add(layout.cluster());
    command.add("--partitions");
    command.add(Integer.toString(layout.partitions()));
    command.addAll(args);
    return command;
  }

  private void add(String name, String role, Path dir, List<String> command) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("args"), command);
    Proc proc = new Proc(name, role, dir, command);
    procs.put(name, proc);
    proc.start();
  }

  /**
   * Waits until every gateway's {@code /readyz} passes: its post-start hooks (the default policy,
   * the system priority classes, the {@code kubernetes} Service) are written and seen, so a fault
   * injected next never interrupts the cluster's own bootstrap.
   */
  private void awaitGateways() throws Exception {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    for (int i = 0; i < layout.gateways(); i++) {
      while (!serving("gateway-" + i)) {
        if (System.nanoTime() > deadline) {
          throw new IOException(
              apiServers().get(i) + " did not pass /readyz; see " + layout.runDir());
        }
        Thread.sleep(500);
      }
    }
  }

  private int gatewayPort(int i) {
    return layout.portBase() + 100 + i;
  }

  @Override
  public List<Instance> instances() {
    return procs.values().stream().map(p -> new Instance(p.name, p.role)).toList();
  }

  @Override
  public List<String> apiServers() {
    return IntStream.range(0, layout.gateways())
        .mapToObj(i -> "https://127.0.0.1:" + gatewayPort(i))
        .toList();
  }

  /**
   * Where each role instance serves {@code /metrics} over plain HTTP, by instance name; the
   * gateways are not among them (theirs is on their API port, {@link #apiServers}).
   */
  public Map<String, String> metricsUrls() {
    return Collections.unmodifiableMap(metricsUrls);
  }

  /**
   * A scrape of every instance's {@code /metrics} that answers now, by instance name: the gateways'
   * on their API port as the administrator, the other roles' over plain HTTP.
   */
  public Map<String, Scrape> scrape() {
    Map<String, Scrape> scrapes = new LinkedHashMap<>();
    List<String> servers = apiServers();
    for (int i = 0; i < servers.size(); i++) {
      Scrape s = MetricsEndpoint.scrape(ChaosApi.client(servers.get(i), admin)).scrape();
      if (s != null) {
        scrapes.put("gateway-" + i, s);
      }
    }
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    metricsUrls.forEach(
        (name, url) -> {
          try {
            HttpResponse<String> r =
                http.send(
                    HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
              scrapes.put(name, PrometheusText.parse(r.body()));
            }
          } catch (IOException e) {
            // Down or paused: left out.
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    return scrapes;
  }

  /** The directory of an instance: its {@code log}, {@code args}, {@code pid} and state. */
  public Path directory(String name) {
    return procs.get(name).dir;
  }

  @Override
  public ClusterPki.ClientIdentity identity() {
    return admin;
  }

  private HttpClient https() {
    return HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(2))
        .sslContext(admin.sslContext())
        .build();
  }

  @Override
  public String bootstrapServers() {
    return IntStream.range(0, layout.brokers())
        .mapToObj(i -> "127.0.0.1:" + (layout.portBase() + i))
        .collect(Collectors.joining(","));
  }

  public String cluster() {
    return layout.cluster();
  }

  public int partitions() {
    return layout.partitions();
  }

  @Override
  public boolean alive(String name) {
    return procs.get(name).alive();
  }

  @Override
  public boolean serving(String name) {
    Proc proc = procs.get(name);
    if (!proc.alive()) {
      return false;
    }
    if (!proc.role.equals("gateway")) {
      return true;
    }
    int i = Integer.parseInt(name.substring(name.indexOf('-') + 1));
    try {
      HttpResponse<String> r =
          https()
              .send(
                  HttpRequest.newBuilder(URI.create(apiServers().get(i) + "/readyz"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void kill(String name) throws IOException {
    procs.get(name).signal("KILL");
  }

  @Override
  public void restart(String name) throws IOException {
    procs.get(name).start();
  }

  @Override
  public void pause(String name) throws IOException {
    procs.get(name).signal("STOP");
  }

  @Override
  public void resume(String name) throws IOException {
    procs.get(name).signal("CONT");
  }

  @Override
  public synchronized void close() {
    List<Proc> all = new ArrayList<>(procs.values());
    Collections.reverse(all);
    for (Proc p : all) {
      p.stop();
    }
  }

  /** One process and how to start it again. */
  private static final class Proc {
    final String name;
    final String role;
    final Path dir;
    final List<String> command;
    Process process;

    Proc(String name, String role, Path dir, List<String> command) {
      this.name = name;
      this.role = role;
      this.dir = dir;
      this.command = command;
    }

    synchronized void start() throws IOException {
      if (process != null && process.isAlive()) {
        throw new IllegalStateException(name + " is running");
      }
      process =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("log").toFile()))
              .start();
      Files.writeString(dir.resolve("pid"), Long.toString(process.pid()));
    }

    synchronized boolean alive() {
      return process != null && process.isAlive();
    }

    synchronized void signal(String signal) throws IOException {
      if (process == null || !process.isAlive()) {
        throw new IllegalStateException(name + " is not running");
      }
      try {
        Process kill =
            new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .redirectErrorStream(true)
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
          throw new IOException("kill -" + signal + " " + name + " failed");
        }
        if (signal.equals("KILL")) {
          process.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while signalling " + name, e);
      }
    }

    synchronized void stop() {
      if (process == null || !process.isAlive()) {
        return;
      }
      try {
        new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor();
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (IOException | InterruptedException e) {
        process.destroyForcibly();
      }
    }
  }
}
