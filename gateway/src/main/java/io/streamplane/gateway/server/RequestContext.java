package io.streamplane.gateway.server;

import com.sun.net.httpserver.HttpExchange;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.log.UserInfo;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * What the filters of the {@link HandlerChain} learn about a request and hand inward, kept in its
 * attributes as kube-apiserver keeps them in the request's context: the audit id and when the
 * request arrived ({@link WithRequestInfo}), its query and {@link RequestInfo}, and the user it
 * acts as ({@link WithAuthentication}, then {@link WithImpersonation}). An endpoint reads them from
 * the Jetty request or, behind jetty-http-spi, from the exchange, which passes the request's
 * attributes through.
 */
final class RequestContext {

  static final String AUDIT_ID = RequestContext.class.getName() + ".auditId";
  static final String RECEIVED = RequestContext.class.getName() + ".received";
  static final String QUERY = RequestContext.class.getName() + ".query";
  static final String INFO = RequestContext.class.getName() + ".info";
  static final String USER = RequestContext.class.getName() + ".user";

  /**
   * The stream an upgraded connection carries ({@link PodStreams}): a {@link CompletionStage} that
   * completes when it ends.
   */
  static final String STREAM = RequestContext.class.getName() + ".stream";

  private RequestContext() {}

  static String auditId(Request request) {
    return (String) get(request::getAttribute, AUDIT_ID);
  }

  static Instant received(Request request) {
    return (Instant) get(request::getAttribute, RECEIVED);
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> query(Request request) {
    return (Map<String, String>) get(request::getAttribute, QUERY);
  }

  static RequestInfo info(Request request) {
    return (RequestInfo) get(request::getAttribute, INFO);
  }

  static UserInfo user(Request request) {
    return (UserInfo) get(request::getAttribute, USER);
  }

  static String auditId(HttpExchange exchange) {
    return (String) get(exchange::getAttribute, AUDIT_ID);
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> query(HttpExchange exchange) {
    return (Map<String, String>) get(exchange::getAttribute, QUERY);
  }

  static RequestInfo info(HttpExchange exchange) {
    return (RequestInfo) get(exchange::getAttribute, INFO);
  }

  static UserInfo user(HttpExchange exchange) {
    return (UserInfo) get(exchange::getAttribute, USER);
  }

  /** The address of the client's end of the connection, when it is an IP socket. */
  static InetSocketAddress peer(Request request) {
    return request.getConnectionMetaData().getRemoteSocketAddress()
            instanceof InetSocketAddress peer
        ? peer
        : null;
  }

  /**
   * {@code request} without the headers whose (case-insensitive) names {@code dropped} matches:
   * what a filter that has read credentials or impersonation headers hands inward, so that no
   * endpoint, node or webhook behind it sees them.
   */
  static Request withoutHeaders(Request request, Predicate<String> dropped) {
    HttpFields.Mutable kept = HttpFields.build();
    for (HttpField field : request.getHeaders()) {
      if (!dropped.test(field.getName().toLowerCase(Locale.ROOT))) {
        kept.add(field);
      }
    }
    HttpFields headers = kept.asImmutable();
    return new Request.Wrapper(request) {
      @Override
      public HttpFields getHeaders() {
        return headers;
      }
    };
  }

  /**
   * Runs {@code done} when the response to {@code request} is over: now, or, when it upgraded the
   * connection (101) to a stream ({@link #STREAM}), when that stream ends, as kube-apiserver's
   * filters return only when the handler of a hijacked connection does. {@code failure} is why the
   * response failed (null: it succeeded); a failed upgrade carries no stream.
   */
  static void whenOver(Request request, Response response, Throwable failure, Runnable done) {
    if (failure == null
        && response.getStatus() == 101
        && request.getAttribute(STREAM) instanceof CompletionStage<?> stream) {
      stream.whenComplete((ended, error) -> done.run());
    } else {
      done.run();
    }
  }

  /** An attribute a filter outside the endpoint must have set: its absence is a wiring error. */
  private static Object get(Function<String, Object> attributes, String name) {
    Object value = attributes.apply(name);
    if (value == null) {
      throw new IllegalStateException(name + " is not set: the request did not pass the chain");
    }
    return value;
  }
}
