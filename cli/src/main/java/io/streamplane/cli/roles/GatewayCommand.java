package io.streamplane.cli.roles;

import io.streamplane.gateway.admission.ServiceAllocation;
import io.streamplane.gateway.audit.AuditPolicy;
import io.streamplane.gateway.authn.ServiceAccountTokens;
import io.streamplane.gateway.server.AdmissionSettings;
import io.streamplane.gateway.server.GatewaySecurity;
import io.streamplane.gateway.server.GatewayServer;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane gateway}: one Kubernetes API server against any Kafka cluster. Several may run
 * side by side; give each its own {@code --results-partition}. Security flags are kube-apiserver's:
 * without {@code --tls-cert-file} the API is plain HTTP; without any authenticator every request is
 * {@code system:anonymous}.
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
      names = "--service-cidr",
      defaultValue = ServiceAllocation.DEFAULT_RANGE,
      description =
          "The range cluster IPs come from, IPv4, mask 12 to 29; every gateway of a cluster must"
              + " name the same (default: ${DEFAULT-VALUE}).")
  String serviceCidr;

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

  @Option(
      names = "--tls-cert-file",
      description =
          "The serving certificate (PEM, with its intermediates); with --tls-private-key-file the"
              + " API is served over HTTPS.")
  Path tlsCertFile;

  @Option(names = "--tls-private-key-file", description = "The serving certificate's key (PEM).")
  Path tlsPrivateKeyFile;

  @Option(
      names = "--client-ca-file",
      description =
          "CA certificates (PEM) that sign client certificates; a verified client certificate"
              + " names the user (CN) and its groups (O).")
  Path clientCaFile;

  @Option(
      names = "--token-auth-file",
      description = "Static bearer tokens, a CSV file of token,user,uid,\"group1,group2\".")
  Path tokenAuthFile;

  @Option(
      names = "--service-account-key-file",
      description = "Keys (PEM) that verify ServiceAccount tokens; may be given several times.")
  List<Path> serviceAccountKeyFiles = List.of();

  @Option(
      names = "--service-account-signing-key-file",
      description = "The RSA private key (PEM) that signs ServiceAccount tokens (TokenRequest).")
  Path serviceAccountSigningKeyFile;

  @Option(
      names = "--service-account-issuer",
      defaultValue = ServiceAccountTokens.DEFAULT_ISSUER,
      description =
          "The iss of the ServiceAccount tokens issued and accepted (default: ${DEFAULT-VALUE}).")
  String serviceAccountIssuer;

  @Option(
      names = "--anonymous-auth",
      defaultValue = "true",
      arity = "1",
      description =
          "Serve requests without credentials as system:anonymous, allowed what the authorizers"
              + " allow it (default: ${DEFAULT-VALUE}).")
  boolean anonymousAuth;

  @Override
  public Integer call() throws Exception {
    AuditPolicy auditPolicy;
    GatewaySecurity security;
    try {
      auditPolicy = audit.policy();
      security =
          new GatewaySecurity(
              tlsCertFile,
              tlsPrivateKeyFile,
              clientCaFile,
              tokenAuthFile,
              serviceAccountKeyFiles,
              serviceAccountSigningKeyFile,
              serviceAccountIssuer,
              anonymousAuth);
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
            security,
            auditPolicy,
            AdmissionSettings.defaults().withServiceRange(serviceCidr));
    gateway.keepSystemNamespaces(SYSTEM, GatewayServer.SYSTEM_NAMESPACES_INTERVAL);
    // The store may start after this gateway: the first round does not hold the start up.
    gateway.keepBootstrapPolicy(
        SYSTEM, java.time.Duration.ZERO, GatewayServer.BOOTSTRAP_POLICY_INTERVAL);
    // Ready means ready: /readyz passes (the defaults are written and seen) before the line that
    // says so; until then the gateway answers, and /readyz?verbose says what it waits for.
    System.out.println("gateway: serving " + gateway.url() + "; waiting for /readyz ...");
    Map<String, String> failing;
    while (!(failing = gateway.awaitReady(java.time.Duration.ofSeconds(10))).isEmpty()) {
      System.out.println("gateway: not ready yet: " + String.join(", ", failing.values()));
    }
    System.out.println("gateway: Kubernetes API at " + gateway.url() + ". Ctrl-C to stop.");
    Roles.runUntilStopped(catalog, gateway);
    return 0;
  }
}
