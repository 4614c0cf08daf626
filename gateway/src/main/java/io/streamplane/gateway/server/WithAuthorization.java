package io.streamplane.gateway.server;

import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.audit.RequestAudit;
import io.streamplane.gateway.authz.Attributes;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.Decision;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * kube-apiserver's {@code WithAuthorization}: the acting user (after impersonation) may do what the
 * request's {@link RequestInfo} says, as the cluster's authorizers decide ({@link Authorization}),
 * or the request is answered 403 Forbidden in kube-apiserver's words, the authorizers' reason after
 * a colon. Exec, attach and port-forward are a {@code create} of {@code pods/exec}, {@code
 * pods/attach} and {@code pods/portforward} whatever their method ({@link RequestInfo}). The
 * decision, and its reason when one is given, is annotated on the request's audit ({@code
 * authorization.k8s.io/decision}, {@code authorization.k8s.io/reason}).
 */
final class WithAuthorization extends Handler.Wrapper {

  static final String DECISION_ANNOTATION = "authorization.k8s.io/decision";
  static final String REASON_ANNOTATION = "authorization.k8s.io/reason";

  private final Authorization authorization;

  WithAuthorization(Handler handler, Authorization authorization) {
    super(handler);
    this.authorization = authorization;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    UserInfo user = RequestContext.user(request);
    Attributes attributes = Attributes.of(user, RequestContext.info(request));
    Decision decision = authorization.authorize(attributes);
    if (request.getAttribute(RequestAudit.ATTRIBUTE) instanceof RequestAudit audit) {
      audit.annotate(DECISION_ANNOTATION, decision.allowed() ? "allow" : "forbid");
      if (decision.reason() != null && !decision.reason().isEmpty()) {
        audit.annotate(REASON_ANNOTATION, decision.reason());
      }
    }
    if (decision.allowed()) {
      return super.handle(request, response, callback);
    }
    Responses.status(
        response,
        callback,
        attributes.resourceRequest()
            ? Statuses.forbiddenByAuthorizer(
                user.getUsername(),
                attributes.verb(),
                attributes.group(),
                attributes.resource(),
                attributes.subresource(),
                attributes.namespace(),
                attributes.name(),
                decision.reason())
            : Statuses.forbiddenPath(
                user.getUsername(), attributes.verb(), attributes.path(), decision.reason()));
    return true;
  }
}
