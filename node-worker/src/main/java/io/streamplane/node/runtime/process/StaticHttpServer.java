package io.streamplane.node.runtime.process;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The process runtime's stand-in for the {@code nginx} image: a tiny static HTTP server on the
 * JDK's {@code com.sun.net.httpserver}, run as its own process by {@link ProcessRuntime}.
 *
 * <p>Contract: {@code main --address <ip> --port <port> --root <dir>} (defaults {@code 0.0.0.0}, 80
 * and {@code /usr/share/nginx/html}) serves the regular files under the root (a path ending in
 * {@code /} is its {@code index.html}) — so a ConfigMap mounted there is served as by nginx — and
 * otherwise {@code GET /} (and {@code /index.html}) with nginx's "Welcome to nginx!" page, {@code
 * HEAD} the same headers, anything else 404; it prints one access line per request to stdout, in
 * nginx's combined format, and runs until the process is signalled.
 *
 * <p>Limits: no directory listings, no configuration, no TLS.
 */
public final class StaticHttpServer {

  static final String PAGE =
      """
      <!DOCTYPE html>
      <html>
      <head><title>Welcome to nginx!</title></head>
      <body>
      <h1>Welcome to nginx!</h1>
      <p>Served by the Streamplane process runtime's built-in static HTTP server.</p>
      </body>
      </html>
      """;

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT);

  /** Where files are served from, when it exists (nginx's {@code /usr/share/nginx/html}). */
  private static Path root = Path.of("/usr/share/nginx/html");

  private StaticHttpServer() {}

  public static void main(String[] args) throws IOException {
    String address = "0.0.0.0";
    int port = 80;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--address" -> address = args[++i];
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--root" -> root = Path.of(args[++i]).toAbsolutePath().normalize();
        default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
      }
    }
    HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 64);
    server.createContext("/", StaticHttpServer::handle);
    server.start();
    System.out.println("static HTTP server listening on " + address + ":" + port);
    System.out.flush();
  }

  /** The regular file under the root that {@code path} names ("/" is index.html), or null. */
  private static Path file(String path) {
    try {
      String name = URLDecoder.decode(path, StandardCharsets.UTF_8);
      Path file = root.resolve((name.endsWith("/") ? name + "index.html" : name).substring(1));
      file = file.normalize();
      return file.startsWith(root) && Files.isRegularFile(file) ? file : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static void handle(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    boolean page = "/".equals(path) || "/index.html".equals(path);
    boolean head = "HEAD".equals(method);
    int status;
    byte[] body;
    Path file = file(path);
    if (file != null && ("GET".equals(method) || head)) {
      status = 200;
      body = Files.readAllBytes(file);
      String type = Files.probeContentType(file);
      exchange.getResponseHeaders().set("Content-Type", type == null ? "text/plain" : type);
    } else if (page && ("GET".equals(method) || head)) {
      status = 200;
      body = PAGE.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/html");
    } else {
      status = 404;
      body = "<html><body><h1>404 Not Found</h1></body></html>\n".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/html");
    }
    exchange.getResponseHeaders().set("Server", "nginx (streamplane static)");
    try (OutputStream out = exchange.getResponseBody()) {
      exchange.sendResponseHeaders(status, head ? -1 : body.length);
      if (!head) {
        out.write(body);
      }
    }
    String agent = exchange.getRequestHeaders().getFirst("User-Agent");
    String referer = exchange.getRequestHeaders().getFirst("Referer");
    synchronized (System.out) {
      System.out.printf(
          "%s - - [%s] \"%s %s %s\" %d %d \"%s\" \"%s\"%n",
          exchange.getRemoteAddress().getAddress().getHostAddress(),
          TIME.format(ZonedDateTime.now()),
          method,
          requestTarget(exchange.getRequestURI()),
          exchange.getProtocol(),
          status,
          head ? 0 : body.length,
          referer == null ? "-" : referer,
          agent == null ? "-" : agent);
      System.out.flush();
    }
  }

  /**
   * The request line's target as nginx logs it: path and query. The server may hand the URI over
   * absolute (Jetty's does), so it is rebuilt from its raw parts.
   */
  private static String requestTarget(URI uri) {
    return uri.getRawQuery() == null
        ? uri.getRawPath()
        : uri.getRawPath() + "?" + uri.getRawQuery();
  }
}
