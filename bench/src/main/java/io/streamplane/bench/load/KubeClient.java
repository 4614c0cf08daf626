package io.streamplane.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A minimal Kubernetes API client over {@link HttpClient}: JSON requests with the kubeconfig's
 * credentials (client certificate, bearer token or basic auth; the kubeconfig's CA, or the JVM's
 * trust store), each answer timed on the client, and raw watch streams for {@link Watch}.
 *
 * <p>HTTP/1.1 on every server, so that a plain-HTTP server is not sent an h2c upgrade and the same
 * scenario opens the same connections against every target. One instance is one client: it has its
 * own connection pool, so scenarios that model several clients create several.
 */
public final class KubeClient {

  public static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  /** One answer: status, body (a JSON tree, or null when the body was not JSON) and latency. */
  public record Response(int status, JsonNode body, String text, long nanos) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }

    /** The Status message of an error answer, or its text. */
    public String message() {
      if (body != null && body.hasNonNull("message")) {
        return body.get("message").asText();
      }
      return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }
  }

  private final Kubeconfig config;
  private final HttpClient http;
  private final String authorization;

  public KubeClient(Kubeconfig config) {
    this.config = config;
    if (config.insecureSkipTlsVerify()) {
      // The JDK client verifies host names apart from the trust manager; read once, at its start.
      System.setProperty("jdk.internal.httpclient.disableHostnameVerification", "true");
    }
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10));
    if (config.server().startsWith("https:")) {
      builder.sslContext(sslContext(config));
    }
    this.http = builder.build();
    if (config.token() != null) {
      authorization = "Bearer " + config.token();
    } else if (config.username() != null) {
      String pair = config.username() + ":" + (config.password() == null ? "" : config.password());
      authorization =
          "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    } else {
      authorization = null;
    }
  }

  public Kubeconfig config() {
    return config;
  }

  public String server() {
    return config.server();
  }

  public Response get(String path) throws IOException, InterruptedException {
    return send(request(path).GET());
  }

  /** GET of a non-JSON document, such as {@code /metrics} (Prometheus text). */
  public Response getText(String path) throws IOException, InterruptedException {
    return send(request(path).setHeader("Accept", "text/plain;version=0.0.4, */*;q=0.1").GET());
  }

  public Response post(String path, Object body) throws IOException, InterruptedException {
    return send(withJson(request(path), "POST", body, "application/json"));
  }

  public Response put(String path, Object body) throws IOException, InterruptedException {
    return send(withJson(request(path), "PUT", body, "application/json"));
  }

  /** A JSON merge patch, as {@code kubectl scale} and {@code kubectl patch --type merge} send. */
  public Response mergePatch(String path, Object body) throws IOException, InterruptedException {
    return send(withJson(request(path), "PATCH", body, "application/merge-patch+json"));
  }

  public Response delete(String path) throws IOException, InterruptedException {
    return send(request(path).DELETE());
  }

  /** A DELETE with DeleteOptions (preconditions, propagationPolicy) in its body. */
  public Response deleteWithBody(String path, Object options)
      throws IOException, InterruptedException {
    return send(withJson(request(path), "DELETE", options, "application/json"));
  }

  /**
   * Opens {@code path} (a URL with {@code watch=true}) and answers once the server has sent its
   * headers; the caller reads the body's lines and closes it.
   */
  public HttpResponse<InputStream> openStream(String path)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(config.server() + path)).GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(config.server() + path))
            .timeout(REQUEST_TIMEOUT)
            .header("Accept", "application/json");
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return request;
  }

  private static HttpRequest.Builder withJson(
      HttpRequest.Builder request, String method, Object body, String contentType)
      throws IOException {
    byte[] bytes =
        body instanceof String text
            ? text.getBytes(StandardCharsets.UTF_8)
            : JSON.writeValueAsBytes(body);
    return request
        .header("Content-Type", contentType)
        .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes));
  }

  private Response send(HttpRequest.Builder request) throws IOException, InterruptedException {
    long started = System.nanoTime();
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    long nanos = System.nanoTime() - started;
    JsonNode body = null;
    String text = response.body() == null ? "" : response.body();
    if (response.headers().firstValue("Content-Type").orElse("").contains("json")) {
      try {
        body = JSON.readTree(text);
      } catch (IOException e) {
        body = null;
      }
    }
    return new Response(response.statusCode(), body, text, nanos);
  }

  private static SSLContext sslContext(Kubeconfig config) {
    try {
      TrustManager[] trust;
      if (config.insecureSkipTlsVerify()) {
        trust = new TrustManager[] {new TrustingEverything()};
      } else if (!config.certificateAuthority().isEmpty()) {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        for (X509Certificate ca : config.certificateAuthority()) {
          store.setCertificateEntry("ca-" + i++, ca);
        }
        TrustManagerFactory factory =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        trust = factory.getTrustManagers();
      } else {
        trust = null;
      }
      KeyManager[] keys = null;
      if (config.clientKey() != null) {
        char[] password = new char[0];
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry(
            "client",
            config.clientKey(),
            password,
            config.clientCertificate().toArray(new Certificate[0]));
        KeyManagerFactory factory =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, password);
        keys = factory.getKeyManagers();
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, trust, new SecureRandom());
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot set up TLS for " + config.server() + ": " + e, e);
    }
  }

  /** {@code insecure-skip-tls-verify: true}: any server certificate is accepted. */
  private static final class TrustingEverything implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
