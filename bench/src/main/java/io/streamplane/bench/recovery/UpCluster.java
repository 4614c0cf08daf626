package io.streamplane.bench.recovery;

import io.streamplane.bench.chaos.ChaosApi;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.metrics.MetricsEndpoint;
import io.streamplane.bench.metrics.Scrape;
import io.streamplane.gateway.pki.ClusterPki;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code streamplane up --runtime simulated} as a user runs it, started by the harness in a process
 * group of its own ({@code setsid}), so that a kill reaches every process of it at once as {@code
 * kill -9 -- -PGID} does; a restart runs the same command line on the same directories. Everything
 * lives under one run directory: data, state, PKI, kubeconfig, and one log per start ({@code
 * up-1.log}, {@code up-2.log}). Ready means {@code /readyz} answers 200.
 */
final class UpCluster implements RecoveryCluster {

  /** What to start. */
  record Settings(
      Path runDir, int nodes, String nodeCpu, int kafkaPort, int apiPort, String serviceCidr) {}

  static final String VICTIM = "up";

  private static final Duration START_TIMEOUT = Duration.ofMinutes(4);

  private final Settings settings;
  private final List<String> command;
  private final KubeClient admin;
  private Process process;
  private int starts;
  private Path log;

  private UpCluster(Settings settings) {
    this.settings = settings;
    Path dir = settings.runDir();
    String java = ProcessHandle.current().info().command().orElse("java");
    String classPath =
        List.of(System.getProperty("java.class.path").split(":")).stream()
            .map(p -> Path.of(p).toAbsolutePath().toString())
            .collect(Collectors.joining(":"));
    List<String> c =
        new ArrayList<>(
            List.of(
                "setsid",
                java,
                "-cp",
                classPath,
                "io.streamplane.cli.Streamplane",
                "up",
                "--runtime",
                "simulated",
                "--nodes",
                Integer.toString(settings.nodes()),
                "--cpu",
                settings.nodeCpu(),
                "--data-dir",
                dir.resolve("data").toString(),
                "--state-dir",
                dir.resolve("state").toString(),
                "--pki-dir",
                dir.resolve("pki").toString(),
                "--kubeconfig",
                dir.resolve("kubeconfig").toString(),
                "--kafka-port",
                Integer.toString(settings.kafkaPort()),
                "--api-port",
                Integer.toString(settings.apiPort())));
    if (settings.serviceCidr() != null) {
      c.add("--service-cidr");
      c.add(settings.serviceCidr());
    }
    this.command = List.copyOf(c);
    // up loads the PKI this makes, so the harness holds the administrator's certificate from the
    // start.
    ClusterPki pki =
        settings.serviceCidr() == null
            ? ClusterPki.loadOrCreate(dir.resolve("pki").toAbsolutePath(), Clock.systemUTC())
            : ClusterPki.loadOrCreate(
                dir.resolve("pki").toAbsolutePath(), Clock.systemUTC(), settings.serviceCidr());
    this.admin = ChaosApi.client("https://127.0.0.1:" + settings.apiPort(), pki.admin());
  }

  /** Starts {@code up} and waits until it is ready. */
  static UpCluster start(Settings settings, PrintStream out)
      throws IOException, InterruptedException {
    Files.createDirectories(settings.runDir());
    UpCluster cluster = new UpCluster(settings);
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "recovery-up-stop"));
    try {
      cluster.launch();
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (!cluster.ready(VICTIM)) {
        if (System.nanoTime() > deadline || !cluster.process.isAlive()) {
          throw new IOException(
              "streamplane up did not become ready within "
                  + START_TIMEOUT.toSeconds()
                  + " s; see "
                  + cluster.log);
        }
        Thread.sleep(250);
      }
      out.println("recovery: up is ready (" + cluster.log + ")");
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private synchronized void launch() throws IOException {
    starts++;
    log = settings.runDir().resolve("up-" + starts + ".log");
    Files.write(settings.runDir().resolve("args"), command);
    process =
        new ProcessBuilder(command)
            .directory(settings.runDir().toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
  }

  /** A fresh {@code up} per run: nothing is cleaned up in one about to be thrown away. */
  @Override
  public boolean reused() {
    return false;
  }

  @Override
  public String description() {
    return "`streamplane up --runtime simulated --nodes "
        + settings.nodes()
        + " --cpu "
        + settings.nodeCpu()
        + "`: one JVM with the embedded broker, the store, the gateway, the controllers, the"
        + " scheduler and binder and the simulated nodes";
  }

  @Override
  public KubeClient admin() {
    return admin;
  }

  @Override
  public String bootstrapServers() {
    return "127.0.0.1:" + settings.kafkaPort();
  }

  @Override
  public int partitions() {
    return 6;
  }

  @Override
  public Map<String, Scrape> scrape() {
    MetricsEndpoint.Result r = MetricsEndpoint.scrape(admin);
    return r.scrape() == null ? Map.of() : Map.of(VICTIM, r.scrape());
  }

  @Override
  public synchronized void kill(String victim) throws IOException {
    signalGroup("KILL");
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized void restart(String victim) throws IOException {
    if (process.isAlive()) {
      throw new IllegalStateException("up is still running");
    }
    launch();
  }

  @Override
  public boolean ready(String victim) {
    try {
      return admin.get("/readyz").status() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public synchronized LogStart log(String victim) {
    return new LogStart(log, 0);
  }

  /**
   * {@code kill -SIGNAL -- -PGID}: setsid made the launched process the leader of its own group, so
   * its pid is the group's id; it is checked, never assumed, as a kill of another group would reach
   * processes that are not the run's.
   */
  private void signalGroup(String signal) throws IOException {
    long group = processGroup(process.pid());
    if (group != process.pid()) {
      throw new IOException(
          "up (pid " + process.pid() + ") is in process group " + group + ", not its own");
    }
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, "--", "-" + group)
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IOException(
            "kill -" + signal + " of up's process group " + process.pid() + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** The process group of {@code pid}: the fifth field of {@code /proc/PID/stat}. */
  static long processGroup(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    // The command name, second, is in parentheses and may hold spaces: count from its end.
    String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(after[2]);
  }

  @Override
  public synchronized void close() {
    if (process == null || !process.isAlive()) {
      return;
    }
    try {
      signalGroup("TERM");
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        signalGroup("KILL");
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (IOException | InterruptedException e) {
      process.destroyForcibly();
    }
  }
}
