package io.streamplane.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.bench.load.KubeClient;
import io.streamplane.gateway.pki.ClusterPki;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A watch on one collection kept open through the faults, recording every event it is sent. When
 * the stream ends, breaks or stays silent for longer than three bookmark periods (a paused gateway
 * keeps its sockets open), it reconnects to the next gateway from the last BOOKMARK's version (a
 * list version, the only kind a Streamplane watch resumes from); on 410 Gone it lists again. Each
 * connection is a {@link Segment}; {@link WatchCheck} compares the events with the log.
 */
final class WatchRecorder implements AutoCloseable {

  /** One connection: the version it started from, and whether it started with a new list. */
  record Segment(
      int id, String server, String from, boolean relisted, Map<String, String> listed) {}

  /** One event received: its segment, type, object name and resourceVersion. */
  record Received(int segment, String type, String name, String version) {}

  private static final long SILENCE_MILLIS = 15_000;

  private final List<KubeClient> clients;
  private final List<String> servers;
  private final String collection;
  private final List<Segment> segments = new ArrayList<>();
  private final List<Received> received = new ArrayList<>();
  private final AtomicInteger errors = new AtomicInteger();
  private final Thread thread;
  private final Thread watchdog;
  private volatile String bookmark;
  private volatile InputStream stream;
  private volatile long lastLine = System.currentTimeMillis();
  private volatile boolean closed;
  private int server;

  WatchRecorder(List<String> servers, ClusterPki.ClientIdentity identity, String collection) {
    this.servers = servers;
    this.clients = servers.stream().map(s -> ChaosApi.client(s, identity)).toList();
    this.collection = collection;
    this.thread = new Thread(this::run, "chaos-watch " + collection);
    this.thread.setDaemon(true);
    this.watchdog = new Thread(this::watchdog, "chaos-watchdog " + collection);
    this.watchdog.setDaemon(true);
  }

  /** Lists, opens the watch from the list's version and starts reading. */
  void start() throws IOException, InterruptedException {
    list(false);
    open();
    thread.start();
    watchdog.start();
  }

  synchronized List<Segment> segments() {
    return new ArrayList<>(segments);
  }

  synchronized List<Received> received() {
    return new ArrayList<>(received);
  }

  synchronized int count() {
    return received.size();
  }

  int errors() {
    return errors.get();
  }

  /** The last bookmark's list version, or null before the first. */
  String bookmark() {
    return bookmark;
  }

  private void list(boolean relisted) throws IOException, InterruptedException {
    KubeClient.Response r = clients.get(server).get(collection);
    if (r.status() != 200 || r.body() == null) {
      throw new IOException("list " + collection + ": " + r.status() + " " + r.message());
    }
    String version = r.body().at("/metadata/resourceVersion").asText();
    Map<String, String> listed = new HashMap<>();
    for (JsonNode item : r.body().path("items")) {
      listed.put(item.at("/metadata/name").asText(), item.at("/metadata/resourceVersion").asText());
    }
    bookmark = version;
    synchronized (this) {
      segments.add(new Segment(segments.size(), servers.get(server), version, relisted, listed));
    }
  }

  /** Opens a stream from {@link #bookmark}; answers false on 410 Gone. */
  private boolean open() throws IOException, InterruptedException {
    HttpResponse<InputStream> response =
        clients
            .get(server)
            .openStream(
                collection
                    + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion="
                    + URLEncoder.encode(bookmark, StandardCharsets.UTF_8));
    if (response.statusCode() == 410) {
      response.body().close();
      return false;
    }
    if (response.statusCode() != 200) {
      String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
      response.body().close();
      throw new IOException("watch " + collection + ": " + response.statusCode() + " " + body);
    }
    lastLine = System.currentTimeMillis();
    stream = response.body();
    return true;
  }

  private void run() {
    boolean fresh = true;
    while (!closed) {
      try {
        if (!fresh) {
          reconnect();
        }
        fresh = false;
        read(stream);
      } catch (IOException | RuntimeException e) {
        if (closed) {
          return;
        }
        errors.incrementAndGet();
        server = (server + 1) % clients.size();
        try {
          Thread.sleep(500);
        } catch (InterruptedException interrupted) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void reconnect() throws IOException, InterruptedException {
    String from = bookmark;
    if (open()) {
      synchronized (this) {
        segments.add(new Segment(segments.size(), servers.get(server), from, false, Map.of()));
      }
    } else {
      list(true);
      if (!open()) {
        throw new IOException("watch " + collection + ": 410 right after a list");
      }
    }
  }

  private void read(InputStream in) throws IOException {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lastLine = System.currentTimeMillis();
        if (line.isBlank()) {
          continue;
        }
        JsonNode event = KubeClient.JSON.readTree(line);
        String type = event.path("type").asText();
        JsonNode object = event.path("object");
        String version = object.at("/metadata/resourceVersion").asText("");
        if (type.equals("ERROR")) {
          if (object.path("code").asInt() == 410) {
            list(true);
            if (!open()) {
              throw new IOException("410 right after a list");
            }
            in = stream;
            read(in);
            return;
          }
          throw new IOException("watch error: " + object);
        }
        if (type.equals("BOOKMARK")) {
          bookmark = version;
          continue;
        }
        synchronized (this) {
          received.add(
              new Received(
                  segments.size() - 1, type, object.at("/metadata/name").asText(), version));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    throw new IOException("stream ended");
  }

  private void watchdog() {
    while (!closed) {
      try {
        Thread.sleep(1_000);
      } catch (InterruptedException e) {
        return;
      }
      if (System.currentTimeMillis() - lastLine > SILENCE_MILLIS) {
        lastLine = System.currentTimeMillis();
        InputStream in = stream;
        if (in != null) {
          try {
            in.close();
          } catch (IOException e) {
            // Torn down already.
          }
        }
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    watchdog.interrupt();
    InputStream in = stream;
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        // Closing.
      }
    }
  }
}
