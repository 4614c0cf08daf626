package io.streamplane.gateway.server;

import io.streamplane.gateway.audit.AuditLevel;
import io.streamplane.gateway.audit.Auditor;
import io.streamplane.gateway.audit.RequestAudit;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * kube-apiserver's {@code WithAudit}: every authenticated request leaves the audit events its
 * policy level asks for ({@link Auditor}), under its audit id. RequestReceived before anything
 * inside runs; ResponseStarted when a long-running request's response begins (for exec, attach and
 * port-forward: the 101 of the upgrade); ResponseComplete when the response completes (for an
 * upgraded connection: when the stream it carries ends, {@link RequestContext#whenOver}); Panic, in
 * its place, when the handler inside throws, which is then thrown on to Jetty, whose error handler
 * answers a 500 Status. The request and response bodies are copied as they pass, for the levels
 * that record them and for error Statuses.
 *
 * <p>The filters inside add to the events: impersonation the impersonated user, authorization its
 * decision. An endpoint finds the audit under {@link RequestAudit#ATTRIBUTE}.
 */
final class WithAudit extends Handler.Wrapper {

  private final Auditor auditor;

  WithAudit(Handler handler, Auditor auditor) {
    super(handler);
    this.auditor = auditor;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    RequestAudit audit =
        auditor.begin(
            RequestContext.auditId(request),
            RequestContext.received(request),
            RequestContext.info(request),
            RequestContext.user(request),
            meta(request));
    if (audit.level() == AuditLevel.None) {
      return super.handle(request, response, callback);
    }
    request.setAttribute(RequestAudit.ATTRIBUTE, audit);
    boolean handled;
    try {
      handled =
          super.handle(
              audit.recordsRequestBody() ? new ReadBody(request, audit) : request,
              new WrittenBody(request, response, audit),
              HandlerChain.onCompletion(
                  callback,
                  failure -> {
                    int code = Math.max(response.getStatus(), 0);
                    audit.responseStarted(code);
                    RequestContext.whenOver(request, response, failure, () -> audit.complete(code));
                  }));
    } catch (Exception | Error e) {
      audit.panic(e.toString());
      throw e;
    }
    if (!handled) {
      audit.complete(404);
    }
    return handled;
  }

  /** What the audit records of a request besides its RequestInfo. */
  static RequestAudit.RequestMeta meta(Request request) {
    return Auditor.meta(
        request.getHttpURI().getPathQuery(),
        request.getHeaders().get("X-Forwarded-For"),
        RequestContext.peer(request),
        request.getHeaders().get(HttpHeader.USER_AGENT));
  }

  /** The request, its body handed to the audit as it is read. */
  private static final class ReadBody extends Request.Wrapper {
    private final RequestAudit audit;
    private final String contentType;

    ReadBody(Request request, RequestAudit audit) {
      super(request);
      this.audit = audit;
      this.contentType = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    }

    @Override
    public Content.Chunk read() {
      Content.Chunk chunk = super.read();
      if (chunk != null && !Content.Chunk.isFailure(chunk)) {
        audit.requestRead(contentType, chunk.getByteBuffer());
      }
      return chunk;
    }
  }

  /** The response, its body handed to the audit as it is written, with the code it carries. */
  private static final class WrittenBody extends Response.Wrapper {
    private final RequestAudit audit;

    WrittenBody(Request request, Response response, RequestAudit audit) {
      super(request, response);
      this.audit = audit;
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
      audit.responseWritten(getStatus(), content);
      super.write(last, content, callback);
    }
  }
}
