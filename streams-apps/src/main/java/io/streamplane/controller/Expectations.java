package io.streamplane.controller;

import io.streamplane.log.CommandVerb;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * The writes one controller key has sent and not yet seen come back in its events, as
 * kube-controller-manager's {@code ControllerExpectations}: a create waits for the object to
 * appear, a delete for it to disappear or be marked for deletion, an update (spec or status) for
 * the object to move past the resourceVersion it was computed from. While a write is pending the
 * controller does not send it again, and a ReplicaSet does not create or delete more pods; so a
 * view that lags behind the controller's own decisions costs nothing instead of a repeat of every
 * command.
 *
 * <p>A pending write is forgotten after {@link #TIMEOUT}: a command the store refused (invalid,
 * conflict, quota) never shows up in the events, and the controller decides again after that long.
 * Only writes whose effect is routed back to the same key may be expected; an update that takes an
 * object away from the key (an orphaned pod, a dropped owner reference) must not be.
 *
 * <p>Mutable and local to one reconcile; {@link #encode()} and {@link #decode} carry it through the
 * state store as one line per pending write.
 */
public final class Expectations {

  /**
   * How long a write may stay unobserved before it is sent again: kube-controller-manager's {@code
   * ExpectationsTimeout}. It must outlast the slowest view: a controller whose events lag behind
   * its own writes (a restore after a crash, a partition of {@code events} behind the others) and
   * that forgot them would decide again from a view missing them, as a Deployment creating a second
   * new ReplicaSet beside the one it does not see yet.
   */
  public static final Duration TIMEOUT = Duration.ofMinutes(5);

  /**
   * The most writes one key may have pending (kube-controller-manager's burstReplicas): a
   * ReplicaSet of 10,000 replicas, or a namespace of 200,000 objects being emptied, sends this many
   * and the rest as these are observed. Bounds the work of one reconcile and the size of the
   * expectations record, which must fit in one Kafka record.
   */
  public static final int MAX_PENDING = 500;

  private record Pending(CommandVerb verb, long resourceVersion, long sentAtMs) {}

  private final Map<String, Pending> pending = new LinkedHashMap<>();

  /** The target of an event or an intent, as expectations name it. */
  public static String target(String resource, String group, String namespace, String name) {
    return resource + "." + group + "/" + (namespace == null ? "" : namespace) + "/" + name;
  }

  public static Expectations decode(String encoded) {
    Expectations expectations = new Expectations();
    if (encoded == null || encoded.isEmpty()) {
      return expectations;
    }
    for (String line : encoded.split("\n")) {
      String[] parts = line.split("\\|", 4);
      if (parts.length == 4) {
        expectations.pending.put(
            parts[3],
            new Pending(
                CommandVerb.valueOf(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])));
      }
    }
    return expectations;
  }

  /** One line per pending write, or null when nothing is pending. */
  public String encode() {
    if (pending.isEmpty()) {
      return null;
    }
    StringBuilder lines = new StringBuilder();
    pending.forEach(
        (target, p) ->
            lines
                .append(p.verb())
                .append('|')
                .append(p.resourceVersion())
                .append('|')
                .append(p.sentAtMs())
                .append('|')
                .append(target)
                .append('\n'));
    return lines.toString();
  }

  /** Records that {@code intent} was sent at {@code nowMs}. */
  public void expect(Intent intent, long nowMs) {
    long version = -1;
    if (intent.object() != null) {
      String rv = KubeObjects.meta(intent.object()).getResourceVersion();
      version = rv == null || rv.isEmpty() ? -1 : Long.parseLong(rv);
    }
    pending.put(
        target(intent.resource(), intent.group(), intent.namespace(), intent.name()),
        new Pending(intent.verb(), version, nowMs));
  }

  /** Drops what {@code event} shows done. */
  public void observe(ResourceEvent event) {
    String target =
        target(event.getResource(), event.getGroup(), event.getNamespace(), event.getName());
    Pending p = pending.get(target);
    if (p == null) {
      return;
    }
    boolean gone =
        event.getType() == EventType.DELETED
            || KubeObjects.meta((SpecificRecord) KindObjects.of(event)).getDeletionTimestamp()
                != null;
    boolean done =
        switch (p.verb()) {
          case CREATE -> true;
          case DELETE -> gone;
          default -> gone || objectVersion(event) != p.resourceVersion();
        };
    if (done) {
      pending.remove(target);
    }
  }

  /**
   * The resourceVersion of the event's object, which an intent's object carries too; the event's
   * own {@code resourceVersion} is its command's offset, a different number.
   */
  private static long objectVersion(ResourceEvent event) {
    String rv = KubeObjects.meta((SpecificRecord) KindObjects.of(event)).getResourceVersion();
    return rv == null || rv.isEmpty() ? -1 : Long.parseLong(rv);
  }

  /** Forgets what was sent longer than {@link #TIMEOUT} before {@code nowMs}. */
  public void expire(long nowMs) {
    expire(nowMs, TIMEOUT);
  }

  /** Forgets what was sent longer than {@code timeout} before {@code nowMs}. */
  public void expire(long nowMs, Duration timeout) {
    pending.values().removeIf(p -> nowMs - p.sentAtMs() > timeout.toMillis());
  }

  public boolean pending(Intent intent) {
    return pending.containsKey(
        target(intent.resource(), intent.group(), intent.namespace(), intent.name()));
  }

  /** Whether a create or delete of {@code resource} is still pending (a ReplicaSet's pods). */
  public boolean creatingOrDeleting(String resource) {
    return pendingOf(resource, CommandVerb.CREATE) + pendingOf(resource, CommandVerb.DELETE) > 0;
  }

  /**
   * Whether a create or delete is pending of an object of {@code resource} in {@code namespace}
   * whose name starts with {@code namePrefix} (a DaemonSet's pods, where one key holds several
   * DaemonSets).
   */
  public boolean creatingOrDeleting(
      String resource, String group, String namespace, String namePrefix) {
    String prefix = target(resource, group, namespace, namePrefix);
    for (Map.Entry<String, Pending> e : pending.entrySet()) {
      CommandVerb verb = e.getValue().verb();
      if (e.getKey().startsWith(prefix)
          && (verb == CommandVerb.CREATE || verb == CommandVerb.DELETE)) {
        return true;
      }
    }
    return false;
  }

  /** How many creates of {@code resource} are pending (a ReplicaSet's pods not yet seen). */
  public int creating(String resource) {
    return pendingOf(resource, CommandVerb.CREATE);
  }

  private int pendingOf(String resource, CommandVerb verb) {
    String prefix = resource + ".";
    int count = 0;
    for (Map.Entry<String, Pending> e : pending.entrySet()) {
      if (e.getKey().startsWith(prefix) && e.getValue().verb() == verb) {
        count++;
      }
    }
    return count;
  }

  /** Whether any write other than to {@code exceptTarget} is pending. */
  public boolean anyPendingBut(String exceptTarget) {
    return pending.keySet().stream().anyMatch(t -> !Objects.equals(t, exceptTarget));
  }

  /** The earliest moment a pending write expires, or {@code Long.MAX_VALUE}. */
  public long nextExpiry() {
    return nextExpiry(TIMEOUT);
  }

  /**
   * The earliest moment a pending write expires after {@code timeout}, or {@code Long.MAX_VALUE}.
   */
  public long nextExpiry(Duration timeout) {
    return pending.values().stream()
        .mapToLong(p -> p.sentAtMs() + timeout.toMillis() + 1)
        .min()
        .orElse(Long.MAX_VALUE);
  }

  public boolean isEmpty() {
    return pending.isEmpty();
  }

  /** How many more writes may be sent before {@link #MAX_PENDING} are pending. */
  public int room() {
    return Math.max(0, MAX_PENDING - pending.size());
  }
}
