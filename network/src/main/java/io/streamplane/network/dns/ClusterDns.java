package io.streamplane.network.dns;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Message;

/**
 * The cluster DNS server: {@link DnsAnswers} over UDP and TCP on one address, as CoreDNS serves
 * them. A UDP answer longer than the client can take (512 bytes, or its EDNS payload size) is
 * truncated with TC set, and the client asks again over TCP. A message that does not parse is
 * dropped.
 */
public final class ClusterDns implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterDns.class);

  /** The EDNS payload size the server offers (DNS flag day 2020's recommendation). */
  static final int UDP_PAYLOAD = 1232;

  private final DnsAnswers answers;
  private final EventLoopGroup group = new NioEventLoopGroup(1);
  private final Channel udp;
  private final Channel tcp;

  /** Listens on {@code address} (port 0: any free port, the same for UDP and TCP). */
  public ClusterDns(DnsAnswers answers, InetSocketAddress address) throws InterruptedException {
    this.answers = answers;
    this.tcp =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new LengthFieldBasedFrameDecoder(65_535, 0, 2, 0, 2))
                        .addLast(new LengthFieldPrepender(2))
                        .addLast(new TcpQueries());
                  }
                })
            .bind(address)
            .sync()
            .channel();
    InetSocketAddress bound = (InetSocketAddress) tcp.localAddress();
    this.udp =
        new Bootstrap()
            .group(group)
            .channel(NioDatagramChannel.class)
            .handler(new UdpQueries())
            .bind(bound)
            .sync()
            .channel();
    LOG.info("cluster DNS on {}:{} (UDP and TCP)", bound.getHostString(), bound.getPort());
  }

  /** Where the server listens. */
  public InetSocketAddress address() {
    return (InetSocketAddress) tcp.localAddress();
  }

  private static Message parse(ByteBuf content) {
    try {
      return new Message(ByteBufUtil.getBytes(content));
    } catch (IOException e) {
      return null;
    }
  }

  private final class UdpQueries extends SimpleChannelInboundHandler<DatagramPacket> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
      Message query = parse(packet.content());
      if (query == null) {
        return;
      }
      int limit = query.getOPT() == null ? 512 : Math.max(512, query.getOPT().getPayloadSize());
      InetSocketAddress client = packet.sender();
      answers
          .answer(query)
          .thenAccept(
              response ->
                  ctx.writeAndFlush(
                      new DatagramPacket(
                          Unpooled.wrappedBuffer(response.toWire(Math.min(limit, 65_535))),
                          client)));
    }
  }

  private final class TcpQueries extends SimpleChannelInboundHandler<ByteBuf> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      Message query = parse(frame);
      if (query == null) {
        ctx.close();
        return;
      }
      answers
          .answer(query)
          .thenAccept(response -> ctx.writeAndFlush(Unpooled.wrappedBuffer(response.toWire())));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  @Override
  public void close() {
    udp.close();
    tcp.close();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
