package io.streamplane.network.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.streamplane.api.Service;
import io.streamplane.api.ServicePort;
import io.streamplane.network.ServiceTable;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What kube-proxy does, in user space: for every Service port with a cluster IP, a TCP or UDP
 * socket on {@code clusterIP:port}, and for every NodePort on {@code nodeAddress:nodePort}; each
 * connection (each UDP client) goes to one ready endpoint of that port, in turn, or to the same one
 * as before under {@code sessionAffinity: ClientIP}.
 *
 * <p>The sockets follow the Services: a change of the {@link ServiceTable} opens and closes them
 * (on one thread, in order). Endpoints are looked up when a connection arrives, so an endpoint
 * change is in effect for the next connection; open connections keep their endpoint, as conntrack
 * keeps them under kube-proxy. A connection to a port with no ready endpoint is reset, as
 * kube-proxy's REJECT rule answers it.
 *
 * <p>Cluster IPs are loopback addresses (the service range is in {@code 127.0.0.0/8}, which Linux
 * routes to the loopback interface), so binding them needs no interface configuration; ports below
 * 1024 need root or {@code CAP_NET_BIND_SERVICE}.
 */
public final class ServiceProxy implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceProxy.class);

  /** A socket the proxy listens on. */
  record Frontend(String ip, int port, String protocol) {
    InetSocketAddress address() {
      return new InetSocketAddress(ip, port);
    }
  }

  /** Where a frontend's traffic goes: one port of one Service. */
  record Route(String namespace, String service, ServicePort port, int affinitySeconds) {
    @Override
    public String toString() {
      String portName = port.getName() == null ? "" : port.getName();
      return namespace + "/" + service + ":" + (portName.isEmpty() ? port.getPort() : portName);
    }
  }

  private final ServiceTable table;
  private final String nodeAddress;
  private final EventLoopGroup group = new NioEventLoopGroup(2);
  private final ExecutorService reconciler =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "service-proxy");
            t.setDaemon(true);
            return t;
          });
  private final Map<Frontend, Route> routes = new ConcurrentHashMap<>();
  private final Map<Frontend, Channel> sockets = new ConcurrentHashMap<>();
  private final Balancer balancer;

  /**
   * A proxy for the Services of {@code table}; NodePorts listen on {@code nodeAddress} (the host's
   * {@code 127.0.0.1} in {@code up}).
   */
  public ServiceProxy(ServiceTable table, String nodeAddress) {
    this.table = table;
    this.nodeAddress = nodeAddress;
    this.balancer = new Balancer(table);
    table.addListener(() -> reconciler.execute(this::reconcile));
    reconciler.execute(this::reconcile);
  }

  /** The sockets the proxy listens on now, {@code "TCP ip:port" → "namespace/service:port"}. */
  public Map<String, String> listening() {
    Map<String, String> view = new java.util.TreeMap<>();
    for (Frontend f : sockets.keySet()) {
      view.put(f.protocol() + " " + f.ip() + ":" + f.port(), String.valueOf(routes.get(f)));
    }
    return view;
  }

  /** Opens the sockets of new Service ports and closes those of Service ports that are gone. */
  private void reconcile() {
    Map<Frontend, Route> wanted = new HashMap<>();
    for (Service service : table.services()) {
      if (!ServiceTable.hasClusterIP(service) || service.getSpec().getPorts() == null) {
        continue;
      }
      String namespace = service.getMetadata().getNamespace();
      String name = service.getMetadata().getName();
      int affinity = affinitySeconds(service);
      for (ServicePort port : service.getSpec().getPorts()) {
        String protocol = ServiceTable.protocol(port.getProtocol());
        if (port.getPort() == null || protocol.equals("SCTP")) {
          continue;
        }
        Route route = new Route(namespace, name, port, affinity);
        wanted.put(new Frontend(service.getSpec().getClusterIP(), port.getPort(), protocol), route);
        if (port.getNodePort() != null && port.getNodePort() > 0) {
          wanted.put(new Frontend(nodeAddress, port.getNodePort(), protocol), route);
        }
      }
    }
    for (var it = sockets.entrySet().iterator(); it.hasNext(); ) {
      var socket = it.next();
      if (!wanted.containsKey(socket.getKey())) {
        socket.getValue().close();
        routes.remove(socket.getKey());
        it.remove();
      }
    }
    for (var entry : wanted.entrySet()) {
      routes.put(entry.getKey(), entry.getValue());
      if (!sockets.containsKey(entry.getKey())) {
        Channel channel = open(entry.getKey());
        if (channel != null) {
          sockets.put(entry.getKey(), channel);
        }
      }
    }
  }

  private Channel open(Frontend frontend) {
    try {
      Channel channel =
          frontend.protocol().equals("UDP")
              ? new Bootstrap()
                  .group(group)
                  .channel(NioDatagramChannel.class)
                  .handler(new UdpForwarder(frontend, routes, balancer, group))
                  .bind(frontend.address())
                  .sync()
                  .channel()
              : new ServerBootstrap()
                  .group(group)
                  .channel(NioServerSocketChannel.class)
                  .option(ChannelOption.SO_REUSEADDR, true)
                  .childOption(ChannelOption.AUTO_READ, false)
                  .childHandler(new TcpForwarder(frontend, routes, balancer))
                  .bind(frontend.address())
                  .sync()
                  .channel();
      LOG.info(
          "{} {}:{} → {}",
          frontend.protocol(),
          frontend.ip(),
          frontend.port(),
          routes.get(frontend));
      return channel;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot listen on {} {}:{}: {}",
          frontend.protocol(),
          frontend.ip(),
          frontend.port(),
          e.toString());
      return null;
    }
  }

  private static int affinitySeconds(Service service) {
    if (!"ClientIP".equals(service.getSpec().getSessionAffinity())) {
      return 0;
    }
    var config = service.getSpec().getSessionAffinityConfig();
    Integer timeout =
        config == null || config.getClientIP() == null
            ? null
            : config.getClientIP().getTimeoutSeconds();
    return timeout == null ? 10_800 : timeout;
  }

  @Override
  public void close() {
    reconciler.shutdownNow();
    try {
      reconciler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sockets.values().forEach(Channel::close);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
