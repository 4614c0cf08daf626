package io.streamplane.gateway.server;

import io.streamplane.gateway.api.Statuses;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.client.ClientUpgradeRequest;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One caller's WebSocket relayed to a node's: every message of one side is sent to the other as it
 * is, the next one read only once that send completed (so a slow side slows the other, nothing
 * piles up in between). The caller's messages wait until the node's socket is open. Either side
 * closing closes the other with the same code.
 *
 * <p>A node that cannot be dialled: with an error channel (exec, attach), the caller gets a 500
 * Status there, as kube-apiserver answers when it cannot reach the kubelet, then the close; else
 * (port-forward) only the close, code 1011 with the reason.
 */
public final class WebSocketRelay implements Session.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(WebSocketRelay.class);
  private static final byte ERROR_CHANNEL = 3;

  private final WebSocketClient client;
  private final URI node;
  private final String protocol;
  private final boolean errorChannel;
  private volatile Session caller;
  private volatile Session backend;
  private final CompletableFuture<Void> ended = new CompletableFuture<>();

  WebSocketRelay(WebSocketClient client, URI node, String protocol, boolean errorChannel) {
    this.client = client;
    this.node = node;
    this.protocol = protocol;
    this.errorChannel = errorChannel;
  }

  @Override
  public void onWebSocketOpen(Session session) {
    caller = session;
    ClientUpgradeRequest request = new ClientUpgradeRequest();
    request.setSubProtocols(protocol);
    try {
      client
          .connect(new Backend(), node, request)
          .whenComplete(
              (opened, failure) -> {
                if (failure != null) {
                  unreachable(failure);
                } else if (!session.isOpen()) {
                  // The caller left while the node was dialled.
                  opened.close(StatusCode.NORMAL, "caller left", Callback.NOOP);
                } else {
                  session.demand();
                }
              });
    } catch (IOException e) {
      unreachable(e);
    }
  }

  private void unreachable(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    String message =
        "error dialing backend: dial tcp "
            + node.getHost()
            + ":"
            + node.getPort()
            + ": "
            + describe(cause);
    LOG.debug("cannot reach {}", node, cause);
    ended.complete(null);
    if (!errorChannel) {
      caller.close(StatusCode.SERVER_ERROR, message, Callback.NOOP);
      return;
    }
    try {
      byte[] status = Responses.JSON.writeValueAsBytes(Statuses.internalError(message));
      ByteBuffer frame = ByteBuffer.allocate(status.length + 1);
      frame.put(ERROR_CHANNEL).put(status).flip();
      caller.sendBinary(
          frame,
          Callback.from(
              () -> caller.close(StatusCode.NORMAL, null, Callback.NOOP),
              x -> caller.close(StatusCode.SERVER_ERROR, message, Callback.NOOP)));
    } catch (IOException e) {
      caller.close(StatusCode.SERVER_ERROR, message, Callback.NOOP);
    }
  }

  private static String describe(Throwable cause) {
    if (cause instanceof ConnectException) {
      return "connect: connection refused";
    }
    if (cause instanceof TimeoutException || cause instanceof HttpConnectTimeoutException) {
      return "i/o timeout";
    }
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }

  @Override
  public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
    relay(backend, caller, payload, callback);
  }

  @Override
  public void onWebSocketText(String message) {
    relayText(backend, caller, message);
  }

  @Override
  public void onWebSocketClose(int code, String reason) {
    closeOther(backend, code, reason);
    ended.complete(null);
  }

  @Override
  public void onWebSocketError(Throwable cause) {
    LOG.debug("caller stream to {} failed", node, cause);
    closeOther(backend, StatusCode.SERVER_ERROR, "caller failed");
    ended.complete(null);
  }

  /** Completes when either side of the stream has closed or failed. */
  CompletableFuture<Void> ended() {
    return ended;
  }

  /** The node's side of the relay. */
  public final class Backend implements Session.Listener {

    @Override
    public void onWebSocketOpen(Session session) {
      backend = session;
      session.demand();
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
      relay(caller, backend, payload, callback);
    }

    @Override
    public void onWebSocketText(String message) {
      relayText(caller, backend, message);
    }

    // The stream is over when the node ends it, whether or not the caller answers the close:
    // a client that exits on the node's last message (kubectl attach refused) may never do so.
    @Override
    public void onWebSocketClose(int code, String reason) {
      closeOther(caller, code, reason);
      ended.complete(null);
    }

    @Override
    public void onWebSocketError(Throwable cause) {
      LOG.debug("node stream {} failed", node, cause);
      closeOther(caller, StatusCode.SERVER_ERROR, "node failed");
      ended.complete(null);
    }
  }

  private static void relay(Session to, Session from, ByteBuffer payload, Callback callback) {
    to.sendBinary(
        payload,
        Callback.from(
            () -> {
              callback.succeed();
              from.demand();
            },
            failure -> {
              callback.fail(failure);
              from.close(StatusCode.SERVER_ERROR, "relay failed", Callback.NOOP);
            }));
  }

  private static void relayText(Session to, Session from, String message) {
    to.sendText(
        message,
        Callback.from(
            from::demand,
            failure -> from.close(StatusCode.SERVER_ERROR, "relay failed", Callback.NOOP)));
  }

  /** Closes the other side with the code this side closed with (one a peer may send). */
  private static void closeOther(Session other, int code, String reason) {
    if (other == null || !other.isOpen()) {
      return;
    }
    int sendable =
        code == StatusCode.NO_CODE
                || code == StatusCode.NO_CLOSE
                || code == StatusCode.FAILED_TLS_HANDSHAKE
            ? StatusCode.NORMAL
            : code;
    other.close(sendable, reason, Callback.NOOP);
  }
}
