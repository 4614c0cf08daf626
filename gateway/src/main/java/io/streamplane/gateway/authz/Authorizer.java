package io.streamplane.gateway.authz;

/** One way of deciding whether a user may do what a request asks, as Kubernetes' authorizers. */
public interface Authorizer {

  Decision authorize(Attributes attributes);
}
