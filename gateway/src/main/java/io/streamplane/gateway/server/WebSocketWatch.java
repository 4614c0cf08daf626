package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's watch over WebSocket ({@link WebSocketWatches}): the events sent from a thread of
 * its own, one text message each, each send awaited before the next; what the client sends is read
 * and dropped. Public because Jetty calls a listener's methods through method handles.
 */
public final class WebSocketWatch implements Session.Listener, Watches.Sink {

  private static final Logger LOG = LoggerFactory.getLogger(WebSocketWatch.class);

  private final Watches.Open watch;
  private final Executor senders;
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private volatile Session session;
  private volatile boolean gone;

  WebSocketWatch(Watches.Open watch, Executor senders) {
    this.watch = watch;
    this.senders = senders;
  }

  /** Completes when the watch has ended, whichever side ended it. */
  CompletableFuture<Void> ended() {
    return ended;
  }

  @Override
  public void onWebSocketOpen(Session session) {
    this.session = session;
    session.demand();
    senders.execute(
        () -> {
          try (watch) {
            watch.run(this);
          } catch (InterruptedException | InterruptedIOException e) {
            Thread.currentThread().interrupt();
            session.close(StatusCode.SHUTDOWN, "server stopping", Callback.NOOP);
          } catch (IOException | RuntimeException e) {
            LOG.debug("WebSocket watch ended", e);
            session.close(StatusCode.SERVER_ERROR, e.toString(), Callback.NOOP);
          } finally {
            ended.complete(null);
          }
        });
  }

  @Override
  public void onWebSocketText(String message) {
    session.demand();
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    callback.succeed();
    session.demand();
  }

  @Override
  public void onWebSocketClose(int code, String reason) {
    gone = true;
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    LOG.debug("WebSocket watch failed", cause);
    gone = true;
  }

  @Override
  public void event(String type, ObjectNode object) throws IOException {
    String text = Responses.JSON.writeValueAsString(Watches.watchEvent(type, object)) + "\n";
    CompletableFuture<Void> sent = new CompletableFuture<>();
    session.sendText(text, Callback.from(() -> sent.complete(null), sent::completeExceptionally));
    try {
      sent.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while sending a watch event");
    } catch (ExecutionException e) {
      gone = true;
      throw new IOException("the client did not take a watch event", e.getCause());
    }
  }

  @Override
  public void flush() {}

  @Override
  public void end() {
    session.close(StatusCode.NORMAL, null, Callback.NOOP);
  }

  @Override
  public boolean gone() {
    return gone;
  }
}
