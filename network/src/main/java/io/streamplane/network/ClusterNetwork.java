package io.streamplane.network;

import io.streamplane.network.dns.ClusterDns;
import io.streamplane.network.dns.DnsAnswers;
import io.streamplane.network.proxy.ServiceProxy;
import io.streamplane.topics.Topics;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.ExtendedResolver;
import org.xbill.DNS.Resolver;
import org.xbill.DNS.ResolverConfig;

/**
 * The networking of one host: the {@link ServiceProxy} (kube-proxy) and the {@link ClusterDns}
 * (CoreDNS), both reading one {@link ServiceTable} that a {@link ServiceTableReader} keeps from the
 * log. The nodes of one host share its loopback, so one of these serves them all.
 */
public final class ClusterNetwork implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterNetwork.class);

  /**
   * Where the proxy opens node ports ({@code nodeAddress}), where the DNS server listens ({@code
   * dnsAddress}; port 0: a free one), the cluster domain, and whether names outside it are
   * forwarded to the host's resolvers.
   */
  public record Config(
      String nodeAddress, InetSocketAddress dnsAddress, String clusterDomain, boolean forward) {

    /** Node ports on 127.0.0.1, DNS on a free port of 127.0.0.1, {@code cluster.local}. */
    public static Config defaults() {
      return new Config("127.0.0.1", new InetSocketAddress("127.0.0.1", 0), "cluster.local", true);
    }
  }

  private final ServiceTableReader reader;
  private final ServiceProxy proxy;
  private final ClusterDns dns;

  private ClusterNetwork(ServiceTableReader reader, ServiceProxy proxy, ClusterDns dns) {
    this.reader = reader;
    this.proxy = proxy;
    this.dns = dns;
  }

  /** Starts reading the log, the proxy and the DNS server; returns once the table is caught up. */
  public static ClusterNetwork start(String bootstrapServers, Topics topics, Config config)
      throws InterruptedException {
    ServiceTable table = new ServiceTable();
    ServiceProxy proxy = new ServiceProxy(table, config.nodeAddress());
    ClusterDns dns = null;
    ServiceTableReader reader = null;
    try {
      dns =
          new ClusterDns(
              new DnsAnswers(table, config.clusterDomain(), config.forward() ? upstream() : null),
              config.dnsAddress());
      reader = new ServiceTableReader(bootstrapServers, topics, table);
      if (!reader.awaitCaughtUp(Duration.ofSeconds(60))) {
        LOG.warn("the service table did not catch up with the log in 60 s; serving what it has");
      }
      return new ClusterNetwork(reader, proxy, dns);
    } catch (InterruptedException | RuntimeException e) {
      if (reader != null) {
        reader.close();
      }
      if (dns != null) {
        dns.close();
      }
      proxy.close();
      throw e;
    }
  }

  /** Where the DNS server listens: the endpoint of the {@code kube-dns} Service. */
  public InetSocketAddress dnsAddress() {
    return dns.address();
  }

  /** The proxy's sockets now, {@code "TCP ip:port" → "namespace/service:port"}. */
  public java.util.Map<String, String> listening() {
    return proxy.listening();
  }

  /** The host's own resolvers (its {@code /etc/resolv.conf}), or null when it has none. */
  private static Resolver upstream() {
    List<InetSocketAddress> servers = ResolverConfig.getCurrentConfig().servers();
    if (servers.isEmpty()) {
      LOG.warn("the host has no resolver: names outside the cluster are refused");
      return null;
    }
    ExtendedResolver resolver = new ExtendedResolver();
    for (InetSocketAddress server : servers) {
      resolver.addResolver(new org.xbill.DNS.SimpleResolver(server));
    }
    resolver.setTimeout(Duration.ofSeconds(2));
    return resolver;
  }

  @Override
  public void close() {
    reader.close();
    dns.close();
    proxy.close();
  }
}
