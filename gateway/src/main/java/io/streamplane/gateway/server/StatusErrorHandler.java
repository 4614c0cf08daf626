package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.Statuses;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the errors Jetty finds before any handler runs (a request line with broken escapes, an
 * ambiguous path, a header too large) with a Kubernetes {@code Status} of the same code instead of
 * Jetty's HTML page, so that every error a client gets is one it can decode.
 */
final class StatusErrorHandler extends ErrorHandler {

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int code = response.getStatus() > 0 ? response.getStatus() : 500;
    Object message = request.getAttribute(ErrorHandler.ERROR_MESSAGE);
    String text = message == null ? "" : message.toString();
    ObjectNode status =
        Statuses.failure(code, reason(code), text.isEmpty() ? reason(code) : text, null);
    try {
      byte[] json = Responses.JSON.writeValueAsBytes(status);
      byte[] line = Arrays.copyOf(json, json.length + 1);
      line[json.length] = '\n';
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.write(true, ByteBuffer.wrap(line), callback);
    } catch (Exception e) {
      callback.failed(e);
    }
    return true;
  }

  /** Kubernetes' StatusReason for a code, as apimachinery's errors name them. */
  static String reason(int code) {
    return switch (code) {
      case 400 -> "BadRequest";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "NotFound";
      case 405 -> "MethodNotAllowed";
      case 406 -> "NotAcceptable";
      case 408, 504 -> "Timeout";
      case 413 -> "RequestEntityTooLarge";
      case 415 -> "UnsupportedMediaType";
      case 429 -> "TooManyRequests";
      case 503 -> "ServiceUnavailable";
      case 500 -> "InternalError";
      default -> "";
    };
  }
}
