package io.streamplane.controller.daemon;

import io.streamplane.api.DaemonSet;
import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.api.RollingUpdateDaemonSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Kubernetes' DaemonSet {@code rollingUpdate} ({@code pkg/controller/daemon/update.go}) as a pure
 * function: which old pods to delete and on which nodes to create a new pod ahead of the old one,
 * so that at most {@code maxUnavailable} nodes lack an available pod (maxSurge 0: an old pod is
 * deleted, its replacement created once it is gone) or at most {@code maxSurge} nodes run two pods
 * (a new pod is created next to the old one, which is deleted once the new one is available).
 *
 * <p>Both are scaled against the number of nodes that should run the pod, rounded up; both 0 counts
 * as maxUnavailable 1, as in Kubernetes. Nodes are taken in name order where Kubernetes takes them
 * in map order.
 */
final class RollingUpdate {

  private RollingUpdate() {}

  /** The pods to delete and the nodes to create a pod on. */
  record Plan(List<Pod> delete, List<String> create) {}

  /** A node's pods split into the one running the current template and the one running an old. */
  private record OnNode(Pod newPod, Pod oldPod, boolean ok) {}

  static Plan plan(
      DaemonSet ds,
      SortedMap<String, Node> nodes,
      SortedMap<String, List<Pod>> nodeToPods,
      String hash,
      Instant now) {
    int desired = 0;
    for (Node node : nodes.values()) {
      if (DaemonPods.fit(ds, node).shouldRun()) {
        desired++;
        nodeToPods.putIfAbsent(node.getMetadata().getName(), List.of());
      }
    }
    RollingUpdateDaemonSet rolling =
        ds.getSpec().getUpdateStrategy() == null
            ? null
            : ds.getSpec().getUpdateStrategy().getRollingUpdate();
    int maxUnavailable = scaled(rolling == null ? null : rolling.getMaxUnavailable(), desired);
    int maxSurge = scaled(rolling == null ? null : rolling.getMaxSurge(), desired);
    if (desired > 0 && maxUnavailable == 0 && maxSurge == 0) {
      maxUnavailable = 1;
    }
    int minReady = DaemonSetReconciler.minReadySeconds(ds);
    return maxSurge == 0
        ? withoutSurge(nodeToPods, hash, maxUnavailable, minReady, now)
        : withSurge(ds, nodes, nodeToPods, hash, maxSurge, desired, minReady, now);
  }

  private static Plan withoutSurge(
      SortedMap<String, List<Pod>> nodeToPods,
      String hash,
      int maxUnavailable,
      int minReady,
      Instant now) {
    int unavailable = 0;
    List<Pod> replaceable = new ArrayList<>();
    List<Pod> candidates = new ArrayList<>();
    for (List<Pod> pods : nodeToPods.values()) {
      OnNode on = onNode(pods, hash);
      if (!on.ok() || (on.newPod() == null) == (on.oldPod() == null)) {
        // The manage loop settles a node with no pod, two pods or excess pods: unavailable.
        unavailable++;
      } else if (on.newPod() != null) {
        if (!DaemonPods.available(on.newPod(), minReady, now)) {
          unavailable++;
        }
      } else if (!DaemonPods.available(on.oldPod(), minReady, now)) {
        replaceable.add(on.oldPod());
      } else if (unavailable < maxUnavailable) {
        candidates.add(on.oldPod());
      }
    }
    int remaining = Math.max(0, Math.min(maxUnavailable - unavailable, candidates.size()));
    List<Pod> delete = new ArrayList<>(replaceable);
    delete.addAll(candidates.subList(0, remaining));
    return new Plan(delete, List.of());
  }

  private static Plan withSurge(
      DaemonSet ds,
      SortedMap<String, Node> nodes,
      SortedMap<String, List<Pod>> nodeToPods,
      String hash,
      int maxSurge,
      int desired,
      int minReady,
      Instant now) {
    List<Pod> delete = new ArrayList<>();
    List<Pod> shouldNotRun = new ArrayList<>();
    List<String> allowed = new ArrayList<>();
    List<String> candidates = new ArrayList<>();
    int surging = 0;
    int available = 0;
    for (Map.Entry<String, List<Pod>> entry : nodeToPods.entrySet()) {
      String nodeName = entry.getKey();
      OnNode on = onNode(entry.getValue(), hash);
      if (!on.ok()) {
        surging++;
        continue;
      }
      Pod counted = on.oldPod() != null ? on.oldPod() : on.newPod();
      if (counted != null && DaemonPods.available(counted, minReady, now)) {
        available++;
      }
      Node node = nodes.get(nodeName);
      boolean shouldRun = node != null && DaemonPods.fit(ds, node).shouldRun();
      if (on.oldPod() == null) {
        continue;
      }
      if (on.newPod() == null) {
        if (!DaemonPods.available(on.oldPod(), minReady, now)) {
          if (!shouldRun) {
            delete.add(on.oldPod());
          } else {
            allowed.add(nodeName);
          }
        } else if (!shouldRun) {
          shouldNotRun.add(on.oldPod());
        } else if (surging < maxSurge) {
          candidates.add(nodeName);
        }
      } else if (!DaemonPods.available(on.newPod(), minReady, now)) {
        surging++;
      } else {
        delete.add(on.oldPod());
      }
    }
    // With a surge the owner expects full availability: a pod on a node that should no longer run
    // it goes only once another node has an available pod in its stead.
    int deletable = Math.min(available - desired, shouldNotRun.size());
    if (deletable > 0) {
      delete.addAll(shouldNotRun.subList(0, deletable));
    }
    int remaining = Math.max(0, Math.min(maxSurge - surging, candidates.size()));
    List<String> create = new ArrayList<>(allowed);
    create.addAll(candidates.subList(0, remaining));
    return new Plan(delete, create);
  }

  /** {@code findUpdatedPodsOnNode}: not ok when more than one new or old pod is there. */
  private static OnNode onNode(List<Pod> pods, String hash) {
    Pod newPod = null;
    Pod oldPod = null;
    for (Pod pod : pods) {
      if (DaemonPods.deleting(pod)) {
        continue;
      }
      if (hash.equals(DaemonPods.hash(pod))) {
        if (newPod != null) {
          return new OnNode(null, null, false);
        }
        newPod = pod;
      } else {
        if (oldPod != null) {
          return new OnNode(null, null, false);
        }
        oldPod = pod;
      }
    }
    return new OnNode(newPod, oldPod, true);
  }

  /** {@code GetScaledValueFromIntOrPercent} rounding up; null counts as 0. */
  static int scaled(Object intOrPercent, int total) {
    if (intOrPercent == null) {
      return 0;
    }
    if (intOrPercent instanceof Integer i) {
      return i;
    }
    String s = intOrPercent.toString();
    if (s.endsWith("%")) {
      try {
        int percent = Integer.parseInt(s.substring(0, s.length() - 1));
        return (int) Math.ceil(percent * (double) total / 100.0);
      } catch (NumberFormatException e) {
        return 0;
      }
    }
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
