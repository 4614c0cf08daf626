package io.streamplane.gateway.admission;

/** What a write does to an object, as admission.k8s.io's {@code Operation}. */
public enum Operation {
  CREATE,
  UPDATE,
  DELETE,
  CONNECT
}
