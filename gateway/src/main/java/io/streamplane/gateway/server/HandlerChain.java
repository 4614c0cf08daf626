package io.streamplane.gateway.server;

import io.streamplane.gateway.audit.Auditor;
import io.streamplane.kinds.ResourceRegistry;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.util.Callback;

/**
 * The filters every request passes before an endpoint answers it, as kube-apiserver's {@code
 * DefaultBuildHandlerChain} wraps its API handler. Outermost first:
 *
 * <ol>
 *   <li>{@link WithRequestInfo}: the audit id (answered in {@code Audit-Id}), when the request
 *       arrived, its query and {@link io.streamplane.gateway.request.RequestInfo};
 *   <li>{@link WithMetrics}: counted and timed in {@code apiserver_request_*};
 *   <li>{@link WithAuthentication}: who sends it, or 401 (audited as a failed authentication); the
 *       {@code Authorization} header goes no further;
 *   <li>{@link WithAudit}: its audit events, RequestReceived to ResponseComplete or Panic;
 *   <li>{@link WithImpersonation}: whom it acts as ({@code Impersonate-*} headers, each allowed by
 *       the {@code impersonate} verb), or 403;
 *   <li>{@link WithAuthorization}: whether the acting user may do it, or 403.
 * </ol>
 *
 * <p>Every endpoint is inside: the REST API, watches, pod logs, discovery, OpenAPI, probes and
 * {@code /metrics} ({@link ApiHandler}), and exec, attach and port-forward ({@link PodStreams}). No
 * endpoint authenticates, audits or authorizes on its own; each reads what the filters found from
 * the {@link RequestContext}. Admission is not a filter: it runs inside the {@link
 * io.streamplane.gateway.storage.ResourceService}, on writes only, as kube-apiserver runs it in its
 * REST handlers.
 */
final class HandlerChain {

  private HandlerChain() {}

  /** {@code endpoints} behind every filter, in kube-apiserver's order. */
  static Handler build(
      Handler endpoints,
      RequestChain chain,
      Auditor auditor,
      ResourceRegistry registry,
      Clock clock) {
    Handler handler = endpoints;
    handler = new WithAuthorization(handler, chain.authorization());
    handler = new WithImpersonation(handler, chain.authorization());
    handler = new WithAudit(handler, auditor);
    handler = new WithAuthentication(handler, chain.authentication(), auditor);
    handler = new WithMetrics(handler, registry);
    handler = new WithRequestInfo(handler, clock);
    return handler;
  }

  /**
   * {@code callback}, running {@code done} once when the response completes, with why it failed
   * (null when it succeeded), before the callback itself (which may recycle the response).
   */
  static Callback onCompletion(Callback callback, Consumer<Throwable> done) {
    AtomicBoolean ran = new AtomicBoolean();
    return new Callback() {
      @Override
      public void succeeded() {
        if (ran.compareAndSet(false, true)) {
          done.accept(null);
        }
        callback.succeeded();
      }

      @Override
      public void failed(Throwable failure) {
        if (ran.compareAndSet(false, true)) {
          done.accept(failure);
        }
        callback.failed(failure);
      }

      @Override
      public InvocationType getInvocationType() {
        return callback.getInvocationType();
      }
    };
  }
}
