package io.streamplane.node.logs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
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
 * <p>Limits: plain HTTP, no authentication (kubelet serves HTTPS with client certificates); a
 * follower of a container that writes nothing notices its client left only when the container
 * stops.
 */
public final class NodeLogServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeLogServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "/containerLogs/";

  private final HttpServer http;
  private final ExecutorService executor;
  private final LogLocator locator;
  private final Clock clock;

  private NodeLogServer(
      HttpServer http, ExecutorService executor, LogLocator locator, Clock clock) {
    this.http = http;
    this.executor = executor;
    this.locator = locator;
    this.clock = clock;
  }

  /** Starts serving on {@code host:port} (0: an ephemeral port, see {@link #port()}). */
  public static NodeLogServer start(String host, int port, LogLocator locator, Clock clock)
      throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 64);
    ExecutorService executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread thread = new Thread(r, "node-logs");
              thread.setDaemon(true);
              return thread;
            });
    http.setExecutor(executor);
    NodeLogServer server = new NodeLogServer(http, executor, locator, clock);
    http.createContext("/", server::handle);
    http.start();
    return server;
  }

  /** The bound port. */
  public int port() {
    return http.getAddress().getPort();
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
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
      LOG.warn("{} failed", exchange.getRequestURI(), e);
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
