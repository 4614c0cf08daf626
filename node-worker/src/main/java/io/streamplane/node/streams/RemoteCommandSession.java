package io.streamplane.node.streams;

import io.streamplane.node.runtime.ContainerCommand;
import io.streamplane.node.runtime.ContainerStreamException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code exec} or {@code attach} stream on the node, kubelet's remote command server over
 * WebSocket ({@link ChannelProtocol}): starts the command when the socket opens, copies its stdout
 * and stderr to channels 1 and 2 as they are written, writes what arrives on channel 0 to its
 * stdin, and closes its stdin on v5's close of channel 0. Once the command ended and its output was
 * sent, the Status goes on channel 3 and the socket closes. A client that goes away ends the
 * command's stdin, as kubelet's stream does when its connection ends: everything the client sent
 * was written first (messages are handled in order), so a command reading its input to the end
 * finishes its work (v4 has no close of stdin; fabric8 uploads a file by streaming it into {@code
 * cat} and closing the socket). An exec still running {@link #LEFT_GRACE} later is killed; an
 * attach detaches at once. A command that cannot start ends the stream with the runtime's Status.
 *
 * <p>Without stdin the command's stdin is closed at once; an output not asked for is read and
 * dropped, so the command never blocks on it.
 */
public final class RemoteCommandSession implements Session.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(RemoteCommandSession.class);

  /** How long an exec whose client went away may run on before it is killed. */
  static final Duration LEFT_GRACE = Duration.ofSeconds(5);

  /** What the client asked to stream. */
  record Streams(boolean stdin, boolean stdout, boolean stderr, boolean tty) {}

  private final Supplier<ContainerCommand> start;
  private final List<String> command;
  private final Streams streams;
  private final String protocol;
  private final ExecutorService pumps;
  private final Duration leftGrace;
  private volatile Session session;
  private volatile ContainerCommand running;
  private volatile boolean ended;

  RemoteCommandSession(
      Supplier<ContainerCommand> start,
      List<String> command,
      Streams streams,
      String protocol,
      ExecutorService pumps,
      Duration leftGrace) {
    this.start = start;
    this.command = command;
    this.streams = streams;
    this.protocol = protocol;
    this.pumps = pumps;
    this.leftGrace = leftGrace;
  }

  @Override
  public void onWebSocketOpen(Session session) {
    this.session = session;
    pumps.execute(this::run);
  }

  private void run() {
    ContainerCommand started;
    try {
      started = start.get();
    } catch (ContainerStreamException e) {
      finish(
          ChannelProtocol.errorFrame(
              ChannelProtocol.failure(e.code(), e.reason(), e.getMessage())));
      return;
    } catch (RuntimeException e) {
      LOG.warn("cannot start {}", command, e);
      finish(
          ChannelProtocol.errorFrame(
              ChannelProtocol.failure(
                  500,
                  "InternalError",
                  "error executing command in container: " + e.getMessage())));
      return;
    }
    running = started;
    if (!streams.stdin()) {
      closeQuietly(started.stdin());
    }
    session.demand();
    CompletableFuture<Void> out =
        CompletableFuture.runAsync(
            () -> pump(started.stdout(), ChannelProtocol.STDOUT, streams.stdout()), pumps);
    CompletableFuture<Void> err =
        started.stderr() == null
            ? CompletableFuture.completedFuture(null)
            : CompletableFuture.runAsync(
                () -> pump(started.stderr(), ChannelProtocol.STDERR, streams.stderr()), pumps);
    try {
      int exitCode = started.waitFor();
      CompletableFuture.allOf(out, err).get();
      ended = true;
      finish(ChannelProtocol.errorFrame(ChannelProtocol.exitStatus(command, exitCode)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      started.kill();
    } catch (ExecutionException e) {
      started.kill();
      session.close(StatusCode.SERVER_ERROR, "output failed", Callback.NOOP);
    }
  }

  /** Copies one output to its channel (or drops it, when not asked for) until it ends. */
  private void pump(InputStream output, int channel, boolean send) {
    byte[] buffer = new byte[32 * 1024];
    try (output) {
      for (int n; (n = output.read(buffer)) >= 0; ) {
        if (send && n > 0) {
          send(ChannelProtocol.frame(channel, buffer, n));
        }
      }
    } catch (IOException e) {
      LOG.debug("output {} of {} ended", channel, command, e);
    }
  }

  /** Sends one message and waits until it is written, so output never piles up in memory. */
  private void send(ByteBuffer message) throws IOException {
    ChannelProtocol.sendAndWait(session, message);
  }

  private void finish(ByteBuffer status) {
    session.sendBinary(
        status,
        Callback.from(
            () -> session.close(StatusCode.NORMAL, null, Callback.NOOP),
            x -> session.close(StatusCode.SERVER_ERROR, "status not sent", Callback.NOOP)));
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    ContainerCommand command = running;
    try {
      if (command != null && payload.hasRemaining()) {
        int channel = ChannelProtocol.channel(payload);
        switch (channel) {
          case ChannelProtocol.STDIN -> {
            if (streams.stdin()) {
              byte[] data = new byte[payload.remaining()];
              payload.get(data);
              write(command.stdin(), data);
            }
          }
          case ChannelProtocol.RESIZE ->
              ChannelProtocol.size(payload).ifPresent(size -> command.resize(size[0], size[1]));
          case ChannelProtocol.CLOSE -> {
            if (ChannelProtocol.V5.equals(protocol)
                && payload.hasRemaining()
                && (payload.get() & 0xff) == ChannelProtocol.STDIN) {
              closeQuietly(command.stdin());
            }
          }
          default -> LOG.debug("message on channel {} dropped", channel);
        }
      }
      callback.succeed();
    } finally {
      session.demand();
    }
  }

  /**
   * A text message carries the same channel byte and data as a binary one (kubelet reads both alike
   * on the channel protocols): the Python client sends a {@code str} stdin as text.
   */
  @Override
  public void onWebSocketText(String message) {
    onWebSocketBinary(ByteBuffer.wrap(message.getBytes(StandardCharsets.UTF_8)), Callback.NOOP);
  }

  private static void write(OutputStream stdin, byte[] data) {
    try {
      stdin.write(data);
      stdin.flush();
    } catch (IOException e) {
      // The command closed its stdin or ended: what it does not read is dropped, as with a pipe.
    }
  }

  @Override
  public void onWebSocketClose(int code, String reason) {
    ContainerCommand command = running;
    if (command == null || ended) {
      return;
    }
    closeQuietly(command.stdin());
    if (leftGrace.isZero()) {
      command.kill();
    } else {
      CompletableFuture.runAsync(
          () -> {
            if (!ended) {
              command.kill();
            }
          },
          CompletableFuture.delayedExecutor(leftGrace.toMillis(), TimeUnit.MILLISECONDS));
    }
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    LOG.debug("stream of {} failed", command, cause);
    onWebSocketClose(StatusCode.SERVER_ERROR, null);
  }

  private static void closeQuietly(OutputStream stdin) {
    try {
      stdin.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
