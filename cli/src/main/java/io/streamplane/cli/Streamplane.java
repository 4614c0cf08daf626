package io.streamplane.cli;

import io.streamplane.cli.audit.AuditCommand;
import io.streamplane.cli.bench.BenchCommand;
import io.streamplane.cli.cluster.ClusterCommand;
import io.streamplane.cli.history.HistoryCommand;
import io.streamplane.cli.replay.ReplayCommand;
import io.streamplane.cli.roles.ControllersCommand;
import io.streamplane.cli.roles.CsiDriverCommand;
import io.streamplane.cli.roles.GatewayCommand;
import io.streamplane.cli.roles.NodeCommand;
import io.streamplane.cli.roles.NodesCommand;
import io.streamplane.cli.roles.ProxyCommand;
import io.streamplane.cli.roles.SchedulerCommand;
import io.streamplane.cli.roles.StoreCommand;
import io.streamplane.cli.roles.TopicsCommand;
import io.streamplane.cli.up.UpCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code streamplane} launcher: one distribution, one command per role (see
 * docs/architecture.md). {@code main} only parses the command line and runs the chosen role.
 */
@Command(
    name = "streamplane",
    mixinStandardHelpOptions = true,
    versionProvider = Streamplane.Version.class,
    description =
        "The Kubernetes control plane as an event-sourced reconciliation engine on Kafka.",
    subcommands = {
      UpCommand.class,
      ClusterCommand.class,
      GatewayCommand.class,
      StoreCommand.class,
      TopicsCommand.class,
      ControllersCommand.class,
      SchedulerCommand.class,
      NodeCommand.class,
      NodesCommand.class,
      ProxyCommand.class,
      CsiDriverCommand.class,
      ReplayCommand.class,
      HistoryCommand.class,
      AuditCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Streamplane implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /**
   * On two cores the common pool has one thread, and CompletableFuture then runs every async step
   * without an executor on a new thread; the JDK's HttpClient completes each answer so when given
   * its own executor, as the node workers' client is: thousands of threads a minute under load. Two
   * threads keep the pool in use. Set before anything touches the pool.
   */
  private static final String COMMON_PARALLELISM =
      "java.util.concurrent.ForkJoinPool.common.parallelism";

  public static void main(String[] args) {
    if (System.getProperty(COMMON_PARALLELISM) == null
        && Runtime.getRuntime().availableProcessors() <= 2) {
      System.setProperty(COMMON_PARALLELISM, "2");
    }
    System.exit(new CommandLine(new Streamplane()).execute(args));
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Streamplane.class.getPackage().getImplementationVersion();
      return new String[] {"streamplane " + (version == null ? "development build" : version)};
    }
  }
}
