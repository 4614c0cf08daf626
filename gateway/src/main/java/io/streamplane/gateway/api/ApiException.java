package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A request failure that carries the {@code metav1.Status} body to answer with.
 *
 * <p>Contract: {@link #code()} is the HTTP status and equals the body's {@code code}; the message
 * is the body's {@code message}, safe to show a client (never a stack trace). Built by {@link
 * Statuses}.
 */
public final class ApiException extends RuntimeException {

  private final ObjectNode status;

  public ApiException(ObjectNode status) {
    super(status.path("message").asText(""));
    this.status = status;
  }

  public ObjectNode status() {
    return status.deepCopy();
  }

  public int code() {
    return status.path("code").asInt(500);
  }

  public String reason() {
    return status.path("reason").asText("");
  }
}
