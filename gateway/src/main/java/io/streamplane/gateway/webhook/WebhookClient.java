package io.streamplane.gateway.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * How kube-apiserver calls a webhook (admission webhooks, conversion webhooks): a JSON review
 * POSTed over HTTPS with the JDK's HttpClient to the {@code clientConfig}'s {@code url}, or to
 * {@code https://NAME.NAMESPACE.svc:PORT/PATH} for its {@code service} (as kube-apiserver's service
 * resolver does without an endpoint lookup), trusting the PEM certificates of its {@code caBundle}
 * (the system's trust store when there is none), within a timeout. Clients are kept per {@code
 * caBundle}.
 *
 * <p>Failures carry kube-apiserver's wording ({@code Post "URL": ...}, {@code context deadline
 * exceeded}, {@code the server responded with the status code ...}); the caller prefixes them with
 * what it was calling.
 */
public final class WebhookClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();

  /** Sends {@code review}; the JSON body of a 2xx answer, or a failure. */
  public JsonNode post(JsonNode clientConfig, int timeoutSeconds, ObjectNode review)
      throws CallFailure {
    URI uri = uri(clientConfig);
    HttpClient client = client(clientConfig.path("caBundle").asText(""));
    HttpRequest httpRequest =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(timeoutSeconds))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(review.toString()))
            .build();
    HttpResponse<String> answer;
    try {
      answer = client.send(httpRequest, HttpResponse.BodyHandlers.ofString());
    } catch (java.net.http.HttpTimeoutException e) {
      throw new CallFailure("context deadline exceeded");
    } catch (IOException e) {
      throw new CallFailure(
          "Post \"" + uri + "\": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CallFailure("interrupted");
    }
    if (answer.statusCode() < 200 || answer.statusCode() >= 300) {
      throw new CallFailure(
          "the server responded with the status code "
              + answer.statusCode()
              + " but did not return more information");
    }
    try {
      JsonNode body = JSON.readTree(answer.body());
      if (body == null || !body.isObject()) {
        throw new CallFailure("received invalid webhook response: not a JSON object");
      }
      return body;
    } catch (IOException e) {
      throw new CallFailure("received invalid webhook response: " + e.getMessage());
    }
  }

  private static URI uri(JsonNode clientConfig) throws CallFailure {
    String url = clientConfig.path("url").asText("");
    if (url.isEmpty() && clientConfig.path("service").isObject()) {
      JsonNode service = clientConfig.path("service");
      String path = service.path("path").asText("");
      url =
          "https://"
              + service.path("name").asText("")
              + "."
              + service.path("namespace").asText("")
              + ".svc:"
              + service.path("port").asInt(443)
              + (path.startsWith("/") || path.isEmpty() ? path : "/" + path);
    }
    try {
      URI uri = URI.create(url);
      if (!"https"
          .equals(uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT))) {
        throw new CallFailure("the webhook's URL must be https: \"" + url + "\"");
      }
      return uri;
    } catch (IllegalArgumentException e) {
      throw new CallFailure("invalid webhook URL \"" + url + "\": " + e.getMessage());
    }
  }

  /** A client trusting the PEM certificates of {@code caBundle} (base64), or the system's. */
  private HttpClient client(String caBundle) throws CallFailure {
    HttpClient cached = clients.get(caBundle);
    if (cached != null) {
      return cached;
    }
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10));
    if (!caBundle.isEmpty()) {
      try {
        byte[] pem = Base64.getDecoder().decode(caBundle);
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        int i = 0;
        for (Certificate certificate :
            CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem))) {
          trust.setCertificateEntry("ca-" + i++, certificate);
        }
        TrustManagerFactory trustManagers =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        builder.sslContext(context);
      } catch (GeneralSecurityException | IOException | IllegalArgumentException e) {
        throw new CallFailure("invalid caBundle: " + e.getMessage());
      }
    }
    HttpClient client = builder.build();
    clients.put(caBundle, client);
    return client;
  }

  /** A webhook that could not be called or did not answer as the protocol asks. */
  public static final class CallFailure extends Exception {
    public CallFailure(String message) {
      super(message);
    }
  }
}
