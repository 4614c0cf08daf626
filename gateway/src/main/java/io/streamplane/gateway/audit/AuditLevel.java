package io.streamplane.gateway.audit;

/**
 * How much of a request the audit records, Kubernetes' audit levels in their order: nothing, the
 * metadata (user, verb, object, response code), plus the request body, plus the response body.
 */
public enum AuditLevel {
  None,
  Metadata,
  Request,
  RequestResponse;

  public boolean atLeast(AuditLevel other) {
    return compareTo(other) >= 0;
  }
}
