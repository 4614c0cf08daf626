package io.streamplane.cli.roles;

import io.streamplane.cli.up.PkiNodeIdentities;
import io.streamplane.gateway.pki.ClusterPki;
import io.streamplane.node.KubeletConfig;
import io.streamplane.node.NodeFleet;
import io.streamplane.node.NodeIdentities;
import io.streamplane.node.NodeOptions;
import io.streamplane.node.RuntimeChoice;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What {@code node} and {@code nodes} share beyond {@link NodeRuntimeOptions}: the runtime
 * (simulated by default) and the gateway to talk to.
 */
public final class NodeWorkerOptions {

  @Mixin NodeRuntimeOptions node;

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
      names = "--cluster-dns",
      defaultValue = KubeletConfig.CLUSTER_DNS,
      description =
          "The cluster DNS Service's address, the nameserver of pods' resolv.conf; empty for"
              + " none (default: ${DEFAULT-VALUE}, kube-dns of 'up').")
  String clusterDns;

  @Option(
      names = "--cluster-domain",
      defaultValue = "cluster.local",
      description = "The cluster's DNS domain (default: ${DEFAULT-VALUE}).")
  String clusterDomain;

  /** Null when the runtime can run, else the message to print before exiting with status 2. */
  String refusal(String role) {
    return NodeRuntimeOptions.refusal(role, runtime);
  }

  RuntimeChoice choice() {
    return RuntimeChoice.named(runtime).orElseThrow();
  }

  NodeOptions template(String name) {
    return node.template(choice(), name);
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
            node.factory(choice, Path.of(".streamplane", "nodes", nodes.get(0).name())),
            node.kubelet(choice).withClusterDns(clusterDns, clusterDomain),
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
