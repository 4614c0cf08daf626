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
import io.streamplane.kinds.ResourceType;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Locale;
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

  void serve(
      HttpExchange exchange,
      ResourceType type,
      String namespace,
      Selectors.LabelSelector labels,
      Selectors.FieldSelector fields,
      Start start,
      boolean bookmarks,
      long timeoutSeconds,
      boolean table,
      TableConverter.IncludeObject include)
      throws IOException {
    if (start.expired() != null) {
      throw new ApiException(
          Statuses.tooOldResourceVersion(start.expired(), cache.version().toString()));
    }
    // Jetty sends the CRLF that ends a chunk only with the next chunk. Go's and OkHttp's readers
    // hand a chunk's data over before that CRLF; urllib3 (the Python client) waits for it, so the
    // last event of a burst would reach a Python watch only with the next one. For it, every flush
    // is followed by a one-space chunk: the space is JSON whitespace before the next line, and
    // the Python client drops a trailing partial line at the end of the stream. Not for other
    // clients: the Java client reads a space left before the end as a line and fails on it.
    String agent = exchange.getRequestHeaders().getFirst("User-Agent");
    boolean padChunks = agent != null && agent.toLowerCase(Locale.ROOT).contains("python");
    BlockingQueue<WatchEvent> queue = new LinkedBlockingQueue<>();
    try (WatchCache.Registration registration =
        cache.watch(
            type.storage().group(),
            type.storage().plural(),
            start.after(),
            event ->
                (namespace == null || namespace.equals(event.namespace()))
                    && labels.matches(event.object())
                    && fields.matches(type.fromStorage(event.object())),
            queue::offer)) {
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
      long deadline =
          System.nanoTime()
              + (timeoutSeconds > 0 ? Duration.ofSeconds(timeoutSeconds) : DEFAULT_TIMEOUT)
                  .toNanos();
      long nextBookmark = System.nanoTime() + BOOKMARK_INTERVAL.toNanos();
      while (System.nanoTime() < deadline) {
        WatchEvent event = queue.poll(200, TimeUnit.MILLISECONDS);
        if (event != null) {
          for (; event != null; event = queue.poll()) {
            if (WatchEvent.ERROR.equals(event.type())) {
              write(out, event.type(), event.object());
              out.close();
              return;
            }
            ObjectNode object = type.fromStorage(event.object());
            write(out, event.type(), table ? tables.forObject(type, object, include) : object);
          }
          out.flush();
        } else if (bookmarks && registration.following() && System.nanoTime() > nextBookmark) {
          // The cache hands a change to its watchers before its position moves past it: read
          // the position first, and a queue still empty after that holds every change below it.
          String version = cache.version().toString();
          if (queue.isEmpty()) {
            ObjectNode bookmark = JsonNodeFactory.instance.objectNode();
            bookmark.put("kind", type.kind()).put("apiVersion", type.groupVersion());
            bookmark.putObject("metadata").put("resourceVersion", version);
            write(out, "BOOKMARK", bookmark);
            out.flush();
            nextBookmark = System.nanoTime() + BOOKMARK_INTERVAL.toNanos();
          }
        }
      }
      out.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void write(OutputStream out, String type, ObjectNode object) throws IOException {
    ObjectNode event = JsonNodeFactory.instance.objectNode();
    event.put("type", type);
    event.set("object", object);
    out.write(Responses.JSON.writeValueAsBytes(event));
    out.write('\n');
  }
}
