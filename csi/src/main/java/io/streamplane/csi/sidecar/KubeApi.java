package io.streamplane.csi.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * The sidecars' connection to the Kubernetes API: blocking JSON requests to one gateway, speaking
 * as the identity of a TLS client certificate.
 *
 * <p>Contract: every call returns the HTTP status and the decoded body, whatever the status; it
 * throws IOException only when no answer came.
 */
public final class KubeApi {

  /** An answer: its status and JSON body ({@code NullNode} when empty). */
  public record Reply(int status, JsonNode body) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private final HttpClient http;

  public KubeApi(String server, SSLContext tls) {
    this.base = URI.create(server.endsWith("/") ? server : server + "/");
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10));
    if (tls != null) {
      builder.sslContext(tls);
    }
    this.http = builder.build();
  }

  public Reply get(String path) throws IOException {
    return send(request(path).GET());
  }

  public Reply post(String path, JsonNode body) throws IOException {
    return send(request(path).POST(publisher(body)).header("Content-Type", "application/json"));
  }

  public Reply put(String path, JsonNode body) throws IOException {
    return send(request(path).PUT(publisher(body)).header("Content-Type", "application/json"));
  }

  public Reply mergePatch(String path, JsonNode patch) throws IOException {
    return send(
        request(path)
            .method("PATCH", publisher(patch))
            .header("Content-Type", "application/merge-patch+json"));
  }

  public Reply delete(String path) throws IOException {
    return send(request(path).DELETE());
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path.startsWith("/") ? path.substring(1) : path))
        .timeout(Duration.ofSeconds(30))
        .header("Accept", "application/json")
        .header("User-Agent", "streamplane-csi-sidecar");
  }

  private static HttpRequest.BodyPublisher publisher(JsonNode body) throws IOException {
    return HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
  }

  private Reply send(HttpRequest.Builder request) throws IOException {
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      String text = response.body();
      JsonNode body = text == null || text.isBlank() ? NullNode.getInstance() : JSON.readTree(text);
      return new Reply(response.statusCode(), body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
