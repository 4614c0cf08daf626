package io.streamplane.gateway.audit;

/**
 * When an audit event is written, Kubernetes' audit stages: the request received (after
 * authentication), the response headers sent (long-running requests only: watches, followed logs,
 * exec, attach, port-forward; and a failed authentication), the response complete, or the handler
 * failed with an unexpected exception (instead of complete).
 */
public enum AuditStage {
  RequestReceived,
  ResponseStarted,
  ResponseComplete,
  Panic
}
