package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A real admission webhook for tests: the JDK's HttpsServer on 127.0.0.1 with a self-signed
 * certificate keytool makes at start, answering each AdmissionReview with what {@link #answer}
 * says; {@link #caBundle} is the certificate as a configuration's {@code caBundle}.
 */
public final class WebhookServer implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpsServer server;
  private final String caBundle;
  private final AtomicInteger calls = new AtomicInteger();
  private volatile Function<JsonNode, String> answer = review -> response(review, true, null);
  private volatile JsonNode lastReview;

  public WebhookServer(Path dir) throws IOException, InterruptedException {
    Path keystore = dir.resolve("webhook.p12");
    run(
        "keytool",
        "-genkeypair",
        "-alias",
        "webhook",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=webhook",
        "-ext",
        "SAN=ip:127.0.0.1",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        keystore.toString(),
        "-storepass",
        "changeit");
    Path pem = dir.resolve("webhook.pem");
    run(
        "keytool",
        "-exportcert",
        "-rfc",
        "-alias",
        "webhook",
        "-keystore",
        keystore.toString(),
        "-storepass",
        "changeit",
        "-file",
        pem.toString());
    caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(pem));
    SSLContext tls;
    try (InputStream in = Files.newInputStream(keystore)) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(in, "changeit".toCharArray());
      KeyManagerFactory keyManagers =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, "changeit".toCharArray());
      tls = SSLContext.getInstance("TLS");
      tls.init(keyManagers.getKeyManagers(), null, null);
    } catch (GeneralSecurityException e) {
      throw new IOException(e);
    }
    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.createContext(
        "/",
        exchange -> {
          calls.incrementAndGet();
          JsonNode review = JSON.readTree(exchange.getRequestBody());
          lastReview = review;
          byte[] body = answer.apply(review).getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + ": " + output);
    }
  }

  /** An AdmissionReview response to {@code review}; {@code extra}: more fields of the response. */
  public static String response(JsonNode review, boolean allowed, String extra) {
    return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{"
        + "\"uid\":\""
        + review.path("request").path("uid").asText()
        + "\",\"allowed\":"
        + allowed
        + (extra == null ? "" : "," + extra)
        + "}}";
  }

  public void answer(Function<JsonNode, String> answer) {
    this.answer = answer;
  }

  public String url() {
    return "https://127.0.0.1:" + server.getAddress().getPort() + "/admit";
  }

  public String caBundle() {
    return caBundle;
  }

  public int calls() {
    return calls.get();
  }

  public JsonNode lastReview() {
    return lastReview;
  }

  public void reset() {
    calls.set(0);
    answer = review -> response(review, true, null);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
