package io.streamplane.cli.roles;

import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane gateway}: one Kubernetes API server against any Kafka cluster. Several may run
 * side by side; give each its own {@code --results-partition}.
 */
@Command(
    name = "gateway",
    mixinStandardHelpOptions = true,
    description = "Serve the Kubernetes API from a Kafka cluster's log.")
public final class GatewayCommand implements Callable<Integer> {

  private static final UserInfo SYSTEM =
      UserInfo.newBuilder()
          .setUsername("system:apiserver")
          .setGroups(List.of("system:masters"))
          .build();

  @Mixin ClusterOptions cluster;

  @Mixin AuditPolicyOption audit;

  @Option(
      names = "--port",
      defaultValue = "6443",
      description = "Listen port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--address",
      defaultValue = "127.0.0.1",
      description = "Listen address (default: ${DEFAULT-VALUE}).")
  String address;

  @Option(
      names = "--results-partition",
      defaultValue = "0",
      description =
          "The partition of the results topic this gateway reads (default: ${DEFAULT-VALUE}).")
  int resultsPartition;

  @Option(
      names = "--history-dir",
      defaultValue = ".streamplane/state-gateway/history",
      description =
          "The gateway's index of every object's versions, for reads at past versions"
              + " (default: ${DEFAULT-VALUE}).")
  Path historyDir;

  @Override
  public Integer call() throws Exception {
    AuditPolicy auditPolicy;
    try {
      auditPolicy = audit.policy();
    } catch (IllegalArgumentException e) {
      System.err.println("streamplane gateway: " + e.getMessage());
      return 2;
    }
    KafkaSchemaCatalog catalog = cluster.catalog();
    GatewayServer gateway =
        GatewayServer.start(
            cluster.bootstrapServers,
            new Topics(cluster.layout(), catalog),
            address,
            port,
            resultsPartition,
            historyDir.toAbsolutePath(),
            auditPolicy);
    gateway.keepSystemNamespaces(SYSTEM, GatewayServer.SYSTEM_NAMESPACES_INTERVAL);
    gateway.keepBootstrapPolicy(SYSTEM, GatewayServer.BOOTSTRAP_POLICY_INTERVAL);
    System.out.println("gateway: Kubernetes API at " + gateway.url() + ". Ctrl-C to stop.");
    Roles.runUntilStopped(catalog, gateway);
    return 0;
  }
}
