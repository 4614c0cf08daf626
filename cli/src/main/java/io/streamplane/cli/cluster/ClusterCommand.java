package io.streamplane.cli.cluster;

import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamplane cluster}: a local cluster of separate processes — a 3-broker KRaft Kafka and
 * every role scaled out — started in the background and stopped again; see docs/deploy.md.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description =
        "A local multi-process cluster: 3 Kafka brokers and every role as its own process.",
    subcommands = {
      ClusterUpCommand.class,
      ClusterDownCommand.class,
      ClusterStatusCommand.class,
      ClusterStartCommand.class,
      ClusterStopCommand.class,
      CommandLine.HelpCommand.class
    })
public final class ClusterCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** The option every subcommand takes: where the cluster's processes keep their files. */
  static final class RunDirOption {
    @Option(
        names = "--run-dir",
        defaultValue = ".streamplane/cluster",
        description =
            "The cluster's run directory: one directory per process with its command line, pid,"
                + " log and data (default: ${DEFAULT-VALUE}).")
    Path runDir;

    RunDirectory directory() {
      return new RunDirectory(runDir);
    }
  }
}
