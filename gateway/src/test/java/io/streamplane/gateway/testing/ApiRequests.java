package io.streamplane.gateway.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * Plain HTTP/1.1 requests to a gateway without TLS, as the integration tests send them: JSON in,
 * the answer as text, each waiting at most {@link #WAIT}.
 */
public final class ApiRequests {

  public static final ObjectMapper JSON = new ObjectMapper();
  public static final Duration WAIT = Duration.ofSeconds(30);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final String url;

  /** Requests to the gateway at {@code url} ({@code http://127.0.0.1:port}). */
  public ApiRequests(String url) {
    this.url = url;
  }

  public HttpResponse<String> get(String path) {
    return send("GET", path, null, null);
  }

  public HttpResponse<String> post(String path, JsonNode body) {
    return send("POST", path, "application/json", body.toString());
  }

  public HttpResponse<String> put(String path, JsonNode body) {
    return send("PUT", path, "application/json", body.toString());
  }

  /** A request with {@code body} (null: none) of {@code contentType} (null: no header). */
  public HttpResponse<String> send(String method, String path, String contentType, String body) {
    return send(method, path, contentType, body, "streamplane-test/1.0");
  }

  public HttpResponse<String> send(
      String method, String path, String contentType, String body, String userAgent) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(WAIT)
            .header("Accept", "application/json")
            .header("User-Agent", userAgent)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A GET whose answer is read as it comes ({@code handler}), for watches. */
  public <T> CompletableFuture<HttpResponse<T>> getAsync(
      String path, HttpResponse.BodyHandler<T> handler) {
    return http.sendAsync(
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(WAIT)
            .header("Accept", "application/json")
            .GET()
            .build(),
        handler);
  }

  /** Creates a namespace of a name no other test uses and returns the name. */
  public String createNamespace() {
    String name = KafkaBrokerExtension.uniqueName("ns").toLowerCase(Locale.ROOT);
    ObjectNode body = JSON.createObjectNode();
    body.putObject("metadata").put("name", name);
    HttpResponse<String> created = post("/api/v1/namespaces", body);
    if (created.statusCode() != 201) {
      throw new AssertionError("creating namespace " + name + ": " + created.body());
    }
    return name;
  }

  /** The answer's body as JSON. */
  public static JsonNode json(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
