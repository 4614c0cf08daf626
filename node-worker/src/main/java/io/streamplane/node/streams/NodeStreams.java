package io.streamplane.node.streams;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamplane.node.runtime.ContainerStreamException;
import io.streamplane.node.runtime.PodRuntime;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;

/**
 * The node's streaming endpoints, kubelet's: {@code /exec/{namespace}/{pod}/{container}} (query
 * {@code command}, repeated, and {@code input}, {@code output}, {@code error}, {@code tty}), {@code
 * /attach/{namespace}/{pod}/{container}} (the same without {@code command}) and {@code
 * /portForward/{namespace}/{pod}}, each a WebSocket upgrade: the remote command protocol ({@link
 * ChannelProtocol}, {@link RemoteCommandSession}) for exec and attach; for port-forward SPDY
 * tunnelled in WebSocket ({@link PortForwardSession}, kubectl's) or kubelet's plain WebSocket
 * protocol ({@link WebSocketPortForward}, the other clients', ports in the query's {@code port}).
 * The gateway relays {@code pods/exec}, {@code pods/attach} and {@code pods/portforward} here.
 *
 * <p>Errors before the upgrade are HTTP answers with a Status: 400 {@code you must specify at least
 * 1 of stdin, stdout, stderr}, 400 for a request that is no WebSocket upgrade or offers no protocol
 * served. What the runtime refuses (no such pod or container, a runtime that runs no processes)
 * comes as the Status on the error channel, after the upgrade, as kubelet's streaming server
 * reports a failed exec.
 */
public final class NodeStreams extends Handler.Wrapper {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern PATH =
      Pattern.compile(
          "^/(exec|attach)/([^/]+)/([^/]+)/([^/]+)/?$|^/portForward/([^/]+)/([^/]+)/?$");

  private final PodRuntime runtime;
  private final ServerWebSocketContainer upgrades;
  private final ExecutorService pumps;

  public NodeStreams(PodRuntime runtime, ServerWebSocketContainer upgrades) {
    this.runtime = runtime;
    this.upgrades = upgrades;
    AtomicInteger threads = new AtomicInteger();
    this.pumps =
        Executors.newCachedThreadPool(
            r -> {
              Thread thread = new Thread(r, "node-streams-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    Matcher path = PATH.matcher(request.getHttpURI().getPath());
    if (!path.matches()) {
      return super.handle(request, response, callback);
    }
    if (!"websocket".equalsIgnoreCase(request.getHeaders().get(HttpHeader.UPGRADE))) {
      status(response, callback, 400, "BadRequest", "Upgrade request required");
      return true;
    }
    List<String> offered = offered(request);
    if (path.group(1) == null) {
      return portForward(request, response, callback, path.group(5), path.group(6), offered);
    }
    String kind = path.group(1);
    String namespace = path.group(2);
    String pod = path.group(3);
    String container = path.group(4);
    Fields query = Request.extractQueryParameters(request);
    RemoteCommandSession.Streams streams =
        new RemoteCommandSession.Streams(
            flag(query, "input"), flag(query, "output"), flag(query, "error"), flag(query, "tty"));
    if (!streams.stdin() && !streams.stdout() && !streams.stderr()) {
      status(
          response,
          callback,
          400,
          "BadRequest",
          "you must specify at least 1 of stdin, stdout, stderr");
      return true;
    }
    String protocol =
        ChannelProtocol.PROTOCOLS.stream().filter(offered::contains).findFirst().orElse(null);
    if (protocol == null) {
      unsupported(response, callback, offered, ChannelProtocol.PROTOCOLS);
      return true;
    }
    List<String> command =
        query.getValues("command") == null ? List.of() : List.copyOf(query.getValues("command"));
    RemoteCommandSession session =
        kind.equals("exec")
            ? new RemoteCommandSession(
                () -> runtime.execStream(namespace, pod, container, command, streams.tty()),
                command,
                streams,
                protocol,
                pumps,
                RemoteCommandSession.LEFT_GRACE)
            : new RemoteCommandSession(
                () -> runtime.attach(namespace, pod, container, streams.stdin(), streams.tty()),
                command,
                streams,
                protocol,
                pumps,
                Duration.ZERO);
    upgrade(request, response, callback, protocol, session);
    return true;
  }

  private boolean portForward(
      Request request,
      Response response,
      Callback callback,
      String namespace,
      String pod,
      List<String> offered) {
    boolean spdy = offered.contains(PortForwardSession.PROTOCOL);
    if (!spdy && !offered.contains(WebSocketPortForward.PROTOCOL)) {
      unsupported(
          response,
          callback,
          offered,
          List.of(PortForwardSession.PROTOCOL, WebSocketPortForward.PROTOCOL));
      return true;
    }
    List<Integer> ports = List.of();
    if (!spdy) {
      // Plain WebSocket names its ports in the query; SPDY in each stream's headers.
      try {
        ports =
            WebSocketPortForward.ports(Request.extractQueryParameters(request).getValues("port"));
      } catch (IllegalArgumentException e) {
        status(response, callback, 400, "BadRequest", e.getMessage());
        return true;
      }
    }
    try {
      runtime.portForwardAddress(namespace, pod);
    } catch (ContainerStreamException e) {
      status(response, callback, e.code(), e.reason(), e.getMessage());
      return true;
    }
    if (spdy) {
      upgrade(
          request,
          response,
          callback,
          PortForwardSession.PROTOCOL,
          new PortForwardSession(() -> runtime.portForwardAddress(namespace, pod), pod, pumps));
    } else {
      upgrade(
          request,
          response,
          callback,
          WebSocketPortForward.PROTOCOL,
          new WebSocketPortForward(
              () -> runtime.portForwardAddress(namespace, pod), pod, ports, pumps));
    }
    return true;
  }

  private void upgrade(
      Request request, Response response, Callback callback, String protocol, Object endpoint) {
    boolean upgraded =
        upgrades.upgrade(
            (upgradeRequest, upgradeResponse, upgradeCallback) -> {
              upgradeResponse.setAcceptedSubProtocol(protocol);
              return endpoint;
            },
            request,
            response,
            callback);
    if (!upgraded) {
      status(response, callback, 400, "BadRequest", "Upgrade request required");
    }
  }

  private static void unsupported(
      Response response, Callback callback, List<String> offered, List<String> served) {
    status(
        response,
        callback,
        400,
        "BadRequest",
        "requested protocol(s) are not supported: " + offered + "; supports " + served);
  }

  private static boolean flag(Fields query, String name) {
    String value = query.getValue(name);
    return value != null && (value.equals("1") || value.equalsIgnoreCase("true"));
  }

  private static List<String> offered(Request request) {
    List<String> offered = new ArrayList<>();
    for (String header : request.getHeaders().getValuesList(HttpHeader.SEC_WEBSOCKET_SUBPROTOCOL)) {
      for (String protocol : header.split(",")) {
        if (!protocol.isBlank()) {
          offered.add(protocol.trim());
        }
      }
    }
    return offered;
  }

  static void status(
      Response response, Callback callback, int code, String reason, String message) {
    try {
      byte[] body =
          JSON.writeValueAsBytes(
              Map.of(
                  "kind",
                  "Status",
                  "apiVersion",
                  "v1",
                  "metadata",
                  Map.of(),
                  "status",
                  "Failure",
                  "message",
                  message,
                  "reason",
                  reason,
                  "code",
                  code));
      response.setStatus(code);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.write(true, ByteBuffer.wrap(body), callback);
    } catch (IOException e) {
      callback.failed(e);
    }
  }

  @Override
  protected void doStop() throws Exception {
    pumps.shutdownNow();
    super.doStop();
  }
}
