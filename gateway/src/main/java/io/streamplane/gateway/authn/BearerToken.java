package io.streamplane.gateway.authn;

import io.streamplane.log.UserInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code Authorization: Bearer} token of a request, tried against the cluster's token
 * authenticators in order, as kube-apiserver's {@code bearertoken} authenticator: a request without
 * a bearer token is not its; a token that none accepts is a 401 ({@code invalid bearer token}),
 * never anonymous.
 */
public final class BearerToken implements Authenticator {

  /** One kind of token: the user when it is this kind and valid, empty when it is not this kind. */
  public interface TokenAuthenticator {
    Optional<UserInfo> authenticate(String token) throws AuthenticationException;
  }

  private final List<TokenAuthenticator> authenticators;

  public BearerToken(List<TokenAuthenticator> authenticators) {
    this.authenticators = List.copyOf(authenticators);
  }

  @Override
  public Optional<UserInfo> authenticate(Credentials credentials) throws AuthenticationException {
    Optional<String> token = credentials.bearerToken();
    if (token.isEmpty()) {
      return Optional.empty();
    }
    List<String> errors = new ArrayList<>();
    for (TokenAuthenticator authenticator : authenticators) {
      try {
        Optional<UserInfo> user = authenticator.authenticate(token.get());
        if (user.isPresent()) {
          return user;
        }
      } catch (AuthenticationException e) {
        errors.add(e.getMessage());
      }
    }
    throw new AuthenticationException(
        errors.isEmpty() ? "invalid bearer token" : "invalid bearer token, " + errors);
  }
}
