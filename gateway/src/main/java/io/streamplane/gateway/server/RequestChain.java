package io.streamplane.gateway.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsExchange;
import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.Credentials;
import io.streamplane.gateway.authn.FixedUser;
import io.streamplane.gateway.authz.Attributes;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.Decision;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * What every request passes through before the API answers it, in this order: authentication (who
 * sends it; the {@code Authorization} header is removed once read), authorization (may they), then,
 * for writes, admission inside the {@link io.streamplane.gateway.storage.ResourceService}.
 */
public record RequestChain(
    Authentication authentication, Authorization authorization, Admission admission) {

  /**
   * Every request acts as {@code user}, allowed everything when in {@code system:masters}: for a
   * gateway nobody but its own process reaches.
   */
  public static RequestChain unauthenticated(UserInfo user) {
    return new RequestChain(
        new Authentication(List.of(new FixedUser(user)), false),
        new Authorization(List.of(new PrivilegedGroups())),
        Admission.none());
  }

  /** The user sending {@code exchange}, or a 401 {@link ApiException}. */
  public UserInfo authenticate(HttpExchange exchange) {
    Credentials credentials =
        new Credentials(
            exchange.getRequestHeaders().getFirst("Authorization"),
            clientCertificates(exchange),
            exchange.getRemoteAddress());
    exchange.getRequestHeaders().remove("Authorization");
    return authentication
        .authenticate(credentials)
        .orElseThrow(() -> new ApiException(Statuses.unauthorized("")));
  }

  /**
   * Returns when {@code user} may do what {@code request} asks; a 403 {@link ApiException} if not.
   */
  public void authorize(UserInfo user, RequestInfo request) {
    Decision decision = authorization.authorize(Attributes.of(user, request));
    if (decision.allowed()) {
      return;
    }
    if (!request.resourceRequest()) {
      throw new ApiException(
          Statuses.forbiddenPath(user.getUsername(), request.verb(), request.path()));
    }
    throw new ApiException(
        Statuses.forbiddenByAuthorizer(
            user.getUsername(),
            request.verb(),
            orEmpty(request.group()),
            orEmpty(request.resource()),
            orEmpty(request.subresource()),
            orEmpty(request.namespace()),
            orEmpty(request.name())));
  }

  private static List<X509Certificate> clientCertificates(HttpExchange exchange) {
    if (!(exchange instanceof HttpsExchange https)) {
      return List.of();
    }
    SSLSession session = https.getSSLSession();
    if (session == null) {
      return List.of();
    }
    try {
      List<X509Certificate> chain = new ArrayList<>();
      for (Certificate certificate : session.getPeerCertificates()) {
        if (certificate instanceof X509Certificate x509) {
          chain.add(x509);
        }
      }
      return chain;
    } catch (SSLPeerUnverifiedException e) {
      return List.of();
    }
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }
}
