package io.streamplane.gateway.server;

import io.streamplane.gateway.metrics.GatewayMetrics;
import io.streamplane.gateway.metrics.RequestLabels;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Counts and times every request in {@code apiserver_request_total} and {@code
 * apiserver_request_duration_seconds} ({@link GatewayMetrics}), those refused by authentication or
 * authorization included, with the code it was answered. Outside authentication, as
 * kube-apiserver's latency trackers are. A long-running request (watch, log, exec, attach,
 * port-forward) counts as long-running until its response completes; for exec, attach and
 * port-forward, until the stream the upgraded connection carries ends.
 */
final class WithMetrics extends Handler.Wrapper {

  private final ResourceRegistry registry;

  WithMetrics(Handler handler, ResourceRegistry registry) {
    super(handler);
    this.registry = registry;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    GatewayMetrics.Request measured = GatewayMetrics.started(labels(request));
    boolean handled;
    try {
      handled =
          super.handle(
              request,
              response,
              HandlerChain.onCompletion(
                  callback,
                  failure -> {
                    int code = Math.max(response.getStatus(), 0);
                    RequestContext.whenOver(
                        request, response, failure, () -> measured.answered(code));
                  }));
    } catch (Exception | Error e) {
      measured.answered(500);
      throw e;
    }
    if (!handled) {
      measured.answered(404);
    }
    return handled;
  }

  /** The request's metric labels; what the gateway does not serve is not a label value. */
  private RequestLabels labels(Request request) {
    RequestInfo info = RequestContext.info(request);
    @SuppressWarnings("unchecked")
    Map<String, String> query = (Map<String, String>) request.getAttribute(RequestContext.QUERY);
    Optional<ResourceType> type =
        info.resourceRequest()
            ? registry.served(info.group(), info.version(), info.resource())
            : Optional.empty();
    boolean subresourceServed =
        info.subresource() == null
            || type.flatMap(t -> t.subresource(info.subresource())).isPresent();
    return RequestLabels.of(
        info,
        request.getMethod(),
        request.getHeaders().get(HttpHeader.CONTENT_TYPE),
        query.get("dryRun"),
        type.isPresent(),
        subresourceServed);
  }
}
