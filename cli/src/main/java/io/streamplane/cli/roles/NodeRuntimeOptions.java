package io.streamplane.cli.roles;

import io.streamplane.node.NodeFleet;
import io.streamplane.node.NodeOptions;
import io.streamplane.node.runtime.simulated.SimulatedRuntime;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * What {@code node} and {@code nodes} share: the gateway to talk to, the runtime, and the size each
 * node reports. Only the {@code simulated} runtime is built; {@code process} is refused with exit
 * status 2 until it is.
 */
public final class NodeRuntimeOptions {

  @Option(
      names = "--runtime",
      defaultValue = "simulated",
      description = "Container runtime: simulated or process (default: ${DEFAULT-VALUE}).")
  String runtime;

  @Option(
      names = "--api-server",
      defaultValue = "http://127.0.0.1:6443",
      description = "The gateway's URL (default: ${DEFAULT-VALUE}).")
  String apiServer;

  @Option(
      names = "--cpu",
      defaultValue = "4",
      description = "CPU capacity of each node (default: ${DEFAULT-VALUE}).")
  String cpu;

  @Option(
      names = "--memory",
      defaultValue = "8Gi",
      description = "Memory capacity of each node (default: ${DEFAULT-VALUE}).")
  String memory;

  @Option(
      names = "--pods",
      defaultValue = "110",
      description = "Pod capacity of each node (default: ${DEFAULT-VALUE}).")
  int pods;

  /** Null when the runtime can run, else the message to print before exiting with status 2. */
  String refusal(String role) {
    return switch (runtime) {
      case "simulated" -> null;
      case "process" ->
          "streamplane "
              + role
              + ": the process runtime is not built yet (issue #6). Use --runtime simulated.";
      default ->
          "streamplane " + role + ": unknown runtime '" + runtime + "' (simulated or process).";
    };
  }

  NodeOptions template(String name) {
    return NodeOptions.defaults(name).withSize(cpu, memory, pods);
  }

  /** Starts the nodes and blocks until the process is asked to stop. */
  int run(ClusterOptions cluster, List<NodeOptions> nodes, String what) throws Exception {
    KafkaSchemaCatalog catalog = cluster.catalog();
    Topics topics = new Topics(cluster.layout(), catalog);
    NodeFleet fleet =
        NodeFleet.start(
            apiServer, cluster.bootstrapServers, topics.bindings(), nodes, SimulatedRuntime::new);
    System.out.println(what + " against " + apiServer + " (runtime simulated). Ctrl-C to stop.");
    Roles.runUntilStopped(catalog, fleet);
    return 0;
  }
}
