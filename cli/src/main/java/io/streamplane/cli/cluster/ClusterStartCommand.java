package io.streamplane.cli.cluster;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code streamplane cluster start NAME...}: starts stopped (or killed) instances of a cluster that
 * {@code up} created, with the command line recorded in their {@code args}; running ones are left
 * alone.
 */
@Command(
    name = "start",
    mixinStandardHelpOptions = true,
    description = "Start instances of the local cluster again (e.g. kafka-1, gateway-0).")
final class ClusterStartCommand implements Callable<Integer> {

  @Mixin ClusterCommand.RunDirOption run;

  @Parameters(arity = "1..*", paramLabel = "NAME", description = "Instance names, as in 'status'.")
  List<String> names;

  @Override
  public Integer call() throws Exception {
    RunDirectory dir = run.directory();
    List<String> known = dir.instances().stream().map(RoleInstance::name).toList();
    for (String name : names) {
      if (!known.contains(name)) {
        System.err.println(
            "streamplane cluster start: no instance '" + name + "' in " + dir.root());
        return 2;
      }
    }
    for (String name : names) {
      RoleInstance instance = dir.instance(name);
      var running = instance.process();
      if (running.isPresent()) {
        System.out.println(name + ": already running, pid " + running.get().pid());
      } else {
        System.out.println(name + ": started, pid " + instance.start().pid());
      }
    }
    return 0;
  }
}
