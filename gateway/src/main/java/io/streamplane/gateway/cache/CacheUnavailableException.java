package io.streamplane.gateway.cache;

/** The cache cannot answer consistently now (broker unreachable, not caught up in time). */
public final class CacheUnavailableException extends RuntimeException {
  public CacheUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
