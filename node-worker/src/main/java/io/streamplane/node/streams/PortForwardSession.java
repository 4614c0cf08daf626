package io.streamplane.node.streams;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.spdy.DefaultSpdyDataFrame;
import io.netty.handler.codec.spdy.DefaultSpdyPingFrame;
import io.netty.handler.codec.spdy.DefaultSpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyDataFrame;
import io.netty.handler.codec.spdy.SpdyFrame;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyGoAwayFrame;
import io.netty.handler.codec.spdy.SpdyPingFrame;
import io.netty.handler.codec.spdy.SpdyRstStreamFrame;
import io.netty.handler.codec.spdy.SpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdySynStreamFrame;
import io.netty.handler.codec.spdy.SpdyVersion;
import io.netty.util.ReferenceCountUtil;
import io.streamplane.node.runtime.ContainerStreamException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code kubectl port-forward} session on the node, as kubelet serves port-forward: SPDY/3.1
 * (framed by Netty's codec) carried in WebSocket binary messages, the subprotocol {@code
 * SPDY/3.1+portforward.k8s.io} of kubectl 1.32's tunnelling dialer. For each local connection
 * kubectl opens two streams with the headers {@code streamType} ({@code error}, then {@code data}),
 * {@code port} and {@code requestID}; each is answered with a SYN_REPLY. Once a request has both,
 * the node connects to the pod's address on that port and copies bytes both ways: the pod's bytes
 * as DATA frames of the data stream, kubectl's DATA to the socket (its FIN half-closes the socket).
 * When the pod closes the connection, the data stream and then the error stream end (FIN). A
 * connection that fails writes kubelet's message ({@code error forwarding port P to pod ...}) on
 * the error stream. PINGs are answered; GOAWAY or the socket's close ends every connection.
 *
 * <p>Limits: no SPDY flow control (kubectl's spdystream sends no WINDOW_UPDATE and ignores them),
 * as kubelet's spdystream does not enforce it either.
 */
public final class PortForwardSession implements Session.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(PortForwardSession.class);

  /** The WebSocket subprotocol of SPDY tunnelled for port-forward. */
  public static final String PROTOCOL = "SPDY/3.1+portforward.k8s.io";

  private static final int CHUNK = 32 * 1024;

  private final Supplier<String> address;
  private final String pod;
  private final ExecutorService pumps;
  private final EmbeddedChannel codec =
      new EmbeddedChannel(new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
  private final Object lock = new Object();
  private final Map<String, Request> requests = new ConcurrentHashMap<>();
  private final Map<Integer, Request> byDataStream = new ConcurrentHashMap<>();
  private volatile Session session;

  PortForwardSession(Supplier<String> address, String pod, ExecutorService pumps) {
    this.address = address;
    this.pod = pod;
    this.pumps = pumps;
  }

  /** One forwarded connection: its two streams and, once connected, the socket to the pod. */
  private static final class Request {
    final String id;
    int port;
    int errorStream;
    int dataStream;
    volatile Socket socket;
    boolean started;
    final ByteArrayOutputStream early = new ByteArrayOutputStream();
    boolean earlyEnd;

    Request(String id) {
      this.id = id;
    }
  }

  @Override
  public void onWebSocketOpen(Session session) {
    this.session = session;
    session.demand();
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    List<SpdyFrame> frames = new ArrayList<>();
    synchronized (lock) {
      ByteBuf bytes = Unpooled.buffer(payload.remaining());
      bytes.writeBytes(payload);
      codec.writeInbound(bytes);
      for (Object frame; (frame = codec.readInbound()) != null; ) {
        frames.add((SpdyFrame) frame);
      }
    }
    callback.succeed();
    try {
      for (SpdyFrame frame : frames) {
        try {
          handle(frame);
        } finally {
          ReferenceCountUtil.release(frame);
        }
      }
    } finally {
      session.demand();
    }
  }

  private void handle(SpdyFrame frame) {
    if (frame instanceof SpdySynStreamFrame syn) {
      opened(syn);
    } else if (frame instanceof SpdyDataFrame data) {
      Request request = byDataStream.get(data.streamId());
      if (request == null) {
        return; // the error stream: kubectl writes nothing there
      }
      byte[] bytes = new byte[data.content().readableBytes()];
      data.content().readBytes(bytes);
      synchronized (request) {
        if (request.socket == null) {
          // kubectl writes as soon as the stream exists; kept until the pod's socket is open.
          request.early.writeBytes(bytes);
          request.earlyEnd |= data.isLast();
          return;
        }
        try {
          request.socket.getOutputStream().write(bytes);
          if (data.isLast()) {
            request.socket.shutdownOutput();
          }
        } catch (IOException e) {
          LOG.debug("cannot write to the pod's port {}", request.port, e);
        }
      }
    } else if (frame instanceof SpdyRstStreamFrame reset) {
      Request request = byDataStream.remove(reset.streamId());
      if (request != null) {
        closeQuietly(request.socket);
      }
    } else if (frame instanceof SpdyPingFrame ping) {
      send(new DefaultSpdyPingFrame(ping.id()));
    } else if (frame instanceof SpdyGoAwayFrame) {
      closeAll();
    }
  }

  private void opened(SpdySynStreamFrame syn) {
    String type = header(syn, "streamType");
    send(reply(syn.streamId(), type));
    String id = header(syn, "requestID");
    String port = header(syn, "port");
    Request request = requests.computeIfAbsent(id == null ? "" : id, Request::new);
    Request ready = null;
    synchronized (request) {
      try {
        request.port = Integer.parseInt(port == null ? "" : port);
      } catch (NumberFormatException e) {
        request.port = -1;
      }
      if ("error".equals(type)) {
        request.errorStream = syn.streamId();
      } else if ("data".equals(type)) {
        request.dataStream = syn.streamId();
        byDataStream.put(syn.streamId(), request);
      } else {
        LOG.debug("stream {} of unknown type {} ignored", syn.streamId(), type);
      }
      if (request.errorStream != 0 && request.dataStream != 0 && !request.started) {
        request.started = true;
        ready = request;
      }
    }
    if (ready != null) {
      Request forwarded = ready;
      pumps.execute(() -> forward(forwarded));
    }
  }

  /**
   * The SYN_REPLY accepting a stream. Netty writes an empty header block as no bytes at all, which
   * spdystream cannot decode (it reads the compressed count of headers first), so the reply names
   * the stream's type.
   */
  static SpdySynReplyFrame reply(int streamId, String type) {
    DefaultSpdySynReplyFrame reply = new DefaultSpdySynReplyFrame(streamId);
    reply.headers().set("streamtype", type == null ? "" : type);
    return reply;
  }

  /** Connects to the pod's port and copies what it sends to the data stream until it closes. */
  private void forward(Request request) {
    String target = "port " + request.port;
    try {
      if (request.port <= 0 || request.port > 65535) {
        throw new IOException("invalid port " + request.port);
      }
      String host = address.get();
      target = host + ":" + request.port;
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress(host, request.port), 10_000);
      synchronized (request) {
        socket.getOutputStream().write(request.early.toByteArray());
        if (request.earlyEnd) {
          socket.shutdownOutput();
        }
        request.socket = socket;
      }
      byte[] buffer = new byte[CHUNK];
      try (InputStream in = socket.getInputStream()) {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          if (n > 0) {
            sendAndWait(
                new DefaultSpdyDataFrame(request.dataStream, Unpooled.copiedBuffer(buffer, 0, n)));
          }
        }
      }
    } catch (IOException | ContainerStreamException e) {
      if (session.isOpen()) {
        String message =
            "error forwarding port " + request.port + " to pod " + pod + ": " + describe(e, target);
        LOG.debug(message, e);
        send(
            new DefaultSpdyDataFrame(
                request.errorStream, Unpooled.copiedBuffer(message, StandardCharsets.UTF_8)));
      }
    } finally {
      closeQuietly(request.socket);
      byDataStream.remove(request.dataStream);
      requests.remove(request.id);
      if (session.isOpen()) {
        send(new DefaultSpdyDataFrame(request.dataStream).setLast(true));
        send(new DefaultSpdyDataFrame(request.errorStream).setLast(true));
      }
    }
  }

  /** A failed connection in Go's words, which kubectl users know from kubelet. */
  static String describe(Exception e, String target) {
    if (e instanceof ConnectException) {
      return "dial tcp " + target + ": connect: connection refused";
    }
    if (e instanceof SocketTimeoutException) {
      return "dial tcp " + target + ": i/o timeout";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static String header(SpdySynStreamFrame syn, String name) {
    for (Map.Entry<CharSequence, CharSequence> entry : syn.headers()) {
      if (entry.getKey().toString().equalsIgnoreCase(name)) {
        return entry.getValue().toString();
      }
    }
    return null;
  }

  /** Encodes and sends one frame; frames leave in the order they were sent. */
  private CompletableFuture<Void> send(SpdyFrame frame) {
    CompletableFuture<Void> sent = new CompletableFuture<>();
    synchronized (lock) {
      codec.writeOutbound(frame);
      List<ByteBuf> encoded = new ArrayList<>();
      for (Object out; (out = codec.readOutbound()) != null; ) {
        encoded.add((ByteBuf) out);
      }
      if (encoded.isEmpty()) {
        sent.complete(null);
        return sent;
      }
      int size = encoded.stream().mapToInt(ByteBuf::readableBytes).sum();
      ByteBuffer message = ByteBuffer.allocate(size);
      for (ByteBuf buf : encoded) {
        message.put(buf.nioBuffer());
        buf.release();
      }
      message.flip();
      session.sendBinary(
          message, Callback.from(() -> sent.complete(null), sent::completeExceptionally));
    }
    return sent;
  }

  /** Sends a frame and waits until it is written, so a fast pod cannot pile data up here. */
  private void sendAndWait(SpdyFrame frame) throws IOException {
    try {
      send(frame).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IOException("the port-forward stream closed", e.getCause());
    }
  }

  @Override
  public void onWebSocketClose(int code, String reason) {
    closeAll();
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    LOG.debug("port-forward stream of {} failed", pod, cause);
    closeAll();
  }

  private void closeAll() {
    for (Request request : requests.values()) {
      closeQuietly(request.socket);
    }
    if (session != null && session.isOpen()) {
      session.close(StatusCode.NORMAL, null, Callback.NOOP);
    }
  }

  private static void closeQuietly(Socket socket) {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
