package io.streamplane.node.logs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.streamplane.node.NodeApi;
import io.streamplane.node.runtime.PodRuntime;
import io.streamplane.node.streams.NodeStreams;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.spi.JettyHttpServer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's kubelet endpoint for container logs: {@code GET
 * /containerLogs/{namespace}/{pod}/{container}} with the {@code PodLogOptions} query ({@code
 * follow}, {@code previous}, {@code tailLines}, {@code timestamps}, {@code sinceSeconds}, {@code
 * sinceTime}, {@code limitBytes}), answered {@code text/plain}, chunked and flushed as it is read,
 * from the files a {@link LogLocator} finds. The gateway proxies {@code pods/log} to it; the Node
 * publishes its port as {@code status.daemonEndpoints.kubeletEndpoint.Port}.
 *
 * <p>Errors are {@code Status} bodies with kubelet's codes and messages: 404 {@code pod "p" does
 * not exist} and {@code container "c" not found in pod "p"}; 400 {@code previous terminated
 * container "c" in pod "p" not found} and {@code container "c" in pod "p" is waiting to start:
 * ContainerCreating}; 400 {@code Unable to decode query.}; 422 {@code Invalid request.}.
 *
 * <p>The server is Jetty (this handler runs on it through {@code jetty-http-spi}); given a runtime,
 * it also serves kubelet's streaming endpoints {@code /exec}, {@code /attach} and {@code
 * /portForward} ({@link NodeStreams}). A runtime that writes no logs (the simulated one) has every
 * log request answered 400 with the runtime's reason.
 *
 * <p>Limits: plain HTTP, no authentication (kubelet serves HTTPS with client certificates); a
 * follower of a container that writes nothing notices its client left only when the container
 * stops.
 */
public final class NodeLogServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeLogServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "/containerLogs/";

  /** How long a stream may stay silent: kubelet's default stream idle timeout. */
  private static final Duration IDLE_TIMEOUT = Duration.ofHours(4);

  private static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  private final Server http;
  private final ServerConnector connector;
  private final LogLocator locator;
  private final String noLogs;
  private final Clock clock;
  private volatile NodeApi nodeApi;

  private NodeLogServer(
      Server http, ServerConnector connector, LogLocator locator, String noLogs, Clock clock) {
    this.http = http;
    this.connector = connector;
    this.locator = locator;
    this.noLogs = noLogs;
    this.clock = clock;
  }

  /**
   * Starts serving container logs on {@code host:port} (0: an ephemeral port, see {@link #port()}).
   */
  public static NodeLogServer start(String host, int port, LogLocator locator, Clock clock)
      throws IOException {
    return start(host, port, locator, null, null, clock);
  }

  /**
   * Starts serving the logs {@code locator} finds (null: every log request answered 400 {@code
   * noLogs}) and, with a {@code runtime}, its containers' streams.
   */
  public static NodeLogServer start(
      String host, int port, LogLocator locator, String noLogs, PodRuntime runtime, Clock clock)
      throws IOException {
    QueuedThreadPool threads = new QueuedThreadPool(1_000, 2);
    threads.setName("node-server");
    threads.setDaemon(true);
    Server server = new Server(threads);
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    WebSocketUpgradeHandler upgrades =
        WebSocketUpgradeHandler.from(
            server,
            container -> {
              container.setIdleTimeout(IDLE_TIMEOUT);
              container.setMaxBinaryMessageSize(MAX_MESSAGE_BYTES);
              container.setMaxTextMessageSize(MAX_MESSAGE_BYTES);
            });
    if (runtime != null) {
      NodeStreams streams = new NodeStreams(runtime, upgrades.getServerWebSocketContainer());
      streams.setHandler(contexts);
      upgrades.setHandler(streams);
    } else {
      upgrades.setHandler(contexts);
    }
    server.setHandler(upgrades);
    HttpConfiguration configuration = new HttpConfiguration();
    configuration.setSendServerVersion(false);
    ServerConnector connector =
        new ServerConnector(server, new HttpConnectionFactory(configuration));
    connector.setHost(host);
    connector.setPort(port);
    connector.setAcceptQueueSize(64);
    connector.setIdleTimeout(IDLE_TIMEOUT.toMillis());
    server.addConnector(connector);
    NodeLogServer logs = new NodeLogServer(server, connector, locator, noLogs, clock);
    new JettyHttpServer(server, true, configuration).createContext("/", logs::handle);
    try {
      server.start();
    } catch (Exception e) {
      throw new IOException("cannot serve on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    return logs;
  }

  /**
   * Serves the kubelet's {@code /stats/summary}, {@code /metrics}, {@code /configz} and {@code
   * /logs/} too.
   */
  public void serveNodeApi(NodeApi api) {
    this.nodeApi = api;
  }

  /** The bound port. */
  public int port() {
    return connector.getLocalPort();
  }

  @Override
  public void close() {
    try {
      http.stop();
    } catch (Exception e) {
      LOG.warn("could not stop the node server: {}", e.toString());
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      NodeApi api = nodeApi;
      if (api != null && NodeApi.serves(path)) {
        api.handle(exchange, path);
        return;
      }
      List<String> parts = path.startsWith(PREFIX) ? segments(path) : List.of();
      if (parts.size() != 3) {
        status(exchange, 404, "NotFound", "404 page not found");
        return;
      }
      if (!exchange.getRequestMethod().equals("GET")) {
        status(exchange, 405, "MethodNotAllowed", "405: Method Not Allowed");
        return;
      }
      serve(exchange, parts.get(0), parts.get(1), parts.get(2));
    } catch (IOException e) {
      LOG.debug("log client went away", e);
    } catch (RuntimeException e) {
      if (e.getCause() instanceof IOException) {
        // Jetty's exchange wraps the I/O error of a client that went away while it closed.
        LOG.debug("log client went away", e);
      } else {
        LOG.warn("{} failed", exchange.getRequestURI(), e);
      }
    }
  }

  private void serve(HttpExchange exchange, String namespace, String pod, String container)
      throws IOException {
    LogOptions options;
    try {
      options = LogOptions.parse(query(exchange.getRequestURI().getRawQuery()), clock.instant());
    } catch (LogOptions.InvalidException e) {
      status(exchange, 422, "Invalid", "Invalid request.");
      return;
    } catch (LogOptions.DecodeException e) {
      status(exchange, 400, "BadRequest", "Unable to decode query.");
      return;
    }
    if (locator == null) {
      status(exchange, 400, "BadRequest", noLogs);
      return;
    }
    Optional<ContainerLogs> located = locator.locate(namespace, pod, container);
    if (located.isEmpty()) {
      status(exchange, 404, "NotFound", "pod " + quote(pod) + " does not exist");
      return;
    }
    ContainerLogs logs = located.get();
    if (!logs.exists()) {
      status(
          exchange,
          404,
          "NotFound",
          "container " + quote(container) + " not found in pod " + quote(pod));
      return;
    }
    Path file;
    BooleanSupplier running;
    if (options.previous()) {
      if (logs.previous().isEmpty()) {
        status(
            exchange,
            400,
            "BadRequest",
            "previous terminated container "
                + quote(container)
                + " in pod "
                + quote(pod)
                + " not found");
        return;
      }
      file = logs.previous().get();
      running = () -> false;
    } else {
      if (logs.current().isEmpty()) {
        status(
            exchange,
            400,
            "BadRequest",
            "container "
                + quote(container)
                + " in pod "
                + quote(pod)
                + " is waiting to start: "
                + logs.waitingReason());
        return;
      }
      file = logs.current().get();
      running = logs.running();
    }
    if (!file.toFile().isFile()) {
      status(
          exchange,
          400,
          "BadRequest",
          "container " + quote(container) + " in pod " + quote(pod) + " is not available");
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "text/plain");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      ContainerLogReader.copy(file, options, running, out);
    } catch (NoSuchFileException e) {
      LOG.debug("{} went away while read", file, e);
    }
  }

  private static void status(HttpExchange exchange, int code, String reason, String message)
      throws IOException {
    ObjectNode status = JsonNodeFactory.instance.objectNode();
    status.put("kind", "Status").put("apiVersion", "v1");
    status.putObject("metadata");
    status.put("status", "Failure").put("message", message).put("reason", reason);
    status.put("code", code);
    byte[] body = JSON.writeValueAsBytes(status);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static List<String> segments(String path) {
    List<String> parts = new ArrayList<>();
    for (String s : path.substring(PREFIX.length()).split("/")) {
      if (!s.isEmpty()) {
        parts.add(s);
      }
    }
    return parts;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> query = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return query;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      query.putIfAbsent(key, value);
    }
    return query;
  }

  /** Go's %q for the names Kubernetes allows (no quotes or backslashes to escape in practice). */
  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
