package io.streamplane.gateway.server;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Selectors;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.api.table.TableConverter;
import io.streamplane.gateway.audit.RequestAudit;
import io.streamplane.gateway.cache.ListVersion;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.gateway.cache.WatchEvent;
import io.streamplane.gateway.request.QueryBooleans;
import io.streamplane.gateway.request.RequestInfo;
import io.streamplane.kinds.ResourceType;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Serves {@code watch=true}: a chunked stream of newline-separated watch events ({@code
 * {"type":"ADDED","object":{...}}}), optionally as one-row Tables, with BOOKMARK events carrying
 * the cache's list version when the client allows them, ended after {@code timeoutSeconds}.
 */
final class Watches {

  /** Where a watch starts; see {@link ApiHandler}. */
  record Start(ListVersion after, String expired) {
    static Start current() {
      return new Start(null, null);
    }

    static Start after(ListVersion version) {
      return new Start(version, null);
    }

    static Start expired(String requested) {
      return new Start(null, requested);
    }
  }

  private static final Duration BOOKMARK_INTERVAL = Duration.ofSeconds(5);
  private static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);

  private final WatchCache cache;
  private final TableConverter tables;

  Watches(WatchCache cache, TableConverter tables) {
    this.cache = cache;
    this.tables = tables;
  }

  /** What a watch asks for, read from its request. */
  record Request(
      ResourceType type,
      String namespace,
      Selectors.LabelSelector labels,
      Selectors.FieldSelector fields,
      Start start,
      boolean bookmarks,
      long timeoutSeconds,
      boolean table,
      TableConverter.IncludeObject include) {

    /**
     * The watch of {@code type} in {@code namespace} (null: all) that the request's query and
     * {@code Accept} header ask for; a watch of one object ({@code .../pods/web?watch=true}) is a
     * watch with the field selector {@code metadata.name=web}.
     */
    static Request of(
        ResourceType type,
        String namespace,
        RequestInfo info,
        Map<String, String> query,
        String accept) {
      String fieldSelector = query.get("fieldSelector");
      if (info.name() != null) {
        String byName = "metadata.name=" + info.name();
        fieldSelector =
            fieldSelector == null || fieldSelector.isBlank()
                ? byName
                : fieldSelector + "," + byName;
      }
      return new Request(
          type,
          namespace,
          Selectors.parseLabels(query.get("labelSelector")),
          Selectors.parseFields(fieldSelector, type),
          start(query.get("resourceVersion")),
          QueryBooleans.get(query, "allowWatchBookmarks"),
          ApiHandler.parseLong(query.get("timeoutSeconds")),
          TableConverter.requested(accept),
          TableConverter.IncludeObject.parse(query.get("includeObject")));
    }

    /**
     * Where a watch starts: after a list's version, or — with no version, "0", or an object's
     * resourceVersion, which names no position in {@code events} — from the current state (an
     * object version as start is answered with 410, and clients list again).
     */
    private static Start start(String resourceVersion) {
      if (resourceVersion == null || resourceVersion.isEmpty() || resourceVersion.equals("0")) {
        return Start.current();
      }
      return ListVersion.parse(resourceVersion)
          .map(Start::after)
          .orElseGet(() -> Start.expired(resourceVersion));
    }
  }

  /** Where a watch's events go: a chunked HTTP answer, or a WebSocket a message each. */
  interface Sink {
    void event(String type, ObjectNode object) throws IOException;

    /** Hands over what was written; an HTTP answer sends its chunk. */
    void flush() throws IOException;

    /** Ends the watch as the server ends it (the answer's end, a normal close). */
    void end() throws IOException;

    /** Whether the client has gone. */
    default boolean gone() {
      return false;
    }
  }

  /** A watch that may begin: it was registered with the cache before anything was answered. */
  final class Open implements AutoCloseable {
    private final Request request;
    private final BlockingQueue<WatchEvent> queue = new LinkedBlockingQueue<>();
    private final WatchCache.Registration registration;

    private Open(Request request) {
      this.request = request;
      ResourceType type = request.type();
      registration =
          cache.watch(
              type.storage().group(),
              type.storage().plural(),
              request.start().after(),
              event ->
                  (request.namespace() == null || request.namespace().equals(event.namespace()))
                      && request.labels().matches(event.object())
                      && matchesFields(request, event.object()),
              queue::offer);
    }

    /**
     * Whether the object, as the watched version shows it, matches the field selector; an object
     * whose conversion fails is let through, for {@link #run} to end the watch with the error.
     */
    private static boolean matchesFields(Request request, ObjectNode stored) {
      if (request.fields().isEverything()) {
        return true;
      }
      try {
        return request.fields().matches(request.type().fromStorage(stored));
      } catch (ApiException e) {
        return true;
      }
    }

    /**
     * Sends the events to {@code sink} until the watch's timeout or the client's leaving, with a
     * BOOKMARK every few seconds when the client allows them, then ends it.
     */
    void run(Sink sink) throws IOException, InterruptedException {
      Request r = request;
      long deadline =
          System.nanoTime()
              + (r.timeoutSeconds() > 0 ? Duration.ofSeconds(r.timeoutSeconds()) : DEFAULT_TIMEOUT)
                  .toNanos();
      long nextBookmark = System.nanoTime() + BOOKMARK_INTERVAL.toNanos();
      while (System.nanoTime() < deadline && !sink.gone()) {
        WatchEvent event = queue.poll(200, TimeUnit.MILLISECONDS);
        if (event != null) {
          for (; event != null; event = queue.poll()) {
            if (WatchEvent.ERROR.equals(event.type())) {
              sink.event(event.type(), event.object());
              sink.end();
              return;
            }
            ObjectNode object;
            try {
              object = r.type().fromStorage(event.object());
            } catch (ApiException e) {
              // A version whose conversion failed (its webhook): the watch ends with the error.
              sink.event(WatchEvent.ERROR, e.status());
              sink.end();
              return;
            }
            sink.event(
                event.type(), r.table() ? tables.forObject(r.type(), object, r.include()) : object);
          }
          sink.flush();
        } else if (r.bookmarks() && registration.following() && System.nanoTime() > nextBookmark) {
          // The cache hands a change to its watchers before its position moves past it: read
          // the position first, and a queue still empty after that holds every change below it.
          String version = cache.version().toString();
          if (queue.isEmpty()) {
            ObjectNode bookmark = JsonNodeFactory.instance.objectNode();
            bookmark.put("kind", r.type().kind()).put("apiVersion", r.type().groupVersion());
            bookmark.putObject("metadata").put("resourceVersion", version);
            sink.event("BOOKMARK", bookmark);
            sink.flush();
            nextBookmark = System.nanoTime() + BOOKMARK_INTERVAL.toNanos();
          }
        }
      }
      sink.end();
    }

    @Override
    public void close() {
      registration.close();
    }
  }

  /**
   * Registers the watch with the cache; 410 Gone when it starts at a version the cache no longer
   * holds. The caller answers only after this, so that nothing the client is told precedes the
   * start of the watch.
   */
  Open open(Request request) {
    if (request.start().expired() != null) {
      throw new ApiException(
          Statuses.tooOldResourceVersion(request.start().expired(), cache.version().toString()));
    }
    return new Open(request);
  }

  /** Serves a watch as a chunked HTTP answer of newline-separated events. */
  void serve(HttpExchange exchange, Request request) throws IOException {
    // Jetty sends the CRLF that ends a chunk only with the next chunk. Go's and OkHttp's readers
    // hand a chunk's data over before that CRLF; urllib3 (the Python client) waits for it, so the
    // last event of a burst would reach a Python watch only with the next one. For it, every flush
    // is followed by a one-space chunk: the space is JSON whitespace before the next line, and
    // the Python client drops a trailing partial line at the end of the stream. Not for other
    // clients: the Java client reads a space left before the end as a line and fails on it.
    String agent = exchange.getRequestHeaders().getFirst("User-Agent");
    boolean padChunks = agent != null && agent.toLowerCase(Locale.ROOT).contains("python");
    try (Open watch = open(request)) {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.getResponseHeaders().set("Transfer-Encoding", "chunked");
      exchange.sendResponseHeaders(200, 0);
      RequestAudit.responseStarted(exchange, 200);
      // Whole lines per flush: each batch of events leaves as one chunk ending in a newline.
      OutputStream body = exchange.getResponseBody();
      OutputStream out =
          new BufferedOutputStream(body, 64 * 1024) {
            @Override
            public synchronized void flush() throws IOException {
              super.flush();
              if (padChunks) {
                body.write(' ');
                body.flush();
              }
            }
          };
      out.flush();
      watch.run(
          new Sink() {
            @Override
            public void event(String type, ObjectNode object) throws IOException {
              out.write(Responses.JSON.writeValueAsBytes(watchEvent(type, object)));
              out.write('\n');
            }

            @Override
            public void flush() throws IOException {
              out.flush();
            }

            @Override
            public void end() throws IOException {
              out.close();
            }
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A watch event as Kubernetes writes it: {@code {"type": ..., "object": ...}}. */
  static ObjectNode watchEvent(String type, ObjectNode object) {
    ObjectNode event = JsonNodeFactory.instance.objectNode();
    event.put("type", type);
    event.set("object", object);
    return event;
  }
}
