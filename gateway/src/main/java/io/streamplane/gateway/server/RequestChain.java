package io.streamplane.gateway.server;

import com.sun.net.httpserver.HttpExchange;
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
import java.security.cert.X509Certificate;
import java.util.List;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.SecureRequestCustomizer;

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
            clientCertificates(exchange.getAttribute(EndPoint.SslSessionData.ATTRIBUTE)),
            exchange.getRemoteAddress());
    exchange.getRequestHeaders().remove("Authorization");
    return authenticate(credentials);
  }

  /** The user presenting {@code credentials}, or a 401 {@link ApiException}. */
  public UserInfo authenticate(Credentials credentials) {
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

  /**
   * The client certificate chain of a TLS connection: Jetty's {@link SecureRequestCustomizer} keeps
   * the session's peer certificates in a request attribute, which jetty-http-spi's exchange passes
   * through (its {@code HttpsExchange.getSSLSession()} answers null).
   */
  static List<X509Certificate> clientCertificates(Object sslSessionData) {
    if (!(sslSessionData instanceof EndPoint.SslSessionData session)) {
      return List.of();
    }
    X509Certificate[] chain = session.peerCertificates();
    return chain == null ? List.of() : List.of(chain);
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }
}
