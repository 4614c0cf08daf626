package io.streamplane.scheduler.queue;

import io.streamplane.scheduler.framework.NodeInfo;
import io.streamplane.scheduler.framework.PodRequests;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's assumed pods, for one scheduler instance: the pods it has proposed to a binder
 * that its view of the nodes (the binder's {@code node-usage}, read at most every {@link
 * SchedulingQueue#VIEW_REFRESH}) may not show yet. Every queue task of the instance shares one, so
 * a burst of replicas spread over several pod partitions still sees each placement.
 *
 * <p>Contract: a view built at time {@code T} gets an assumed pod added to its node ({@link
 * #applyTo}) unless the pod's bound event had been received before {@code T}: the binder writes the
 * grant to {@code node-usage} in the same transaction as the BIND command, so by the time the bound
 * pod comes back the grant is in the log, and a view built afterwards counts it. A pod is forgotten
 * when the binder rejects it, when it is deleted or finishes, once bound for longer than any view
 * in use can be old (twice {@link SchedulingQueue#VIEW_REFRESH}), and, never bound, when the queue
 * would propose it again ({@link SchedulingQueue#bindWait}).
 *
 * <p>Limits: between the moment the grant reaches a view and the moment the bound event arrives (a
 * few tens of milliseconds) the pod is counted twice: scores are slightly off, and on a nearly full
 * node the scheduler may find no room that is there (the pod is retried). The binder, not this,
 * guarantees that no node is over-committed. Thread-safe.
 */
public final class AssumedPods {

  private record Assumed(String node, PodRequests requests, long expiresAt, long boundAt) {}

  private static final long UNBOUND = Long.MAX_VALUE;

  private final Map<String, Assumed> pods = new HashMap<>();

  /**
   * {@code podKey} was proposed for {@code node}, to be forgotten at {@code expiresAtMs} unless
   * bound by then (replaces an earlier proposal).
   */
  public synchronized void assume(
      String podKey, String node, PodRequests requests, long expiresAtMs) {
    pods.put(podKey, new Assumed(node, requests, expiresAtMs, UNBOUND));
  }

  /** The pod's event shows it bound: views built from now on count it themselves. */
  public synchronized void bound(String podKey, long nowMs) {
    pods.computeIfPresent(
        podKey,
        (key, a) -> a.boundAt == UNBOUND ? new Assumed(a.node, a.requests, a.expiresAt, nowMs) : a);
  }

  /** The binder of {@code node} refused it (an answer to an older proposal changes nothing). */
  public synchronized void rejected(String podKey, String node) {
    pods.computeIfPresent(podKey, (key, a) -> a.node.equals(node) ? null : a);
  }

  /** Deleted or finished: it takes no place. */
  public synchronized void forget(String podKey) {
    pods.remove(podKey);
  }

  /** Whether {@code podKey} was proposed and is neither answered, bound nor expired yet. */
  public synchronized boolean proposed(String podKey) {
    Assumed a = pods.get(podKey);
    return a != null && a.boundAt == UNBOUND;
  }

  /**
   * {@code view} (built at {@code viewBuiltAt}) with the assumed pods it cannot show yet added to
   * their nodes; drops the pods no view in use can still need. Returns a new list; {@code view} is
   * not modified.
   */
  public synchronized List<NodeInfo> applyTo(List<NodeInfo> view, long viewBuiltAt, long nowMs) {
    pods.values()
        .removeIf(
            a ->
                a.boundAt == UNBOUND
                    ? nowMs > a.expiresAt
                    : nowMs - a.boundAt > 2 * SchedulingQueue.VIEW_REFRESH.toMillis());
    Map<String, PodRequests> extra = new HashMap<>();
    for (Assumed a : pods.values()) {
      if (a.boundAt >= viewBuiltAt) {
        extra.merge(a.node, a.requests, PodRequests::plus);
      }
    }
    List<NodeInfo> adjusted = new ArrayList<>(view);
    if (extra.isEmpty()) {
      return adjusted;
    }
    for (int i = 0; i < adjusted.size(); i++) {
      PodRequests more = extra.get(adjusted.get(i).name());
      if (more != null) {
        adjusted.set(i, adjusted.get(i).withPod(more));
      }
    }
    return adjusted;
  }
}
