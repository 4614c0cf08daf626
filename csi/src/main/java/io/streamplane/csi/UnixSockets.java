package io.streamplane.csi;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * gRPC over Unix domain sockets, as CSI plugins and the kubelet's plugin registration speak it:
 * Netty's epoll transport on Linux.
 *
 * <p>Contract: {@link #serve} removes a stale socket file left at the path, binds a new one and
 * starts the services on it; {@link #connect} opens a plaintext channel to a socket (connection is
 * lazy: a missing socket fails the first call with UNAVAILABLE). Each server or channel has its own
 * event loop of one thread, released when it shuts down.
 *
 * <p>Limits: Linux bounds a socket's path to 107 bytes. A longer path (a node root deep in a
 * temporary directory) is reached through a short symbolic link to its directory, {@code
 * /tmp/streamplane-sockets/<hash of the directory>}, which both sides make the same way ({@link
 * #address}); the socket file itself is where it was asked.
 */
public final class UnixSockets {

  private UnixSockets() {}

  /** A started gRPC server of {@code services} on the Unix socket {@code socket}. */
  public static Server serve(Path socket, BindableService... services) {
    try {
      Files.createDirectories(socket.toAbsolutePath().getParent());
      Files.deleteIfExists(socket);
      EventLoopGroup loop = new EpollEventLoopGroup(1, daemon("csi-server"));
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(address(socket))
              .channelType(EpollServerDomainSocketChannel.class)
              // TCP keep-alive means nothing on a Unix socket: gRPC's default is taken away
              .withChildOption(ChannelOption.SO_KEEPALIVE, null)
              .bossEventLoopGroup(loop)
              .workerEventLoopGroup(loop);
      for (BindableService service : services) {
        builder.addService(service);
      }
      Server server = builder.build().start();
      return new LoopReleasingServer(server, loop);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve on " + socket, e);
    }
  }

  /** A plaintext channel to the gRPC server on the Unix socket {@code socket}. */
  public static ManagedChannel connect(Path socket) {
    EventLoopGroup loop = new EpollEventLoopGroup(1, daemon("csi-client"));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(address(socket))
            .channelType(EpollDomainSocketChannel.class)
            .withOption(ChannelOption.SO_KEEPALIVE, null)
            .eventLoopGroup(loop)
            .usePlaintext()
            .build();
    return new LoopReleasingChannel(channel, loop);
  }

  /** Longest path a Unix socket address holds (sun_path less its terminating zero). */
  static final int MAX_PATH = 107;

  /** The address of {@code socket}: its path, or a short path to it when that is too long. */
  static DomainSocketAddress address(Path socket) {
    Path absolute = socket.toAbsolutePath().normalize();
    if (absolute.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_PATH) {
      return new DomainSocketAddress(absolute.toString());
    }
    try {
      String hash =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(absolute.getParent().toString().getBytes(StandardCharsets.UTF_8)))
              .substring(0, 16);
      Path links = Files.createDirectories(Path.of("/tmp/streamplane-sockets"));
      Path link = links.resolve(hash);
      if (!Files.isSymbolicLink(link)) {
        try {
          Files.createSymbolicLink(link, absolute.getParent());
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          // the other side made it first
        }
      }
      return new DomainSocketAddress(link.resolve(absolute.getFileName()).toString());
    } catch (IOException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot shorten the socket path " + absolute, e);
    }
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread thread = new Thread(r, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** A server that shuts its event loop down after itself. */
  private static final class LoopReleasingServer extends Server {
    private final Server server;
    private final EventLoopGroup loop;

    LoopReleasingServer(Server server, EventLoopGroup loop) {
      this.server = server;
      this.loop = loop;
    }

    @Override
    public Server start() throws IOException {
      return server.start();
    }

    @Override
    public Server shutdown() {
      server.shutdown();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      return this;
    }

    @Override
    public Server shutdownNow() {
      server.shutdownNow();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      return this;
    }

    @Override
    public boolean isShutdown() {
      return server.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return server.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return server.awaitTermination(timeout, unit);
    }

    @Override
    public void awaitTermination() throws InterruptedException {
      server.awaitTermination();
    }
  }

  /** A channel that shuts its event loop down after itself. */
  private static final class LoopReleasingChannel extends ManagedChannel {
    private final ManagedChannel channel;
    private final EventLoopGroup loop;

    LoopReleasingChannel(ManagedChannel channel, EventLoopGroup loop) {
      this.channel = channel;
      this.loop = loop;
    }

    @Override
    public ManagedChannel shutdown() {
      channel.shutdown();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      return this;
    }

    @Override
    public ManagedChannel shutdownNow() {
      channel.shutdownNow();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      return this;
    }

    @Override
    public boolean isShutdown() {
      return channel.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return channel.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return channel.awaitTermination(timeout, unit);
    }

    @Override
    public <Q, R> io.grpc.ClientCall<Q, R> newCall(
        io.grpc.MethodDescriptor<Q, R> method, io.grpc.CallOptions options) {
      return channel.newCall(method, options);
    }

    @Override
    public String authority() {
      return channel.authority();
    }
  }
}
