package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.audit.RequestAudit;
import io.streamplane.gateway.request.QueryBooleans;
import io.streamplane.gateway.storage.ResourceService;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming subresources of pods, {@code pods/exec}, {@code pods/attach} and {@code
 * pods/portforward}, as kube-apiserver serves them to kubectl 1.32: over a WebSocket, proxied to
 * the pod's node, whose node server runs the stream (kubelet's {@code /exec}, {@code /attach} and
 * {@code /portForward} endpoints). The gateway checks the request, reads the pod and its node,
 * upgrades the caller's connection, dials the node with the same subprotocol and relays every
 * message both ways unchanged ({@link WebSocketRelay}), as kube-apiserver's upgrade-aware proxy
 * relays bytes.
 *
 * <p>Subprotocols: {@code v5.channel.k8s.io} (preferred) and {@code v4.channel.k8s.io} for exec and
 * attach; {@code SPDY/3.1+portforward.k8s.io} (SPDY tunnelled in WebSocket messages, kubectl's) or
 * {@code v4.channel.k8s.io} (kubelet's WebSocket port-forward, the other clients', the request's
 * {@code ports} passed on as kubelet's {@code port}) for port-forward. Checks, in kube-apiserver's
 * order and wording: the method (GET or POST, else 405); at least one of stdin, stdout, stderr
 * (400); the pod (404); the container, chosen as {@code pods/log} chooses it (400); a node (400
 * {@code pod X does not have a host assigned}); the container running (400 {@code container X is
 * not running}, from the pod's status); then the upgrade: a request that is no WebSocket upgrade
 * (kubectl's SPDY fallback) or offers none of the subprotocols is answered 400. A node that cannot
 * be dialled ends an exec or attach with a 500 Status on the error channel ({@code error dialing
 * backend: ...}), a port-forward by closing.
 *
 * <p>An endpoint inside the {@link HandlerChain}: a request reaches it authenticated, audited,
 * impersonated and authorized, the upgrade as a {@code create} of {@code pods/exec}, {@code
 * pods/attach} or {@code pods/portforward} whatever its method; the caller's credentials and
 * impersonation headers are not passed on to the node.
 *
 * <p>Limits: no SPDY upgrade (kubectl before 1.30 for exec, 1.31 for port-forward); plain WebSocket
 * to the node, no TLS; the {@code base64.channel.k8s.io} protocols are not offered.
 */
final class PodStreams extends Handler.Wrapper {

  private static final Logger LOG = LoggerFactory.getLogger(PodStreams.class);

  static final Pattern PATH =
      Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)/(exec|attach|portforward)/?$");

  /** The remote command protocols, most preferred first. */
  static final List<String> CHANNEL_PROTOCOLS = List.of("v5.channel.k8s.io", "v4.channel.k8s.io");

  /** Port-forward: SPDY/3.1 frames carried in WebSocket binary messages. */
  static final String PORT_FORWARD_PROTOCOL = "SPDY/3.1+portforward.k8s.io";

  /**
   * The port-forward protocols: SPDY tunnelled in WebSocket (kubectl's), then kubelet's plain
   * WebSocket protocol (the Python client's and fabric8's), whose ports are in the query.
   */
  static final List<String> PORT_FORWARD_PROTOCOLS =
      List.of(PORT_FORWARD_PROTOCOL, "v4.channel.k8s.io");

  /** The largest message relayed: kubectl writes at most 32 KiB of stdin at a time. */
  static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  private final ResourceService service;
  private final ResourceType pods;
  private final ResourceType nodes;
  private final ServerWebSocketContainer upgrades;
  private final WebSocketClient nodesClient = new WebSocketClient();

  PodStreams(
      ResourceRegistry registry,
      ResourceService service,
      ServerWebSocketContainer upgrades,
      Duration idleTimeout) {
    this.service = service;
    this.pods = registry.byResource("", "pods").orElseThrow();
    this.nodes = registry.byResource("", "nodes").orElseThrow();
    this.upgrades = upgrades;
    nodesClient.setIdleTimeout(idleTimeout);
    nodesClient.setMaxBinaryMessageSize(MAX_MESSAGE_BYTES);
    nodesClient.setMaxTextMessageSize(MAX_MESSAGE_BYTES);
    nodesClient.setConnectTimeout(Duration.ofSeconds(10).toMillis());
    addBean(nodesClient);
  }

  /** The settings of the WebSocket sessions of callers. */
  static void configure(ServerWebSocketContainer container, Duration idleTimeout) {
    container.setIdleTimeout(idleTimeout);
    container.setMaxBinaryMessageSize(MAX_MESSAGE_BYTES);
    container.setMaxTextMessageSize(MAX_MESSAGE_BYTES);
  }

  /** What a checked request streams: the node's URL and the subprotocols it may speak. */
  record Target(URI node, List<String> protocols, boolean errorChannel) {}

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    Matcher path = PATH.matcher(request.getHttpURI().getPath());
    if (!path.matches()) {
      return super.handle(request, response, callback);
    }
    try {
      Target target =
          target(
              request.getMethod(),
              path.group(1),
              path.group(2),
              path.group(3),
              Request.extractQueryParameters(request));
      List<String> offered = offered(request);
      String protocol =
          target.protocols().stream().filter(offered::contains).findFirst().orElse(null);
      if (!"websocket".equalsIgnoreCase(request.getHeaders().get(HttpHeader.UPGRADE))) {
        throw new ApiException(
            Statuses.badRequest(
                "unable to upgrade connection: only WebSocket streaming is served (subprotocols "
                    + String.join(", ", target.protocols())
                    + ")"));
      }
      if (protocol == null) {
        throw new ApiException(
            Statuses.badRequest(
                "requested protocol(s) are not supported: "
                    + offered
                    + "; supports "
                    + target.protocols()));
      }
      WebSocketRelay relay =
          new WebSocketRelay(nodesClient, target.node(), protocol, target.errorChannel());
      request.setAttribute(RequestContext.STREAM, relay.ended());
      boolean upgraded =
          upgrades.upgrade(
              (upgradeRequest, upgradeResponse, upgradeCallback) -> {
                upgradeResponse.setAcceptedSubProtocol(protocol);
                return relay;
              },
              request,
              response,
              callback);
      if (!upgraded) {
        request.removeAttribute(RequestContext.STREAM);
        throw new ApiException(
            Statuses.badRequest("unable to upgrade connection: not a WebSocket handshake"));
      }
    } catch (ApiException e) {
      Responses.status(response, callback, e.status());
    } catch (RuntimeException e) {
      // Answered here, as a Status without the stack trace; the audit records it as a panic.
      LOG.error("{} {} failed", request.getMethod(), request.getHttpURI(), e);
      if (request.getAttribute(RequestAudit.ATTRIBUTE) instanceof RequestAudit audit) {
        audit.panic(e.toString());
      }
      Responses.status(
          response,
          callback,
          Statuses.internalError(e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
    return true;
  }

  /** Checks a request as kube-apiserver does and finds the node endpoint that serves it. */
  Target target(
      String method, String namespace, String name, String subresource, Fields parameters) {
    if (!method.equals("GET") && !method.equals("POST")) {
      throw new ApiException(
          Statuses.methodNotAllowed("", "pods/" + subresource, method.toLowerCase()));
    }
    Map<String, String> query = new HashMap<>();
    parameters.forEach(f -> query.put(f.getName(), f.getValue()));
    List<String> command = parameters.getValues("command");
    boolean stdin = QueryBooleans.get(query, "stdin");
    boolean stdout = QueryBooleans.get(query, "stdout");
    boolean stderr = QueryBooleans.get(query, "stderr");
    boolean tty = QueryBooleans.get(query, "tty");
    boolean portForward = subresource.equals("portforward");
    if (!portForward && !stdin && !stdout && !stderr) {
      throw new ApiException(
          Statuses.badRequest("you must specify at least 1 of stdin, stdout, stderr"));
    }
    if (subresource.equals("exec") && (command == null || command.isEmpty())) {
      throw new ApiException(Statuses.badRequest("you must specify a command to run"));
    }
    ObjectNode pod = service.get(pods, namespace, name);
    String container =
        portForward ? null : PodLogs.container(pod, name, query.getOrDefault("container", ""));
    String nodeName = pod.at("/spec/nodeName").asText("");
    if (nodeName.isEmpty()) {
      throw new ApiException(Statuses.badRequest("pod " + name + " does not have a host assigned"));
    }
    if (!portForward && !running(pod, container)) {
      throw new ApiException(Statuses.badRequest("container " + container + " is not running"));
    }
    String hostPort = PodLogs.hostPort(service.get(nodes, null, nodeName));
    StringJoiner q = new StringJoiner("&");
    String endpoint;
    switch (subresource) {
      case "exec" -> {
        endpoint = "/exec/" + encode(namespace) + "/" + encode(name) + "/" + encode(container);
        streamQuery(q, stdin, stdout, stderr, tty);
        for (String word : command) {
          q.add("command=" + URLEncoder.encode(word, StandardCharsets.UTF_8));
        }
      }
      case "attach" -> {
        endpoint = "/attach/" + encode(namespace) + "/" + encode(name) + "/" + encode(container);
        streamQuery(q, stdin, stdout, stderr, tty);
      }
      default -> {
        endpoint = "/portForward/" + encode(namespace) + "/" + encode(name);
        // Plain WebSocket port-forward names its ports in the query, which kubelet reads as port.
        List<String> ports = parameters.getValues("ports");
        for (String port : ports == null ? List.<String>of() : ports) {
          q.add("port=" + URLEncoder.encode(port, StandardCharsets.UTF_8));
        }
      }
    }
    URI uri =
        URI.create("ws://" + hostPort + endpoint + (q.length() == 0 ? "" : "?" + q.toString()));
    return new Target(uri, portForward ? PORT_FORWARD_PROTOCOLS : CHANNEL_PROTOCOLS, !portForward);
  }

  /** The query kubelet's streaming endpoints read, as kube-apiserver's streamParams writes it. */
  private static void streamQuery(
      StringJoiner q, boolean stdin, boolean stdout, boolean stderr, boolean tty) {
    if (stdin) {
      q.add("input=1");
    }
    if (stdout) {
      q.add("output=1");
    }
    if (stderr) {
      q.add("error=1");
    }
    if (tty) {
      q.add("tty=1");
    }
  }

  /** True when the pod's status shows the container (or init container) running. */
  static boolean running(JsonNode pod, String container) {
    for (String field :
        List.of("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")) {
      for (JsonNode status : pod.path("status").path(field)) {
        if (status.path("name").asText().equals(container)) {
          return status.path("state").has("running");
        }
      }
    }
    return false;
  }

  /** The subprotocols a WebSocket handshake offers, in its order. */
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

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
