package io.streamplane.gateway.server;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.audit.Auditor;
import io.streamplane.gateway.request.QueryParameters;
import io.streamplane.gateway.request.RequestInfo;
import java.time.Clock;
import java.util.Map;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The outermost filter, kube-apiserver's {@code WithAuditInit}, {@code
 * WithRequestReceivedTimestamp} and {@code WithRequestInfo}: gives the request its audit id (the
 * client's {@code Audit-ID} when it sent one, else a new UUID), answered in the {@code Audit-Id}
 * header of every response, 401 and 403 included; notes when it arrived; and resolves its query and
 * {@link RequestInfo} for the filters inside. A query with a broken escape is answered 400 here:
 * nothing inside could read it.
 */
final class WithRequestInfo extends Handler.Wrapper {

  private final Clock clock;

  WithRequestInfo(Handler handler, Clock clock) {
    super(handler);
    this.clock = clock;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    request.setAttribute(RequestContext.RECEIVED, clock.instant());
    String auditId = Auditor.auditId(request.getHeaders().get(Auditor.HEADER));
    request.setAttribute(RequestContext.AUDIT_ID, auditId);
    response.getHeaders().put(Auditor.HEADER, auditId);
    Map<String, String> query;
    try {
      query = QueryParameters.parse(request.getHttpURI().getQuery());
    } catch (ApiException e) {
      Responses.status(response, callback, e.status());
      return true;
    }
    request.setAttribute(RequestContext.QUERY, query);
    request.setAttribute(
        RequestContext.INFO,
        RequestInfo.parse(request.getMethod(), request.getHttpURI().getDecodedPath(), query));
    return super.handle(request, response, callback);
  }
}
