package io.streamplane.gateway.server;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.cache.CacheUnavailableException;
import io.streamplane.gateway.cache.TooOldResourceVersionException;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.kinds.ResourceRegistry;
import io.streamplane.kinds.ResourceType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches over WebSocket, as kube-apiserver serves a watch request that asks to upgrade the
 * connection (fabric8's watches and informers, the JavaScript client's): {@code 101 Switching
 * Protocols}, then each watch event as one text message holding its JSON, with the same start,
 * selectors, bookmarks and timeout as a chunked watch ({@link Watches}); at the timeout the server
 * closes with a normal close. Whatever the client sends is read and ignored.
 *
 * <p>A request that cannot be watched is answered before the upgrade, with the Status a chunked
 * watch would get (404, 410 Gone for a version no longer held, ...). The request has passed the
 * filters of the {@link HandlerChain} — authenticated, authorized, audited — like every other.
 */
final class WebSocketWatches extends Handler.Wrapper {

  private static final Logger LOG = LoggerFactory.getLogger(WebSocketWatches.class);

  private final ResourceRegistry registry;
  private final Watches watches;
  private final ServerWebSocketContainer upgrades;
  private final ExecutorService senders;

  WebSocketWatches(ResourceRegistry registry, Watches watches, ServerWebSocketContainer upgrades) {
    this.registry = registry;
    this.watches = watches;
    this.upgrades = upgrades;
    AtomicInteger threads = new AtomicInteger();
    this.senders =
        Executors.newCachedThreadPool(
            r -> {
              Thread thread = new Thread(r, "websocket-watch-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }

  @Override
  public boolean handle(
      Request request, Response response, org.eclipse.jetty.util.Callback callback)
      throws Exception {
    RequestInfo info = RequestContext.info(request);
    if (info == null
        || !info.resourceRequest()
        || !"watch".equals(info.verb())
        || !"websocket".equalsIgnoreCase(request.getHeaders().get(HttpHeader.UPGRADE))) {
      return super.handle(request, response, callback);
    }
    try {
      ResourceType type =
          registry
              .served(info.group(), info.version(), info.resource())
              .orElseThrow(() -> new ApiException(Statuses.notFoundPath()));
      if (info.subresource() != null) {
        throw new ApiException(Statuses.notFoundPath());
      }
      Watches.Request watch =
          Watches.Request.of(
              type,
              type.namespaced() ? info.namespace() : null,
              info,
              RequestContext.query(request),
              request.getHeaders().get(HttpHeader.ACCEPT));
      Watches.Open open = watches.open(watch);
      WebSocketWatch session = new WebSocketWatch(open, senders);
      request.setAttribute(RequestContext.STREAM, session.ended());
      boolean upgraded =
          upgrades.upgrade(
              (upgradeRequest, upgradeResponse, upgradeCallback) -> session,
              request,
              response,
              callback);
      if (!upgraded) {
        open.close();
        request.removeAttribute(RequestContext.STREAM);
        throw new ApiException(
            Statuses.badRequest("unable to upgrade connection: not a WebSocket handshake"));
      }
    } catch (ApiException e) {
      Responses.status(response, callback, e.status());
    } catch (TooOldResourceVersionException e) {
      Responses.status(
          response, callback, Statuses.tooOldResourceVersion(e.requested(), e.current()));
    } catch (CacheUnavailableException e) {
      Responses.status(response, callback, Statuses.timeout(e.getMessage(), 1));
    }
    return true;
  }

  @Override
  protected void doStop() throws Exception {
    senders.shutdownNow();
    super.doStop();
  }
}
