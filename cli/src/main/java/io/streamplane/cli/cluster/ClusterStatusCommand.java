package io.streamplane.cli.cluster;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code streamplane cluster status}: each process of the local cluster, running or not. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "List the local cluster's processes: running (with pid) or stopped; exit 0 if all run.")
final class ClusterStatusCommand implements Callable<Integer> {

  @Mixin ClusterCommand.RunDirOption run;

  @Override
  public Integer call() {
    RunDirectory dir = run.directory();
    if (!dir.exists()) {
      System.err.println("streamplane cluster status: no cluster in " + dir.root());
      return 1;
    }
    int stopped = 0;
    for (RoleInstance instance : dir.instances()) {
      var process = instance.process();
      if (process.isEmpty()) {
        stopped++;
      }
      System.out.printf(
          "%-14s %s%n",
          instance.name(), process.map(p -> "running  pid " + p.pid()).orElse("stopped"));
    }
    return stopped == 0 ? 0 : 3;
  }
}
