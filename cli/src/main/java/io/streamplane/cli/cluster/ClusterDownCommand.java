package io.streamplane.cli.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane cluster down}: stops every process of the local cluster in reverse start order
 * (node fleets and gateways first, the brokers last), each with SIGTERM and a grace period. The run
 * directory, with the brokers' logs and the stores' state, stays for the next {@code up}.
 */
@Command(
    name = "down",
    mixinStandardHelpOptions = true,
    description = "Stop every process of the local cluster (SIGTERM, then SIGKILL after a grace).")
final class ClusterDownCommand implements Callable<Integer> {

  @Mixin ClusterCommand.RunDirOption run;

  @Option(
      names = "--grace-period",
      defaultValue = "PT30S",
      description =
          "How long each process may take to stop after SIGTERM before it is killed, ISO-8601"
              + " (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Override
  public Integer call() throws Exception {
    RunDirectory dir = run.directory();
    if (!dir.exists()) {
      System.err.println("streamplane cluster down: no cluster in " + dir.root());
      return 1;
    }
    List<RoleInstance> instances = dir.instances();
    // One kind at a time, newest kind first, the instances of a kind together: the brokers must
    // stop at once, as the last broker of a quorum whose other voters are gone cannot complete
    // its controlled shutdown.
    Map<String, List<RoleInstance>> byKind = new LinkedHashMap<>();
    for (RoleInstance instance : instances) {
      byKind.computeIfAbsent(instance.kind(), k -> new ArrayList<>()).add(instance);
    }
    List<List<RoleInstance>> kinds = new ArrayList<>(byKind.values());
    Collections.reverse(kinds);
    for (List<RoleInstance> kind : kinds) {
      for (String line : RoleInstance.stopAll(kind, grace)) {
        System.out.println(line);
      }
    }
    System.out.println("stopped. Data and logs stay in " + dir.root());
    return 0;
  }
}
