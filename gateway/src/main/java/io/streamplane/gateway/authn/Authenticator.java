package io.streamplane.gateway.authn;

import io.streamplane.log.UserInfo;
import java.util.Optional;

/**
 * One way of telling who sends a request, as kube-apiserver's {@code authenticator.Request}: the
 * user when the credentials it understands are valid, empty when the request carries none it
 * understands, and {@link AuthenticationException} when it carries such credentials and they are
 * not valid (an expired token, a certificate the cluster did not sign).
 */
public interface Authenticator {

  Optional<UserInfo> authenticate(Credentials credentials) throws AuthenticationException;
}
