package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Writing answers: JSON bodies, Status errors (with their code), plain text. A JSON body ends with
 * a newline, as kube-apiserver's JSON serializer (Go's {@code json.Encoder}) ends every object it
 * writes, Status errors included.
 */
final class Responses {

  static final ObjectMapper JSON = new ObjectMapper();

  private Responses() {}

  static void json(HttpExchange exchange, int code, JsonNode body) throws IOException {
    json(exchange, code, body, "application/json");
  }

  static void json(HttpExchange exchange, int code, JsonNode body, String contentType)
      throws IOException {
    byte[] json = JSON.writeValueAsBytes(body);
    byte[] line = Arrays.copyOf(json, json.length + 1);
    line[json.length] = '\n';
    send(exchange, code, line, contentType);
  }

  /** A Status body, sent with the HTTP code it carries. */
  static void status(HttpExchange exchange, JsonNode status) throws IOException {
    json(exchange, status.path("code").asInt(500), status);
  }

  static void text(HttpExchange exchange, int code, String text) throws IOException {
    send(exchange, code, text.getBytes(StandardCharsets.UTF_8), "text/plain; charset=utf-8");
  }

  static void send(HttpExchange exchange, int code, byte[] body, String contentType)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    if (exchange.getRequestMethod().equalsIgnoreCase("HEAD")) {
      exchange.sendResponseHeaders(code, -1);
      return;
    }
    exchange.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /**
   * A Status body, sent with the HTTP code it carries, by a Jetty handler (a filter of the {@link
   * HandlerChain}, or {@link PodStreams}); the response is complete when {@code callback} is.
   */
  static void status(Response response, Callback callback, JsonNode status) {
    try {
      byte[] json = JSON.writeValueAsBytes(status);
      byte[] line = Arrays.copyOf(json, json.length + 1);
      line[json.length] = '\n';
      response.setStatus(status.path("code").asInt(500));
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.write(true, ByteBuffer.wrap(line), callback);
    } catch (IOException e) {
      callback.failed(e);
    }
  }
}
