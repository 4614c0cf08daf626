package io.streamplane.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A watch on one collection that keeps going until closed, as client-go's reflector does: it lists
 * first, watches from the list's resourceVersion with bookmarks, resumes from the last version it
 * saw when the server ends the stream, and lists again when that version has expired (410 Gone).
 *
 * <p>Each event is handed over with the time its line arrived, on the client's clock, before any
 * other work: that arrival time is what the scenarios measure. After a new list, the handler gets
 * the listed objects ({@link Handler#onRelist}) so it can account for changes it did not see as
 * events; {@link #relists} says how often that happened, and a report should show it.
 */
public final class Watch implements AutoCloseable {

  /** One watch event: ADDED, MODIFIED, DELETED (BOOKMARKs are not handed over). */
  public record Event(String type, JsonNode object, Instant received) {}

  /** What receives the events; called from the watch's own thread, one event at a time. */
  public interface Handler {
    void onEvent(Event event);

    /** After listing again: the collection as it is now. */
    default void onRelist(List<JsonNode> items, Instant received) {}
  }

  /** Servers end watches after this; the watch then resumes (kube-apiserver picks 30-60 min). */
  private static final int TIMEOUT_SECONDS = 1800;

  private final KubeClient client;
  private final String collection;
  private final String selectorQuery;
  private final Handler handler;
  private final Thread thread;
  private final AtomicInteger resumes = new AtomicInteger();
  private final AtomicInteger relists = new AtomicInteger();
  private final AtomicInteger errors = new AtomicInteger();
  private volatile String version;
  private volatile List<JsonNode> initialItems = List.of();
  private volatile InputStream stream;
  private volatile String lastError;
  private volatile boolean closed;

  private Watch(KubeClient client, String collection, String labelSelector, Handler handler) {
    this.client = client;
    this.collection = collection;
    this.selectorQuery =
        labelSelector == null || labelSelector.isEmpty()
            ? ""
            : "labelSelector=" + URLEncoder.encode(labelSelector, StandardCharsets.UTF_8);
    this.handler = handler;
    this.thread = new Thread(this::run, "bench-watch " + collection);
    this.thread.setDaemon(true);
  }

  /**
   * Lists {@code collection} (a path such as {@code /api/v1/namespaces/x/pods}), opens the watch
   * from the list's version and answers once the server has accepted it, so nothing that happens
   * after this call is missed.
   */
  public static Watch start(
      KubeClient client, String collection, String labelSelector, Handler handler)
      throws IOException, InterruptedException {
    Watch watch = new Watch(client, collection, labelSelector, handler);
    watch.initialItems = watch.list();
    HttpResponse<InputStream> response = watch.open();
    if (response.statusCode() != 200) {
      String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
      throw new IOException("watch " + collection + ": " + response.statusCode() + " " + body);
    }
    watch.stream = response.body();
    watch.thread.start();
    return watch;
  }

  /** The objects the first list returned (the state before the watch began). */
  public List<JsonNode> initialItems() {
    return initialItems;
  }

  /** How often the watch was resumed after the server ended it. */
  public int resumes() {
    return resumes.get();
  }

  /** How often it had to list again because its version had expired. */
  public int relists() {
    return relists.get();
  }

  /** Failed attempts to reopen the watch, and the last failure (null if none). */
  public int errors() {
    return errors.get();
  }

  public String lastError() {
    return lastError;
  }

  private List<JsonNode> list() throws IOException, InterruptedException {
    KubeClient.Response response =
        client.get(collection + (selectorQuery.isEmpty() ? "" : "?" + selectorQuery));
    if (response.status() != 200 || response.body() == null) {
      throw new IOException(
          "list " + collection + ": " + response.status() + " " + response.message());
    }
    version = response.body().at("/metadata/resourceVersion").asText();
    List<JsonNode> items = new ArrayList<>();
    response.body().path("items").forEach(items::add);
    return items;
  }

  private HttpResponse<InputStream> open() throws IOException, InterruptedException {
    return client.openStream(
        collection
            + "?watch=true&allowWatchBookmarks=true&timeoutSeconds="
            + TIMEOUT_SECONDS
            + "&resourceVersion="
            + URLEncoder.encode(version, StandardCharsets.UTF_8)
            + (selectorQuery.isEmpty() ? "" : "&" + selectorQuery));
  }

  private void run() {
    while (!closed) {
      try {
        boolean expired = read(stream);
        if (closed) {
          return;
        }
        if (expired) {
          relist();
        } else {
          resumes.incrementAndGet();
        }
        reopen();
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        if (closed) {
          return;
        }
        errors.incrementAndGet();
        lastError = e.toString();
        try {
          Thread.sleep(1_000);
          reopen();
        } catch (InterruptedException interrupted) {
          return;
        } catch (IOException | RuntimeException again) {
          lastError = again.toString();
        }
      }
    }
  }

  private void reopen() throws IOException, InterruptedException {
    HttpResponse<InputStream> response = open();
    if (response.statusCode() == 410) {
      response.body().close();
      relist();
      response = open();
    }
    if (response.statusCode() != 200) {
      String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
      throw new IOException("watch " + collection + ": " + response.statusCode() + " " + body);
    }
    stream = response.body();
  }

  private void relist() throws IOException, InterruptedException {
    relists.incrementAndGet();
    List<JsonNode> items = list();
    handler.onRelist(items, Instant.now());
  }

  /** Reads one watch stream to its end; true when it ended with 410 Gone (version expired). */
  private boolean read(InputStream in) throws IOException {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        Instant received = Instant.now();
        if (line.isBlank()) {
          continue;
        }
        JsonNode event = KubeClient.JSON.readTree(line);
        String type = event.path("type").asText();
        JsonNode object = event.path("object");
        if (type.equals("ERROR")) {
          if (object.path("code").asInt() == 410) {
            return true;
          }
          throw new IOException("watch " + collection + " error: " + object);
        }
        String objectVersion = object.at("/metadata/resourceVersion").asText("");
        if (!objectVersion.isEmpty()) {
          version = objectVersion;
        }
        if (!type.equals("BOOKMARK")) {
          handler.onEvent(new Event(type, object, received));
        }
      }
    }
    return false;
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    InputStream in = stream;
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        // Closing a stream being torn down: nothing left to do.
      }
    }
  }
}
