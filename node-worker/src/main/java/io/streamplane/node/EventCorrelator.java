package io.streamplane.node;

import io.streamplane.api.Event;
import io.streamplane.api.EventSource;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.ObjectReference;
import io.streamplane.schema.objects.ObjectEvents;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a node does with an Event it is about to record, as the kubelet's event recorder decides
 * (client-go's {@code EventCorrelator}, with its defaults), so a pod that fails again and again
 * neither writes without bound nor fills {@code kubectl describe} with copies:
 *
 * <ol>
 *   <li><b>Aggregation</b>: events about one object from one source with the same type and reason
 *       but 10 or more different messages within 10 minutes become one Event whose message is
 *       {@code (combined from similar events): <the last message>}.
 *   <li><b>Counting</b>: an Event like one recorded before (same source, object, type, reason and
 *       message) is not created again: the first one's {@code count} goes up and its {@code
 *       lastTimestamp} moves, in one PATCH.
 *   <li><b>Spam filter</b>: a source may write 25 Events about an object at once, then one every 5
 *       minutes (a token bucket per source and object); the rest are dropped.
 * </ol>
 *
 * <p>The node names an Event after the occurrence it reports (a seed: pod uid, reason and what
 * happened), so an occurrence seen on several syncs is recorded once: a seed seen before is dropped
 * before any of the above. Its memory is bounded (4,096 entries per table, least recently used
 * first out) and starts empty when the node starts, as the kubelet's.
 */
final class EventCorrelator {

  /** What to do with an Event. */
  sealed interface Decision {}

  /** Create {@code event} (a first occurrence, or an aggregate). */
  record Create(Event event) implements Decision {}

  /** Count one more occurrence on the Event already recorded: {@code event} as it is now. */
  record Count(Event event) implements Decision {
    String name() {
      return event.getMetadata().getName();
    }

    int count() {
      return event.getCount();
    }

    Instant lastTimestamp() {
      return event.getLastTimestamp();
    }

    String message() {
      return event.getMessage();
    }
  }

  /** Record nothing: an occurrence seen before, or over the spam filter's budget. */
  record Drop(String why) implements Decision {}

  static final int CACHE_ENTRIES = 4_096;
  static final int AGGREGATE_MAX_EVENTS = 10;
  static final Duration AGGREGATE_INTERVAL = Duration.ofMinutes(10);
  static final int SPAM_BURST = 25;
  static final Duration SPAM_REFILL = Duration.ofMinutes(5);
  static final String COMBINED = "(combined from similar events): ";

  /** The different messages of one group of similar Events, and when the last one came. */
  private static final class Aggregate {
    final Set<String> messages = new HashSet<>();
    Instant last;

    Aggregate(Instant now) {
      last = now;
    }
  }

  private record Observation(String name, int count, Instant firstTimestamp) {}

  private static final class Bucket {
    double tokens = SPAM_BURST;
    Instant refilledAt;

    Bucket(Instant now) {
      refilledAt = now;
    }

    boolean tryTake(Instant now) {
      double elapsed = Duration.between(refilledAt, now).toNanos() / 1e9;
      tokens = Math.min(SPAM_BURST, tokens + elapsed / SPAM_REFILL.toSeconds());
      refilledAt = now;
      if (tokens < 1) {
        return false;
      }
      tokens -= 1;
      return true;
    }
  }

  private final Clock clock;
  private final Map<String, Boolean> seeds = lru();
  private final Map<String, Aggregate> aggregates = lru();
  private final Map<String, Observation> observations = lru();
  private final Map<String, Bucket> spam = lru();

  EventCorrelator(Clock clock) {
    this.clock = clock;
  }

  /** Decides what to do with {@code event}, the occurrence named {@code seed}. */
  synchronized Decision correlate(Event event, String seed) {
    if (seeds.put(seed, Boolean.TRUE) != null) {
      return new Drop("recorded before");
    }
    Instant now = clock.instant();
    Event candidate = event;
    String key = eventKey(event);
    String aggregateKey = aggregateKey(event);
    Aggregate aggregate = aggregates.get(aggregateKey);
    if (aggregate == null
        || Duration.between(aggregate.last, now).compareTo(AGGREGATE_INTERVAL) > 0) {
      aggregate = new Aggregate(now);
      aggregates.put(aggregateKey, aggregate);
    }
    aggregate.last = now;
    aggregate.messages.add(Objects.toString(event.getMessage(), ""));
    if (aggregate.messages.size() >= AGGREGATE_MAX_EVENTS) {
      // The set stays below the threshold, so every further message keeps the aggregate going.
      aggregate.messages.remove(aggregate.messages.iterator().next());
      candidate = combined(event, aggregateKey, now);
      key = aggregateKey;
    }
    Observation last = observations.get(key);
    Decision decision;
    if (last == null) {
      observations.put(
          key,
          new Observation(candidate.getMetadata().getName(), 1, candidate.getFirstTimestamp()));
      decision = new Create(candidate);
    } else {
      Observation next = new Observation(last.name(), last.count() + 1, last.firstTimestamp());
      observations.put(key, next);
      decision =
          new Count(
              Event.newBuilder(candidate)
                  .setMetadata(
                      ObjectMeta.newBuilder(candidate.getMetadata()).setName(last.name()).build())
                  .setCount(next.count())
                  .setFirstTimestamp(last.firstTimestamp())
                  .setLastTimestamp(now.truncatedTo(ChronoUnit.SECONDS))
                  .build());
    }
    Bucket bucket = spam.computeIfAbsent(spamKey(event), k -> new Bucket(now));
    if (!bucket.tryTake(now)) {
      return new Drop("over the spam filter's budget for " + objectOf(event));
    }
    return decision;
  }

  /** The aggregate of {@code event}'s kind: one Event named after the group and its window. */
  private static Event combined(Event event, String aggregateKey, Instant now) {
    Instant at = now.truncatedTo(ChronoUnit.SECONDS);
    return Event.newBuilder(event)
        .setMetadata(
            ObjectMeta.newBuilder(event.getMetadata())
                .setName(
                    ObjectEvents.name(
                        event.getInvolvedObject().getName(),
                        aggregateKey + "/" + now.toEpochMilli()))
                .build())
        .setMessage(COMBINED + event.getMessage())
        .setCount(1)
        .setFirstTimestamp(at)
        .setLastTimestamp(at)
        .build();
  }

  /** The source and the object an Event is about: the spam filter's key. */
  private static String spamKey(Event e) {
    ObjectReference o = e.getInvolvedObject();
    return join(
        source(e), o.getKind(), o.getNamespace(), o.getName(), o.getUid(), o.getApiVersion());
  }

  /** Events alike but for their message. */
  private static String aggregateKey(Event e) {
    return spamKey(e)
        + join(e.getType(), e.getReason(), e.getReportingComponent(), e.getReportingInstance());
  }

  /** The same Event again. */
  private static String eventKey(Event e) {
    return spamKey(e)
        + join(e.getInvolvedObject().getFieldPath(), e.getType(), e.getReason(), e.getMessage());
  }

  private static String source(Event e) {
    EventSource s = e.getSource();
    return s == null ? "\u0000" : join(s.getComponent(), s.getHost());
  }

  private static String objectOf(Event e) {
    ObjectReference o = e.getInvolvedObject();
    return o.getKind() + " " + o.getNamespace() + "/" + o.getName();
  }

  /** Fields joined with a separator no Kubernetes name or message field holds. */
  private static String join(String... fields) {
    StringBuilder key = new StringBuilder();
    for (String f : fields) {
      key.append(f == null ? "" : f).append('\u0000');
    }
    return key.toString();
  }

  private static <V> Map<String, V> lru() {
    return new LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > CACHE_ENTRIES;
      }
    };
  }
}
