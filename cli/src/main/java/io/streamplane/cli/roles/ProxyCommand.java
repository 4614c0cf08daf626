package io.streamplane.cli.roles;

import io.streamplane.network.ClusterNetwork;
import io.streamplane.schema.serde.KafkaSchemaCatalog;
import io.streamplane.topics.Topics;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamplane proxy}: the service proxy and the cluster DNS of one host, against any Kafka
 * cluster. It reads Services and EndpointSlices from the log and writes nothing, so the {@code
 * kube-dns} Endpoints, which the controllers mirror into a slice, must name the DNS address it
 * prints ({@code up} writes them for its own).
 */
@Command(
    name = "proxy",
    mixinStandardHelpOptions = true,
    description =
        "Run the service proxy (cluster IPs and node ports) and the cluster DNS of this host"
            + " against a Kafka cluster.")
public final class ProxyCommand implements Callable<Integer> {

  @Mixin ClusterOptions cluster;

  @Option(
      names = "--node-address",
      defaultValue = "127.0.0.1",
      description = "The address node ports listen on (default: ${DEFAULT-VALUE}).")
  String nodeAddress;

  @Option(
      names = "--dns-address",
      defaultValue = "127.0.0.1:1053",
      description =
          "host:port of the cluster DNS server, UDP and TCP; the kube-dns Endpoints name it"
              + " (default: ${DEFAULT-VALUE}).")
  String dnsAddress;

  @Option(
      names = "--cluster-domain",
      defaultValue = "cluster.local",
      description = "The cluster's DNS domain (default: ${DEFAULT-VALUE}).")
  String clusterDomain;

  @Override
  public Integer call() throws Exception {
    int colon = dnsAddress.lastIndexOf(':');
    if (colon < 0) {
      System.err.println("streamplane proxy: --dns-address must be host:port, not " + dnsAddress);
      return 2;
    }
    KafkaSchemaCatalog catalog = cluster.catalog();
    ClusterNetwork network =
        ClusterNetwork.start(
            cluster.bootstrapServers,
            new Topics(cluster.layout(), catalog),
            new ClusterNetwork.Config(
                nodeAddress,
                new InetSocketAddress(
                    dnsAddress.substring(0, colon),
                    Integer.parseInt(dnsAddress.substring(colon + 1))),
                clusterDomain,
                true));
    System.out.println(
        "proxy: running against "
            + cluster.bootstrapServers
            + ", cluster DNS at "
            + network.dnsAddress().getHostString()
            + ":"
            + network.dnsAddress().getPort()
            + ". Ctrl-C to stop.");
    Roles.runUntilStopped(catalog, network);
    return 0;
  }
}
