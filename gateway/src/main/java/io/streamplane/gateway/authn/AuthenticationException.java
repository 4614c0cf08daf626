package io.streamplane.gateway.authn;

/** Credentials of a kind an authenticator understands that are not valid; the request is a 401. */
public final class AuthenticationException extends Exception {

  public AuthenticationException(String message) {
    super(message);
  }
}
