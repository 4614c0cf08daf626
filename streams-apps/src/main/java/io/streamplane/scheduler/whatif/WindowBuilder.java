package io.streamplane.scheduler.whatif;

import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.scheduler.whatif.WhatIfWindow.BoundPod;
import io.streamplane.scheduler.whatif.WhatIfWindow.PendingPod;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.objects.ResourceKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds a {@link WhatIfWindow} from {@code events} records, given in log order: the state of the
 * nodes and pods is folded up to {@code from} (inclusive), each later event up to {@code until}
 * (inclusive) becomes a {@link LogChange}, and later events are ignored.
 *
 * <p>A pod holds a place while it is bound ({@code spec.nodeName}) and neither deleted nor finished
 * (Succeeded, Failed), as the binder counts it. Only Node and Pod events matter; the others are
 * skipped.
 *
 * <p>Contract: record timestamps never decrease from one call to the next (the caller merges the
 * partitions by timestamp); an earlier one is refused, as the fold would be wrong.
 */
public final class WindowBuilder {

  private final long fromMs;
  private final long untilMs;
  private final Map<String, Node> nodes = new TreeMap<>();
  private final Map<String, Pod> pods = new LinkedHashMap<>();
  private final List<LogChange> changes = new ArrayList<>();
  private List<Node> startNodes;
  private List<BoundPod> startPods;
  private long lastMs = Long.MIN_VALUE;

  public WindowBuilder(Instant from, Instant until) {
    if (until.isBefore(from)) {
      throw new IllegalArgumentException(
          "the window ends (" + until + ") before it starts (" + from + ")");
    }
    this.fromMs = from.toEpochMilli();
    this.untilMs = until.toEpochMilli();
  }

  /** Adds the next record of the log. */
  public void add(long timestampMs, ResourceEvent event) {
    if (timestampMs < lastMs) {
      throw new IllegalArgumentException(
          "events out of order: " + timestampMs + " after " + lastMs);
    }
    lastMs = timestampMs;
    if (timestampMs > untilMs) {
      return;
    }
    boolean inWindow = timestampMs > fromMs;
    if (inWindow && startNodes == null) {
      snapshot();
    }
    // By resource, not by object: a DELETED event may come without the object.
    if (!event.getGroup().isEmpty()) {
      return;
    }
    if ("nodes".equals(event.getResource())) {
      node(event, KindObjects.of(event) instanceof Node node ? node : null, inWindow);
    } else if ("pods".equals(event.getResource())) {
      pod(event, KindObjects.of(event) instanceof Pod pod ? pod : null, inWindow);
    }
  }

  public WhatIfWindow build() {
    if (startNodes == null) {
      snapshot();
    }
    List<PendingPod> pending = new ArrayList<>();
    pods.forEach(
        (key, pod) -> {
          if (pending(pod)) {
            pending.add(new PendingPod(key, pod));
          }
        });
    return new WhatIfWindow(startNodes, startPods, changes, pending);
  }

  private void snapshot() {
    startNodes = List.copyOf(nodes.values());
    startPods = new ArrayList<>();
    pods.forEach(
        (key, pod) -> {
          String node = placeOf(pod);
          if (node != null) {
            startPods.add(new BoundPod(key, pod, node));
          }
        });
  }

  private void node(ResourceEvent event, Node node, boolean inWindow) {
    String name = event.getName();
    if (event.getType() == EventType.DELETED) {
      if (nodes.remove(name) != null && inWindow) {
        changes.add(new LogChange.NodeRemoved(name));
      }
    } else if (node != null) {
      nodes.put(name, node);
      if (inWindow) {
        changes.add(new LogChange.NodeSet(node));
      }
    }
  }

  private void pod(ResourceEvent event, Pod pod, boolean inWindow) {
    String key =
        new ResourceKey(
                event.getResource(), event.getGroup(), event.getNamespace(), event.getName())
            .toString();
    Pod before = pods.get(key);
    Pod after = event.getType() == EventType.DELETED ? null : pod;
    if (after == null && event.getType() != EventType.DELETED) {
      return;
    }
    if (after == null) {
      pods.remove(key);
    } else {
      pods.put(key, after);
    }
    if (!inWindow) {
      return;
    }
    String was = placeOf(before);
    String now = placeOf(after);
    if (was != null && !was.equals(now)) {
      changes.add(new LogChange.PodReleased(key));
    }
    if (now != null && !now.equals(was)) {
      boolean scheduled = before != null && pending(before);
      changes.add(new LogChange.PodBound(key, scheduled ? before : after, now, scheduled));
    }
  }

  /** The node the pod holds a place on, or null. */
  static String placeOf(Pod pod) {
    if (pod == null || pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
      return null;
    }
    return finished(pod) ? null : pod.getSpec().getNodeName();
  }

  /** Unbound, not being deleted, not finished. */
  static boolean pending(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getNodeName() == null
        && (pod.getMetadata() == null || pod.getMetadata().getDeletionTimestamp() == null)
        && !finished(pod);
  }

  private static boolean finished(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }
}
