package io.streamplane.kafka.embedded;

/**
 * Thrown when an {@link EmbeddedKafkaBroker} cannot be formatted, configured or started, or does
 * not answer within its startup timeout. The message names the data directory; the cause is Kafka's
 * own error when there is one. When it is thrown, nothing of the failed start is left running.
 */
public final class EmbeddedKafkaStartException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public EmbeddedKafkaStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
