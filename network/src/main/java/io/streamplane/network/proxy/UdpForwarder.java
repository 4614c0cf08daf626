package io.streamplane.network.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.streamplane.network.ServiceTable.Backend;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The UDP side of a frontend: each client address gets a flow, a socket connected to the endpoint
 * the {@link Balancer} chose for its first datagram; the client's datagrams go out on it and the
 * endpoint's answers come back from the frontend's address. A flow idle for {@link #IDLE_SECONDS}
 * is forgotten (conntrack's UDP timeout), so a client's next datagram may go to another endpoint. A
 * datagram for a port with no ready endpoint is dropped.
 */
final class UdpForwarder extends SimpleChannelInboundHandler<DatagramPacket> {

  static final int IDLE_SECONDS = 30;

  private final ServiceProxy.Frontend frontend;
  private final Map<ServiceProxy.Frontend, ServiceProxy.Route> routes;
  private final Balancer balancer;
  private final EventLoopGroup group;
  private final Map<InetSocketAddress, ChannelFuture> flows = new ConcurrentHashMap<>();

  UdpForwarder(
      ServiceProxy.Frontend frontend,
      Map<ServiceProxy.Frontend, ServiceProxy.Route> routes,
      Balancer balancer,
      EventLoopGroup group) {
    this.frontend = frontend;
    this.routes = routes;
    this.balancer = balancer;
    this.group = group;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
    InetSocketAddress client = packet.sender();
    ChannelFuture flow = flows.get(client);
    if (flow == null) {
      ServiceProxy.Route route = routes.get(frontend);
      Backend backend =
          route == null
              ? null
              : balancer.choose(frontend, route, client.getAddress().getHostAddress());
      if (backend == null) {
        return;
      }
      flow = open(ctx.channel(), client, backend);
      flows.put(client, flow);
    }
    var payload = packet.content().retain();
    flow.addListener(
        f -> {
          if (f.isSuccess()) {
            ((ChannelFuture) f).channel().writeAndFlush(payload);
          } else {
            payload.release();
          }
        });
  }

  private ChannelFuture open(Channel frontendChannel, InetSocketAddress client, Backend backend) {
    ChannelFuture connect =
        new Bootstrap()
            .group(group)
            .channel(NioDatagramChannel.class)
            .handler(
                new ChannelInitializer<NioDatagramChannel>() {
                  @Override
                  protected void initChannel(NioDatagramChannel ch) {
                    ch.pipeline()
                        .addLast(new IdleStateHandler(0, 0, IDLE_SECONDS))
                        .addLast(new Answers(frontendChannel, client));
                  }
                })
            .connect(new InetSocketAddress(backend.ip(), backend.port()));
    connect.channel().closeFuture().addListener(f -> flows.remove(client, connect));
    return connect;
  }

  /** The endpoint's answers to one client, sent back from the frontend's address. */
  private static final class Answers extends SimpleChannelInboundHandler<DatagramPacket> {

    private final Channel frontendChannel;
    private final InetSocketAddress client;

    Answers(Channel frontendChannel, InetSocketAddress client) {
      this.frontendChannel = frontendChannel;
      this.client = client;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
      frontendChannel.writeAndFlush(new DatagramPacket(packet.content().retain(), client));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof IdleStateEvent) {
        ctx.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // ICMP port unreachable from a gone endpoint: forget the flow.
      ctx.close();
    }
  }
}
