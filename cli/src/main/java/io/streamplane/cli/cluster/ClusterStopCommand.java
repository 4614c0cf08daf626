package io.streamplane.cli.cluster;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code streamplane cluster stop NAME...}: stops instances cleanly (SIGTERM, then SIGKILL). */
@Command(
    name = "stop",
    mixinStandardHelpOptions = true,
    description = "Stop instances of the local cluster (SIGTERM, then SIGKILL after a grace).")
final class ClusterStopCommand implements Callable<Integer> {

  @Mixin ClusterCommand.RunDirOption run;

  @Option(
      names = "--grace-period",
      defaultValue = "PT30S",
      description = "How long to wait after SIGTERM, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Parameters(arity = "1..*", paramLabel = "NAME", description = "Instance names, as in 'status'.")
  List<String> names;

  @Override
  public Integer call() throws Exception {
    RunDirectory dir = run.directory();
    List<String> known = dir.instances().stream().map(RoleInstance::name).toList();
    for (String name : names) {
      if (!known.contains(name)) {
        System.err.println("streamplane cluster stop: no instance '" + name + "' in " + dir.root());
        return 2;
      }
    }
    for (String name : names) {
      System.out.println(name + ": " + dir.instance(name).stop(grace));
    }
    return 0;
  }
}
