package io.streamplane.gateway.authn;

import io.streamplane.log.UserInfo;
import java.util.Optional;

/**
 * Every request is one user, whatever it presents: a gateway without authentication, as
 * kube-apiserver's old insecure port treated every request as a cluster administrator. Only for a
 * gateway that nobody but its own process can reach (tests in one JVM, a read-only replay).
 */
public record FixedUser(UserInfo user) implements Authenticator {

  @Override
  public Optional<UserInfo> authenticate(Credentials credentials) {
    return Optional.of(user);
  }
}
