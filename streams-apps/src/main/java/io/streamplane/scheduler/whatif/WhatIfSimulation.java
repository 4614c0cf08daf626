package io.streamplane.scheduler.whatif;

import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.scheduler.framework.NodeInfo;
import io.streamplane.scheduler.framework.PodRequests;
import io.streamplane.scheduler.framework.Resources;
import io.streamplane.scheduler.framework.ScheduleResult;
import io.streamplane.scheduler.framework.Scheduler;
import io.streamplane.scheduler.framework.SchedulerConfig;
import io.streamplane.scheduler.whatif.WhatIfResult.Attempt;
import io.streamplane.scheduler.whatif.WhatIfResult.NodeUsage;
import io.streamplane.scheduler.whatif.WhatIfResult.Placement;
import io.streamplane.scheduler.whatif.WhatIfWindow.BoundPod;
import io.streamplane.scheduler.whatif.WhatIfWindow.PendingPod;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Replays a {@link WhatIfWindow} through a scheduler built from a {@link SchedulerConfig}: the same
 * {@link Scheduler#schedule} the live scheduler runs, over a simulated cluster that evolves with
 * the what-if's own decisions.
 *
 * <p>Two states are kept side by side from the window's start, where they are equal: the real one
 * (every pod where the log says it went) and the what-if one. For each change, in log order: a node
 * added, changed or removed changes both; a pod a scheduler of the profile placed is recorded at
 * its real node and scheduled anew over the what-if state; a pod bound by hand or for another
 * scheduler name goes where it really went in both; a pod deleted or finished frees its place in
 * both. A pod the what-if cannot place waits, as in a scheduling queue, and is tried again as soon
 * as a place frees or a node changes where it could fit (the only nodes where the answer can
 * change); it counts as unschedulable if it is never placed before it goes away or the window ends.
 * At the end, the pods still pending in reality are tried once over the what-if state.
 *
 * <p>Determinism: nodes are considered in name order, and each decision's seed (start offset and
 * tie-break, see {@link Scheduler}) is a hash of the pod key and the attempt number, so the same
 * window and configuration always give an equal {@link WhatIfResult}.
 *
 * <p>Not modelled: time (a what-if decision happens at the log position of the real binding, not
 * when the pod was created; there is no backoff), preemption, the binder's race with other
 * schedulers, and pods of a removed node (they keep their place until the log releases them, as the
 * garbage collector's deletions come later in the log).
 */
public final class WhatIfSimulation {

  private final SchedulerConfig config;
  private final List<NodeInfo> view = new ArrayList<>();
  private final Map<String, Integer> index = new HashMap<>();
  private final Map<String, PodRequests> realSums = new HashMap<>();
  private final Map<String, PodRequests> whatIfSums = new HashMap<>();
  private final Map<String, Place> realPods = new HashMap<>();
  private final Map<String, Place> whatIfPods = new HashMap<>();
  private final Map<String, Waiting> waiting = new LinkedHashMap<>();
  private final List<Placement> placements = new ArrayList<>();
  private int boundWithoutScheduler;
  private long decisions;

  private record Place(String node, PodRequests requests) {}

  private record Waiting(Pod pod, PodRequests requests, int placement, int attempts) {}

  private WhatIfSimulation(SchedulerConfig config) {
    this.config = config;
  }

  public static WhatIfResult run(WhatIfWindow window, SchedulerConfig config) {
    return new WhatIfSimulation(config).replay(window);
  }

  private WhatIfResult replay(WhatIfWindow window) {
    TreeMap<String, Node> byName = new TreeMap<>();
    for (Node node : window.nodes()) {
      byName.put(node.getMetadata().getName(), node);
    }
    byName.values().forEach(node -> view.add(NodeInfo.of(node)));
    reindex();
    for (BoundPod pod : window.boundPods()) {
      PodRequests requests = PodRequests.of(pod.pod());
      place(realPods, realSums, pod.podKey(), pod.node(), requests, false);
      place(whatIfPods, whatIfSums, pod.podKey(), pod.node(), requests, true);
    }
    for (LogChange change : window.changes()) {
      apply(change);
    }
    List<NodeUsage> nodes = new ArrayList<>(view.size());
    for (NodeInfo node : view) {
      nodes.add(
          new NodeUsage(
              node.name(),
              node.allocatable(),
              realSums.getOrDefault(node.name(), PodRequests.NONE).requests(),
              node.requested()));
    }
    List<Attempt> pending = new ArrayList<>();
    for (PendingPod pod : window.pendingAtEnd()) {
      if (!config.responsibleFor(pod.pod())) {
        continue;
      }
      ScheduleResult result = schedule(pod.podKey(), pod.pod(), 0);
      if (result.scheduled()) {
        place(whatIfPods, whatIfSums, pod.podKey(), result.nodeName(), result.requests(), true);
      }
      pending.add(new Attempt(pod.podKey(), result.nodeName(), result.failureMessage()));
    }
    return new WhatIfResult(placements, boundWithoutScheduler, pending, nodes, decisions);
  }

  private void apply(LogChange change) {
    if (change instanceof LogChange.NodeSet set) {
      nodeSet(set.node());
    } else if (change instanceof LogChange.NodeRemoved removed) {
      Integer i = index.get(removed.name());
      if (i != null) {
        view.remove((int) i);
        reindex();
      }
    } else if (change instanceof LogChange.PodBound bound) {
      bound(bound);
    } else if (change instanceof LogChange.PodReleased released) {
      released(released.podKey());
    }
  }

  private void nodeSet(Node node) {
    String name = node.getMetadata().getName();
    Integer i = index.get(name);
    if (i == null) {
      view.add(NodeInfo.of(node, whatIfSums.getOrDefault(name, PodRequests.NONE)));
      view.sort((a, b) -> a.name().compareTo(b.name()));
      reindex();
    } else {
      NodeInfo old = view.get(i);
      view.set(
          i,
          new NodeInfo(
              node, Resources.allocatableOf(node), old.requested(), old.nonZeroRequested()));
    }
    retryWaiting(name);
  }

  private void bound(LogChange.PodBound bound) {
    PodRequests requests = PodRequests.of(bound.pod());
    place(realPods, realSums, bound.podKey(), bound.node(), requests, false);
    if (!bound.scheduled() || !config.responsibleFor(bound.pod())) {
      boundWithoutScheduler++;
      place(whatIfPods, whatIfSums, bound.podKey(), bound.node(), requests, true);
      return;
    }
    ScheduleResult result = schedule(bound.podKey(), bound.pod(), 0);
    placements.add(
        new Placement(bound.podKey(), bound.node(), result.nodeName(), result.failureMessage()));
    if (result.scheduled()) {
      place(whatIfPods, whatIfSums, bound.podKey(), result.nodeName(), result.requests(), true);
    } else {
      waiting.put(
          bound.podKey(), new Waiting(bound.pod(), result.requests(), placements.size() - 1, 1));
    }
  }

  private void released(String podKey) {
    Place real = realPods.remove(podKey);
    if (real != null) {
      realSums.merge(real.node(), real.requests(), WhatIfSimulation::minus);
    }
    waiting.remove(podKey);
    Place whatIf = whatIfPods.remove(podKey);
    if (whatIf != null) {
      whatIfSums.merge(whatIf.node(), whatIf.requests(), WhatIfSimulation::minus);
      Integer i = index.get(whatIf.node());
      if (i != null) {
        view.set(i, view.get(i).withoutPod(whatIf.requests()));
        retryWaiting(whatIf.node());
      }
    }
  }

  /** Tries again, in the order they came, the waiting pods that now fit on {@code node}. */
  private void retryWaiting(String node) {
    Iterator<Map.Entry<String, Waiting>> it = waiting.entrySet().iterator();
    while (it.hasNext()) {
      Integer i = index.get(node);
      if (i == null) {
        return;
      }
      NodeInfo changed = view.get(i);
      Map.Entry<String, Waiting> entry = it.next();
      Waiting w = entry.getValue();
      if (!w.requests().requests().fitsIn(changed.allocatable().minus(changed.requested()))) {
        continue;
      }
      ScheduleResult result = schedule(entry.getKey(), w.pod(), w.attempts());
      if (result.scheduled()) {
        it.remove();
        Placement first = placements.get(w.placement());
        placements.set(
            w.placement(),
            new Placement(first.podKey(), first.realNode(), result.nodeName(), null));
        place(whatIfPods, whatIfSums, entry.getKey(), result.nodeName(), result.requests(), true);
      } else {
        entry.setValue(new Waiting(w.pod(), w.requests(), w.placement(), w.attempts() + 1));
      }
    }
  }

  private ScheduleResult schedule(String podKey, Pod pod, int attempt) {
    decisions++;
    return Scheduler.schedule(pod, view, config, seed(podKey, attempt));
  }

  private void place(
      Map<String, Place> pods,
      Map<String, PodRequests> sums,
      String podKey,
      String node,
      PodRequests requests,
      boolean inView) {
    Place old = pods.put(podKey, new Place(node, requests));
    if (old != null) {
      sums.merge(old.node(), old.requests(), WhatIfSimulation::minus);
    }
    sums.merge(node, requests, PodRequests::plus);
    if (inView) {
      if (old != null && index.containsKey(old.node())) {
        int o = index.get(old.node());
        view.set(o, view.get(o).withoutPod(old.requests()));
      }
      Integer i = index.get(node);
      if (i != null) {
        view.set(i, view.get(i).withPod(requests));
      }
    }
  }

  private void reindex() {
    index.clear();
    for (int i = 0; i < view.size(); i++) {
      index.put(view.get(i).name(), i);
    }
  }

  private static PodRequests minus(PodRequests sum, PodRequests pod) {
    return new PodRequests(
        sum.requests().minus(pod.requests()), sum.nonZeroRequests().minus(pod.nonZeroRequests()));
  }

  /** FNV-1a of the pod key, mixed with the attempt: stable across runs and JVMs. */
  static long seed(String podKey, int attempt) {
    long h = 0xcbf29ce484222325L;
    for (byte b : podKey.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h ^ (attempt * 0x9e3779b97f4a7c15L);
  }
}
