package io.streamplane.bench.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamplane.bench.load.Watch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pods of a run as a watch shows them, with the first moments that matter for Kubernetes' pod
 * startup SLI: the pod's {@code creationTimestamp} (server clock, whole seconds in Kubernetes),
 * when the watch first showed it, first showed it with a {@code spec.nodeName} (scheduled) and
 * first showed it in phase Running, and when it showed it DELETED. The watch times are the events'
 * arrival on this client's clock.
 *
 * <p>After a re-list, pods in the list get the list's time for what they show and was not seen
 * before, and pods missing from it count as deleted then.
 */
public final class PodTracker implements Watch.Handler {

  /** One pod's moments; null when not (yet) seen. */
  public static final class Pod {
    final String name;
    final Instant created;
    final Instant seen;
    volatile Instant scheduled;
    volatile Instant running;
    volatile Instant deleted;
    volatile String node;

    Pod(String name, Instant created, Instant seen) {
      this.name = name;
      this.created = created;
      this.seen = seen;
    }

    public String name() {
      return name;
    }

    public Instant created() {
      return created;
    }

    public Instant seen() {
      return seen;
    }

    public Instant scheduled() {
      return scheduled;
    }

    public Instant running() {
      return running;
    }

    public Instant deleted() {
      return deleted;
    }

    public String node() {
      return node;
    }
  }

  private final Map<String, Pod> pods = new ConcurrentHashMap<>();
  private final AtomicInteger added = new AtomicInteger();
  private final AtomicInteger scheduled = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger deleted = new AtomicInteger();

  @Override
  public void onEvent(Watch.Event event) {
    JsonNode pod = event.object();
    String name = pod.at("/metadata/name").asText();
    if (name.isEmpty()) {
      return;
    }
    // Keyed by uid: a pod re-created under the same name is another pod.
    String key = name + "/" + pod.at("/metadata/uid").asText();
    if (event.type().equals("DELETED")) {
      Pod known = pods.get(key);
      if (known != null && known.deleted == null) {
        known.deleted = event.received();
        deleted.incrementAndGet();
      }
      return;
    }
    observe(key, pod, event.received());
  }

  @Override
  public void onRelist(List<JsonNode> items, Instant received) {
    Set<String> listed = new HashSet<>();
    for (JsonNode pod : items) {
      String key = pod.at("/metadata/name").asText() + "/" + pod.at("/metadata/uid").asText();
      listed.add(key);
      observe(key, pod, received);
    }
    for (Map.Entry<String, Pod> e : pods.entrySet()) {
      if (!listed.contains(e.getKey()) && e.getValue().deleted == null) {
        e.getValue().deleted = received;
        deleted.incrementAndGet();
      }
    }
  }

  private void observe(String key, JsonNode pod, Instant received) {
    Pod p =
        pods.computeIfAbsent(
            key,
            k -> {
              added.incrementAndGet();
              String created = pod.at("/metadata/creationTimestamp").asText("");
              return new Pod(
                  pod.at("/metadata/name").asText(),
                  created.isEmpty() ? null : Instant.parse(created),
                  received);
            });
    String node = pod.at("/spec/nodeName").asText("");
    if (!node.isEmpty() && p.scheduled == null) {
      p.node = node;
      p.scheduled = received;
      scheduled.incrementAndGet();
    }
    if (pod.at("/status/phase").asText("").equals("Running") && p.running == null) {
      p.running = received;
      running.incrementAndGet();
    }
  }

  /** Pods seen so far (also those deleted since). */
  public int added() {
    return added.get();
  }

  public int scheduled() {
    return scheduled.get();
  }

  public int running() {
    return running.get();
  }

  public int deleted() {
    return deleted.get();
  }

  /** Pods seen and not deleted. */
  public int live() {
    return added.get() - deleted.get();
  }

  /** Pods not deleted that have been seen Running. */
  public int liveRunning() {
    int n = 0;
    for (Pod p : pods.values()) {
      if (p.deleted == null && p.running != null) {
        n++;
      }
    }
    return n;
  }

  public List<Pod> pods() {
    return new ArrayList<>(pods.values());
  }

  /** Milliseconds from {@code from} to {@code to} of every pod that has both. */
  public static double[] millis(
      List<Pod> pods,
      java.util.function.Function<Pod, Instant> from,
      java.util.function.Function<Pod, Instant> to) {
    return pods.stream()
        .filter(p -> from.apply(p) != null && to.apply(p) != null)
        .mapToDouble(p -> Duration.between(from.apply(p), to.apply(p)).toNanos() / 1e6)
        .toArray();
  }
}
