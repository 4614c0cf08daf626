package io.streamplane.network.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.streamplane.network.ServiceTable.Backend;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * The TCP side of a frontend: each accepted connection is joined to a new connection to the
 * endpoint the {@link Balancer} chooses, and bytes are relayed both ways, each side reading only
 * once the other has taken what it read (so a slow peer slows its sender instead of filling
 * memory). With no ready endpoint the connection is reset.
 */
final class TcpForwarder extends ChannelInitializer<SocketChannel> {

  private final ServiceProxy.Frontend frontend;
  private final Map<ServiceProxy.Frontend, ServiceProxy.Route> routes;
  private final Balancer balancer;

  TcpForwarder(
      ServiceProxy.Frontend frontend,
      Map<ServiceProxy.Frontend, ServiceProxy.Route> routes,
      Balancer balancer) {
    this.frontend = frontend;
    this.routes = routes;
    this.balancer = balancer;
  }

  @Override
  protected void initChannel(SocketChannel client) {
    client.pipeline().addLast(new ClientSide());
  }

  private final class ClientSide extends ChannelInboundHandlerAdapter {

    private Channel endpoint;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Channel client = ctx.channel();
      ServiceProxy.Route route = routes.get(frontend);
      String clientIp = ((InetSocketAddress) client.remoteAddress()).getAddress().getHostAddress();
      Backend backend = route == null ? null : balancer.choose(frontend, route, clientIp);
      if (backend == null) {
        reset(client);
        return;
      }
      var connect =
          new Bootstrap()
              .group(client.eventLoop())
              .channel(NioSocketChannel.class)
              .option(ChannelOption.AUTO_READ, false)
              .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
              .handler(new Relay(client))
              .connect(backend.ip(), backend.port());
      endpoint = connect.channel();
      connect.addListener(
          (ChannelFutureListener)
              f -> {
                if (f.isSuccess()) {
                  client.read();
                  endpoint.read();
                } else {
                  reset(client);
                }
              });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      relay(ctx.channel(), endpoint, msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (endpoint != null) {
        closeOnFlush(endpoint);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closeOnFlush(ctx.channel());
    }
  }

  /** The endpoint's side: what it sends goes back to the client. */
  private static final class Relay extends ChannelInboundHandlerAdapter {

    private final Channel client;

    Relay(Channel client) {
      this.client = client;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      relay(ctx.channel(), client, msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closeOnFlush(client);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closeOnFlush(ctx.channel());
    }
  }

  /** Writes what {@code from} read to {@code to}, and reads more from {@code from} once written. */
  private static void relay(Channel from, Channel to, Object msg) {
    to.writeAndFlush(msg)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (f.isSuccess()) {
                    from.read();
                  } else {
                    f.channel().close();
                    from.close();
                  }
                });
  }

  private static void reset(Channel client) {
    client.config().setOption(ChannelOption.SO_LINGER, 0);
    client.close();
  }

  private static void closeOnFlush(Channel channel) {
    if (channel.isActive()) {
      channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
