package io.streamplane.bench.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.Stream;

/** The benchmark's view of the cluster: plain HTTP against the gateway, as a user's client. */
final class ApiClient {

  static final ObjectMapper JSON = new ObjectMapper();

  private final String url;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  ApiClient(String url) {
    this.url = url;
  }

  /** GET {@code path}; anything but 200 is an error. */
  JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + path + ": " + response.statusCode() + " " + response.body());
    }
    return JSON.readTree(response.body());
  }

  /** POST {@code body} to {@code path}; anything but 201 is an error. */
  JsonNode post(String path, String body) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IOException("POST " + path + ": " + response.statusCode() + " " + response.body());
    }
    return JSON.readTree(response.body());
  }

  /** The lines of a watch on {@code path}; the stream ends when the server ends the watch. */
  Stream<String> watch(String path) throws IOException, InterruptedException {
    HttpResponse<Stream<String>> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url + path)).GET().build(),
            HttpResponse.BodyHandlers.ofLines());
    if (response.statusCode() != 200) {
      String body = String.join("\n", response.body().toList());
      throw new IOException("watch " + path + ": " + response.statusCode() + " " + body);
    }
    return response.body();
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(60));
  }
}
