package io.streamplane.cli.roles;

import io.streamplane.cli.up.PkiNodeIdentities;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.node.NodeFleet;
import io.streamplane.node.NodeIdentities;
import io.streamplane.node.NodeOptions;
import io.streamplane.node.RuntimeChoice;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * What {@code node} and {@code nodes} share: the gateway to talk to, the runtime, and the size each
 * node reports, and the process runtime's directory and crash-loop back-off.
 */
public final class NodeRuntimeOptions {

  @Option(
      names = "--runtime",
      defaultValue = "simulated",
      description =
          "Container runtime: process (real OS processes) or simulated (kwok-style, for"
              + " thousands of nodes) (default: ${DEFAULT-VALUE}).")
  String runtime;

  @Option(
      names = "--api-server",
      defaultValue = "https://127.0.0.1:6443",
      description = "The gateway's URL (default: ${DEFAULT-VALUE}).")
  String apiServer;

  @Option(
      names = "--pki-dir",
      description =
          "The cluster's PKI directory as 'streamplane up' writes it (ca.crt, ca.key): each node"
              + " gets a client certificate system:node:NAME signed by that CA and trusts it for"
              + " the gateway. Without it, nodes speak plain HTTP with no identity.")
  Path pkiDir;

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

  @Option(
      names = "--root-dir",
      description =
          "Where the process runtime keeps pod directories and logs; a node starting on it kills"
              + " what a previous node left running there, so nodes must not share one (default:"
              + " .streamplane/nodes/<node name>, the first node's for a fleet).")
  Path rootDir;

  @Option(
      names = "--crash-loop-back-off",
      defaultValue = "PT10S",
      description =
          "First back-off before restarting a crashed container again, ISO-8601; doubles per"
              + " restart up to 5 minutes (default: ${DEFAULT-VALUE}).")
  Duration crashLoopBackOff;

  @Option(
      names = "--simulated-start-delay",
      defaultValue = "PT0.5S",
      description =
          "Simulated runtime: how long a pod takes to start, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration simulatedStartDelay;

  @Option(
      names = "--simulated-stop-delay",
      defaultValue = "PT0.1S",
      description =
          "Simulated runtime: how long a pod takes to stop, at most its grace period, ISO-8601"
              + " (default: ${DEFAULT-VALUE}).")
  Duration simulatedStopDelay;

  /** Null when the runtime can run, else the message to print before exiting with status 2. */
  String refusal(String role) {
    return RuntimeChoice.named(runtime).isPresent()
        ? null
        : "streamplane " + role + ": unknown runtime '" + runtime + "' (process or simulated).";
  }

  RuntimeChoice choice() {
    return RuntimeChoice.named(runtime).orElseThrow();
  }

  NodeOptions template(String name) {
    return NodeOptions.defaults(name)
        .withPodCIDR(choice().cidrForName(name))
        .withSize(cpu, memory, pods);
  }

  /** Starts the nodes and blocks until the process is asked to stop. */
  int run(
      String role,
      ClusterOptions cluster,
      MetricsOptions metrics,
      List<NodeOptions> nodes,
      String what)
      throws Exception {
    AutoCloseable metricsServer = metrics.start(role);
    KafkaSchemaCatalog catalog = cluster.catalog();
    Topics topics = new Topics(cluster.layout(), catalog);
    RuntimeChoice choice = choice();
    NodeFleet fleet =
        NodeFleet.start(
            apiServer,
            cluster.bootstrapServers,
            topics.bindings(),
            nodes,
            choice.factory(
                rootDir != null ? rootDir : Path.of(".streamplane", "nodes", nodes.get(0).name()),
                simulatedStartDelay,
                simulatedStopDelay),
            choice.kubelet().withBackOffBase(crashLoopBackOff),
            pkiDir == null
                ? NodeIdentities.none()
                : new PkiNodeIdentities(
                    ClusterPki.loadOrCreate(pkiDir.toAbsolutePath(), Clock.systemUTC())));
    System.out.println(
        what + " against " + apiServer + " (runtime " + choice.flag() + "). Ctrl-C to stop.");
    Roles.runUntilStopped(metricsServer, catalog, fleet);
    return 0;
  }
}
