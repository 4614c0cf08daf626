package io.streamplane.gateway.server;

import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.audit.Auditor;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.Credentials;
import io.streamplane.log.UserInfo;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.util.Callback;

/**
 * kube-apiserver's {@code WithAuthentication}: names the user sending the request from its
 * credentials (client certificate, bearer token, basic; see {@link Authentication}) and hands the
 * request inward as that user, without its {@code Authorization} header. Credentials that name
 * nobody (or none, where anonymous requests are refused) are answered 401 Unauthorized here, and
 * recorded as kube-apiserver's {@code WithFailedAuthenticationAudit} records them: one
 * ResponseStarted event with no user and the methods attempted.
 */
final class WithAuthentication extends Handler.Wrapper {

  private final Authentication authentication;
  private final Auditor auditor;

  WithAuthentication(Handler handler, Authentication authentication, Auditor auditor) {
    super(handler);
    this.authentication = authentication;
    this.auditor = auditor;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    List<X509Certificate> certificates =
        clientCertificates(request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE));
    Optional<UserInfo> user =
        authentication.authenticate(
            new Credentials(authorization, certificates, RequestContext.peer(request)));
    if (user.isEmpty()) {
      auditor.failedAuthentication(
          RequestContext.auditId(request),
          RequestContext.received(request),
          RequestContext.info(request),
          WithAudit.meta(request),
          authorization,
          !certificates.isEmpty(),
          401);
      Responses.status(response, callback, Statuses.unauthorized(""));
      return true;
    }
    request.setAttribute(RequestContext.USER, user.get());
    return super.handle(
        RequestContext.withoutHeaders(request, name -> name.equals("authorization")),
        response,
        callback);
  }

  /**
   * The client certificate chain of a TLS connection: Jetty's {@link SecureRequestCustomizer} keeps
   * the session's peer certificates in a request attribute.
   */
  static List<X509Certificate> clientCertificates(Object sslSessionData) {
    if (!(sslSessionData instanceof EndPoint.SslSessionData session)) {
      return List.of();
    }
    X509Certificate[] chain = session.peerCertificates();
    return chain == null ? List.of() : List.of(chain);
  }
}
