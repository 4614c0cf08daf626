package io.streamplane.node.streams;

import io.streamplane.node.runtime.ContainerStreamException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Port-forward over plain WebSocket, kubelet's {@code v4.channel.k8s.io} port-forward protocol (the
 * official Python client's and fabric8's): for the i-th port of the request, channel {@code 2i}
 * carries its data both ways and channel {@code 2i+1} its errors; each message is the channel's
 * byte and then the payload. Once open, the node sends each port as two little-endian bytes on both
 * of its channels, connects to the pod on it and copies bytes both ways. A connection that fails
 * sends kubelet's message ({@code error forwarding port P to pod ...}) on the port's error channel;
 * when every port's connection has ended, the node closes the socket (1000).
 */
public final class WebSocketPortForward implements Session.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(WebSocketPortForward.class);

  /** The subprotocol of kubelet's WebSocket port-forward. */
  public static final String PROTOCOL = "v4.channel.k8s.io";

  private static final int CHUNK = 32 * 1024;

  private final Supplier<String> address;
  private final String pod;
  private final List<Integer> ports;
  private final ExecutorService pumps;

  /** Each port's connection to the pod, once made (null when it failed). */
  private final List<CompletableFuture<Socket>> sockets;

  private final AtomicInteger open;
  private final Object sending = new Object();
  private volatile Session session;

  WebSocketPortForward(
      Supplier<String> address, String pod, List<Integer> ports, ExecutorService pumps) {
    this.address = address;
    this.pod = pod;
    this.ports = List.copyOf(ports);
    this.pumps = pumps;
    this.sockets = ports.stream().map(p -> new CompletableFuture<Socket>()).toList();
    this.open = new AtomicInteger(ports.size());
  }

  /**
   * The ports a request names in {@code port} (repeated, each possibly a comma-separated list), as
   * kubelet reads them; a port that is not a number from 1 to 65535 is refused.
   */
  static List<Integer> ports(List<String> values) {
    if (values == null || values.isEmpty()) {
      throw new IllegalArgumentException("query parameter \"port\" is required");
    }
    List<Integer> ports = new ArrayList<>();
    for (String value : values) {
      if (value.isEmpty()) {
        throw new IllegalArgumentException("query parameter \"port\" cannot be empty");
      }
      for (String p : value.split(",")) {
        int port;
        try {
          port = Integer.parseInt(p.trim());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("unable to parse \"" + p + "\" as a port: " + e);
        }
        if (port < 1 || port > 65535) {
          throw new IllegalArgumentException("port \"" + p + "\" must be > 0 and < 65536");
        }
        ports.add(port);
      }
    }
    return ports;
  }

  @Override
  public void onWebSocketOpen(Session session) {
    this.session = session;
    pumps.execute(
        () -> {
          try {
            for (int i = 0; i < ports.size(); i++) {
              byte[] port = {(byte) ports.get(i).intValue(), (byte) (ports.get(i) >> 8)};
              send(2 * i, port);
              send(2 * i + 1, port);
            }
          } catch (IOException e) {
            LOG.debug("port-forward to {} ended before it began", pod, e);
            session.close(StatusCode.SERVER_ERROR, "port-forward failed", Callback.NOOP);
            return;
          }
          for (int i = 0; i < ports.size(); i++) {
            int index = i;
            pumps.execute(() -> forward(index));
          }
          session.demand();
        });
  }

  /** Connects to the pod on the port and copies what it sends to the data channel until EOF. */
  private void forward(int index) {
    int port = ports.get(index);
    String target = "port " + port;
    try {
      String host = address.get();
      target = host + ":" + port;
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress(host, port), 10_000);
      if (!sockets.get(index).complete(socket)) {
        socket.close(); // the caller left while the node connected
        return;
      }
      byte[] buffer = new byte[CHUNK];
      try (InputStream in = socket.getInputStream()) {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          if (n > 0) {
            send(2 * index, Arrays.copyOf(buffer, n));
          }
        }
      }
    } catch (IOException | ContainerStreamException e) {
      if (session.isOpen()) {
        String message =
            "error forwarding port "
                + port
                + " to pod "
                + pod
                + ": "
                + PortForwardSession.describe(e, target);
        LOG.debug(message, e);
        try {
          send(2 * index + 1, message.getBytes(StandardCharsets.UTF_8));
        } catch (IOException ignored) {
          // the caller has gone
        }
      }
    } finally {
      closeQuietly(index);
      if (open.decrementAndGet() == 0 && session.isOpen()) {
        session.close(StatusCode.NORMAL, null, Callback.NOOP);
      }
    }
  }

  /** Sends one message on a channel and waits until it has left. */
  private void send(int channel, byte[] data) throws IOException {
    ByteBuffer message = ByteBuffer.allocate(data.length + 1);
    message.put((byte) channel).put(data).flip();
    synchronized (sending) {
      ChannelProtocol.sendAndWait(session, message);
    }
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    try {
      received(payload);
      callback.succeed();
    } finally {
      session.demand();
    }
  }

  /** Text frames carry the same bytes on the channel protocol: the Python client sends them. */
  @Override
  public void onWebSocketText(String message) {
    try {
      received(ByteBuffer.wrap(message.getBytes(StandardCharsets.UTF_8)));
    } finally {
      session.demand();
    }
  }

  private void received(ByteBuffer payload) {
    if (!payload.hasRemaining()) {
      return;
    }
    int channel = payload.get() & 0xff;
    int index = channel / 2;
    if (channel % 2 != 0 || index >= ports.size() || !payload.hasRemaining()) {
      return;
    }
    Socket socket = awaitSocket(index);
    if (socket == null) {
      return;
    }
    byte[] data = new byte[payload.remaining()];
    payload.get(data);
    try {
      OutputStream out = socket.getOutputStream();
      out.write(data);
      out.flush();
    } catch (IOException e) {
      // The pod closed the connection: what it no longer reads is dropped, as kubelet drops it.
    }
  }

  /** The socket of a port, once connected; null if the connection failed or did not come. */
  private Socket awaitSocket(int index) {
    try {
      return sockets.get(index).get(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }

  @Override
  public void onWebSocketClose(int code, String reason) {
    for (int i = 0; i < ports.size(); i++) {
      closeQuietly(i);
    }
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    LOG.debug("port-forward to {} failed", pod, cause);
    onWebSocketClose(StatusCode.SERVER_ERROR, null);
  }

  /** Closes a port's connection, or makes sure it will not be made. */
  private void closeQuietly(int index) {
    CompletableFuture<Socket> connected = sockets.get(index);
    connected.complete(null);
    Socket socket = connected.getNow(null);
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }
}
