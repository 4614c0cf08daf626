package io.streamplane.bench.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Counts the fleet's Lease renewals as a user sees them: one watch on {@code kube-node-lease}'s
 * Leases through the gateway, started at a list's version, counting every MODIFIED event of a Lease
 * held by a fleet node whose {@code spec.renewTime} falls in {@code [from, until)}.
 *
 * <p>The watch is not resumed: if the gateway ends it early, {@link #failure()} says so and the
 * benchmark fails rather than count twice or miss events.
 */
final class LeaseWatch implements AutoCloseable {

  private static final String LEASES =
      "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";

  private final String prefix;
  private final Instant from;
  private final Instant until;
  private final Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();
  private final AtomicLong total = new AtomicLong();
  private final Thread thread;
  private volatile String failure;
  private volatile boolean closed;

  private LeaseWatch(String prefix, Instant from, Instant until, Runnable body) {
    this.prefix = prefix;
    this.from = from;
    this.until = until;
    this.thread = new Thread(body, "fleetbench-lease-watch");
    this.thread.setDaemon(true);
  }

  /**
   * Lists the Leases now and watches from that version for {@code watchSeconds}; counts renewals
   * with a renew time in {@code [from, until)}.
   */
  static LeaseWatch start(
      ApiClient api, String prefix, Instant from, Instant until, long watchSeconds)
      throws Exception {
    String version = api.get(LEASES).at("/metadata/resourceVersion").asText();
    LeaseWatch[] self = new LeaseWatch[1];
    LeaseWatch watch =
        new LeaseWatch(
            prefix,
            from,
            until,
            () ->
                self[0].run(
                    api,
                    LEASES
                        + "?watch=true&allowWatchBookmarks=true&timeoutSeconds="
                        + watchSeconds
                        + "&resourceVersion="
                        + version));
    self[0] = watch;
    watch.thread.start();
    return watch;
  }

  private void run(ApiClient api, String path) {
    try (Stream<String> lines = api.watch(path)) {
      lines.forEach(this::onLine);
      if (!closed) {
        failure = "the Lease watch ended before the benchmark did";
      }
    } catch (Exception e) {
      if (!closed) {
        failure = "the Lease watch failed: " + e;
      }
    }
  }

  private void onLine(String line) {
    if (line.isBlank()) {
      return;
    }
    JsonNode event;
    try {
      event = ApiClient.JSON.readTree(line);
    } catch (Exception e) {
      failure = "unreadable watch event: " + line;
      return;
    }
    String type = event.path("type").asText();
    if (type.equals("ERROR")) {
      failure = "the Lease watch reported an error: " + event.path("object");
      return;
    }
    if (!type.equals("MODIFIED")) {
      return;
    }
    JsonNode lease = event.path("object");
    String holder = lease.at("/spec/holderIdentity").asText();
    String renewTime = lease.at("/spec/renewTime").asText();
    if (!holder.startsWith(prefix) || renewTime.isEmpty()) {
      return;
    }
    Instant renewed = Instant.parse(renewTime);
    if (!renewed.isBefore(from) && renewed.isBefore(until)) {
      renewals.computeIfAbsent(holder, h -> new AtomicInteger()).incrementAndGet();
      total.incrementAndGet();
    }
  }

  /** Renewals counted so far. */
  long total() {
    return total.get();
  }

  /** Renewals per node so far; nodes never renewed in the window are absent. */
  Map<String, Integer> perNode() {
    Map<String, Integer> copy = new HashMap<>();
    renewals.forEach((node, count) -> copy.put(node, count.get()));
    return copy;
  }

  /** Why the count cannot be trusted, or null. */
  String failure() {
    return failure;
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
