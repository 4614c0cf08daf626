package io.streamplane.bench.scenario;

import io.streamplane.bench.load.KubeClient;
import io.streamplane.bench.load.Kubeconfig;
import io.streamplane.bench.metrics.MetricsDelta;
import io.streamplane.bench.metrics.MetricsEndpoint;
import io.streamplane.bench.report.Report;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Runs one scenario as every scenario runs: find the kubeconfig, check the server answers, scrape
 * {@code /metrics}, run, scrape again, write {@code <name>.md}, {@code <name>.svg} and the JSON,
 * print the summary. Exit status: 0, or 1 when the run had problems or missed its target (the
 * report is written either way), or when it could not run at all.
 */
public final class ScenarioRunner {

  private final Settings settings;
  private final PrintStream out;
  private final PrintStream err;

  public ScenarioRunner(Settings settings, PrintStream out, PrintStream err) {
    this.settings = settings;
    this.out = out;
    this.err = err;
  }

  public int run(Scenario scenario) {
    String prefix = "streamplane bench " + scenario.name() + ": ";
    try {
      KubeClient client = connect(scenario, prefix);
      if (client == null && scenario.needsApiServer()) {
        return 1;
      }
      MetricsEndpoint.Result before =
          client == null ? new MetricsEndpoint.Result(null, "no kubeconfig") : scrape(client);
      Instant started = Instant.now();
      Outcome outcome = scenario.run(client);
      Duration took = Duration.between(started, Instant.now());
      MetricsEndpoint.Result after =
          client == null || before.scrape() == null ? before : scrape(client);
      String unavailable = before.scrape() == null ? before.unavailable() : after.unavailable();
      List<MetricsDelta.Row> rows =
          unavailable == null ? MetricsDelta.of(before.scrape(), after.scrape()) : List.of();
      Report report =
          new Report(
              scenario.name(),
              outcome.title(),
              settings.command(),
              client == null ? "(no API server)" : client.config().describe(),
              started,
              took,
              outcome.summary(),
              outcome.body(),
              outcome.figure(),
              outcome.targets(),
              outcome.failures(),
              rows,
              unavailable,
              outcome.results());
      String name = settings.name() == null ? scenario.name() : settings.name();
      List<Path> written = report.write(settings.output(), name, settings.json());
      out.println(outcome.summary().strip());
      outcome.targets().forEach(t -> out.println("Target " + t.verdict().replace("**", "")));
      outcome.failures().forEach(f -> out.println("Problem: " + f));
      written.forEach(p -> out.println("wrote " + p));
      return report.failed() ? 1 : 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(prefix + "interrupted");
      return 1;
    } catch (Exception e) {
      err.println(prefix + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return 1;
    }
  }

  private KubeClient connect(Scenario scenario, String prefix) throws Exception {
    Optional<Path> file =
        Optional.ofNullable(settings.kubeconfig())
            .or(
                () ->
                    Kubeconfig.defaultFile(
                        System.getenv(),
                        Path.of("").toAbsolutePath(),
                        Path.of(System.getProperty("user.home"))));
    if (file.isEmpty()) {
      if (scenario.needsApiServer()) {
        err.println(
            prefix
                + "no kubeconfig: give --kubeconfig, set KUBECONFIG, or start a cluster with"
                + " 'streamplane up' (it writes .streamplane/kubeconfig)");
      }
      return null;
    }
    try {
      return connect(file.get(), prefix);
    } catch (Exception e) {
      if (scenario.needsApiServer()) {
        throw e;
      }
      err.println(prefix + "going on without the API server: " + e.getMessage());
      return null;
    }
  }

  private KubeClient connect(Path file, String prefix) throws Exception {
    KubeClient client = new KubeClient(Kubeconfig.load(file, settings.context()));
    KubeClient.Response version = client.get("/version");
    if (!version.ok()) {
      throw new IllegalStateException(
          "GET "
              + client.server()
              + "/version answered "
              + version.status()
              + ": "
              + version.message());
    }
    err.println(
        prefix
            + "server "
            + client.config().describe()
            + ", version "
            + (version.body() == null ? "?" : version.body().path("gitVersion").asText("?")));
    return client;
  }

  private static MetricsEndpoint.Result scrape(KubeClient client) {
    return MetricsEndpoint.scrape(client);
  }
}
