package io.streamplane.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.streamplane.schema.convert.KubeJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import org.apache.avro.specific.SpecificRecord;

/**
 * A node's connection to the Kubernetes API: asynchronous JSON requests to one gateway, with Avro
 * records converted at this edge only. Over HTTPS a client speaks as one identity, its client
 * certificate; {@link #as} makes the client of another identity (each node of a fleet its own
 * {@code system:node:NAME}) sharing this one's threads and its limit of requests on the wire.
 *
 * <p>Contract: every call completes with the HTTP status and the decoded body (a Kubernetes object
 * or {@code Status}), whatever the status; it completes exceptionally only when no answer came
 * (connection refused, timeout). At most {@code maxInFlight} requests are on the wire at once;
 * others wait in arrival order, so a fleet of thousands of nodes starting together does not open
 * thousands of connections; the limit holds across the clients made by {@link #as}. Thread-safe.
 *
 * <p>Limits: each identity has its own JDK HTTP client (a selector thread and a connection pool):
 * the JDK client cannot choose a client certificate per request.
 */
public final class GatewayClient implements AutoCloseable {

  /** An answer: its HTTP status and JSON body ({@code NullNode} when empty). */
  public record Reply(int status, JsonNode body) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  private static final Duration TIMEOUT = Duration.ofSeconds(40);

  /** What the clients of one fleet share: the threads and the requests waiting for the wire. */
  private static final class Shared {
    final ExecutorService executor;
    final int maxInFlight;
    final Queue<Runnable> waiting = new ArrayDeque<>();
    int inFlight;

    Shared(int maxInFlight) {
      this.maxInFlight = maxInFlight;
      this.executor =
          Executors.newFixedThreadPool(
              2,
              r -> {
                Thread thread = new Thread(r, "node-http");
                thread.setDaemon(true);
                return thread;
              });
    }
  }

  private final URI base;
  private final Shared shared;
  private final boolean owner;
  private final HttpClient http;
  private final KubeJson json = new KubeJson();

  /** A client of {@code apiServer} over plain HTTP, or HTTPS with the JDK's default trust. */
  public GatewayClient(String apiServer, int maxInFlight) {
    this(apiServer, maxInFlight, null);
  }

  /**
   * A client of {@code apiServer} whose TLS context ({@code tls}: its client certificate, the CA it
   * trusts) is its identity; null for plain HTTP.
   */
  public GatewayClient(String apiServer, int maxInFlight, SSLContext tls) {
    this(
        URI.create(apiServer.endsWith("/") ? apiServer : apiServer + "/"),
        new Shared(maxInFlight),
        true,
        tls);
  }

  private GatewayClient(URI base, Shared shared, boolean owner, SSLContext tls) {
    this.base = base;
    this.shared = shared;
    this.owner = owner;
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .executor(shared.executor);
    if (tls != null) {
      builder.sslContext(tls);
    }
    this.http = builder.build();
  }

  /**
   * A client of the same gateway speaking as the identity of {@code tls}, sharing this client's
   * threads and in-flight limit; this client's {@link #close} stops both.
   */
  public GatewayClient as(SSLContext tls) {
    return new GatewayClient(base, shared, false, tls);
  }

  public String apiServer() {
    return base.toString();
  }

  public CompletableFuture<Reply> get(String path) {
    return send(request(path).GET().build());
  }

  public CompletableFuture<Reply> post(String path, SpecificRecord object) {
    return send(request(path).POST(body(object)).build());
  }

  /** POST of a JSON body that is no stored kind (a TokenRequest). */
  public CompletableFuture<Reply> postJson(String path, String json) {
    return send(
        request(path)
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .header("Content-Type", "application/json")
            .build());
  }

  /** PUT of a JSON body (a CSINode the node edits as JSON). */
  public CompletableFuture<Reply> putJson(String path, String json) {
    return send(
        request(path)
            .PUT(HttpRequest.BodyPublishers.ofString(json))
            .header("Content-Type", "application/json")
            .build());
  }

  /** A JSON merge patch ({@code application/merge-patch+json}). */
  public CompletableFuture<Reply> mergePatch(String path, String json) {
    return send(
        request(path)
            .method("PATCH", HttpRequest.BodyPublishers.ofString(json))
            .header("Content-Type", "application/merge-patch+json")
            .build());
  }

  public CompletableFuture<Reply> put(String path, SpecificRecord object) {
    return send(request(path).PUT(body(object)).build());
  }

  /** DELETE with a DeleteOptions body, e.g. {@code {"gracePeriodSeconds":0}}. */
  public CompletableFuture<Reply> delete(String path, String deleteOptions) {
    return send(
        request(path)
            .method("DELETE", HttpRequest.BodyPublishers.ofString(deleteOptions))
            .header("Content-Type", "application/json")
            .build());
  }

  /** The body of a successful answer as {@code type}. */
  public <T extends SpecificRecord> T decode(Reply reply, Class<T> type) {
    return json.toAvro(reply.body(), type).record();
  }

  /**
   * The body of {@code reply} as {@code type}; an IllegalStateException naming {@code what} unless
   * it is a success.
   */
  <T extends SpecificRecord> T expect(Reply reply, Class<T> type, String what) {
    if (!reply.ok()) {
      throw new IllegalStateException(what + ": " + reply);
    }
    return decode(reply, type);
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path.startsWith("/") ? path.substring(1) : path))
        .timeout(TIMEOUT)
        .header("Accept", "application/json")
        .header("User-Agent", "streamplane-node/" + NodeObjects.KUBELET_VERSION);
  }

  private HttpRequest.BodyPublisher body(SpecificRecord object) {
    return HttpRequest.BodyPublishers.ofString(KubeJson.writeJson(json.toJson(object)));
  }

  private CompletableFuture<Reply> send(HttpRequest request) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    Runnable call =
        () ->
            http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .whenComplete(
                    (response, failure) -> {
                      next();
                      if (failure != null) {
                        reply.completeExceptionally(failure);
                        return;
                      }
                      try {
                        String text = response.body();
                        JsonNode body =
                            text == null || text.isBlank()
                                ? NullNode.getInstance()
                                : KubeJson.parseJson(text);
                        reply.complete(new Reply(response.statusCode(), body));
                      } catch (RuntimeException e) {
                        reply.completeExceptionally(e);
                      }
                    });
    boolean now;
    synchronized (shared) {
      now = shared.inFlight < shared.maxInFlight;
      if (now) {
        shared.inFlight++;
      } else {
        shared.waiting.add(call);
      }
    }
    if (now) {
      call.run();
    }
    return reply;
  }

  private void next() {
    Runnable call;
    synchronized (shared) {
      call = shared.waiting.poll();
      if (call == null) {
        shared.inFlight--;
      }
    }
    if (call != null) {
      call.run();
    }
  }

  @Override
  public void close() {
    if (owner) {
      shared.executor.shutdownNow();
    }
  }
}
