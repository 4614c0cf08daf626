package io.streamplane.gateway.audit;

import io.streamplane.log.AuditEvent;

/**
 * Where audit events go. {@link #write} must not wait for the event to be stored: it is called on
 * the request's thread. {@link #close} sends what is still buffered.
 */
public interface AuditSink extends AutoCloseable {

  void write(AuditEvent event);

  @Override
  default void close() {}

  /** Drops every event: for a gateway that writes nothing to Kafka (a read-only replay). */
  static AuditSink none() {
    return event -> {};
  }
}
