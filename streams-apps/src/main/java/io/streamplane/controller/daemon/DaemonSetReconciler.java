package io.streamplane.controller.daemon;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.DaemonSetStatus;
import io.streamplane.api.Node;
import io.streamplane.api.Pod;
import io.streamplane.controller.ControllerEvents;
import io.streamplane.controller.ControllerRefManager;
import io.streamplane.controller.Intent;
import io.streamplane.controller.PodReadiness;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;

/**
 * Kubernetes' DaemonSet controller ({@code pkg/controller/daemon}, {@code syncDaemonSet}) as a pure
 * function of one DaemonSet, every node, the pods it controls and its ControllerRevisions:
 *
 * <ol>
 *   <li>its current revision ({@link DaemonSetHistory#construct});
 *   <li>{@code manage}: a pod on each node that should run one ({@link DaemonPods#fit}); the pods
 *       on nodes that should not keep running one deleted, and so are failed or succeeded pods, the
 *       pods beyond the oldest on a node (two, one old and one new, while surging), and the pods
 *       meant for a node that no longer exists (the pod garbage collector's job in Kubernetes);
 *   <li>when manage had nothing to do and the strategy is RollingUpdate, {@link RollingUpdate};
 *       OnDelete replaces a pod only once it is deleted by someone else;
 *   <li>the oldest revisions beyond the history limit deleted ({@link DaemonSetHistory#cleanup});
 *   <li>the status, written only when it changes: so a converged DaemonSet writes nothing.
 * </ol>
 *
 * <p>{@code manage} is false while pod creates or deletes sent earlier have not been observed (the
 * caller's expectations): then only the revision and the status are decided, and the status keeps
 * its observedGeneration, as in Kubernetes. At most {@code burst} pods are created per decision.
 *
 * <p>Pods and revisions the DaemonSet controls whose labels it no longer selects are released
 * ({@link ControllerRefManager#claim}) before anything else; orphans are adopted by the namespace's
 * index ({@code NamespaceControllers}).
 *
 * <p>Limits: a failed pod is deleted at once, without Kubernetes' back-off and FailedDaemonPod
 * event; no Events are recorded.
 */
public final class DaemonSetReconciler {

  /** kube-controller-manager's burstReplicas of the DaemonSet controller. */
  static final int BURST = 250;

  private DaemonSetReconciler() {}

  /** The writes for one DaemonSet and the next moment only time changes them (or null). */
  public record Decision(List<Intent> intents, Instant requeueAt) {}

  public static Decision reconcile(
      DaemonSet ds,
      SortedMap<String, Node> nodes,
      List<Pod> controlledPods,
      List<ControllerRevision> controlledRevisions,
      boolean manage,
      int burst,
      Instant now) {
    List<Intent> intents = new ArrayList<>();
    if (ds.getMetadata().getDeletionTimestamp() != null
        || ds.getSpec() == null
        || ds.getSpec().getTemplate() == null
        || ds.getSpec().getTemplate().getSpec() == null) {
      return new Decision(intents, null);
    }
    ControllerRefManager.Claimed<Pod> claimedPods =
        ControllerRefManager.claim(ds.getMetadata(), controlledPods, pod -> selects(ds, pod));
    ControllerRefManager.Claimed<ControllerRevision> claimedRevisions =
        ControllerRefManager.claim(ds.getMetadata(), controlledRevisions, rev -> selects(ds, rev));
    List<Pod> pods = claimedPods.kept();
    List<ControllerRevision> revisions = claimedRevisions.kept();
    intents.addAll(claimedPods.releases());
    intents.addAll(claimedRevisions.releases());
    String hash = DaemonSetHistory.hash(ds);
    intents.addAll(DaemonSetHistory.construct(ds, hash, revisions));
    SortedMap<String, List<Pod>> nodeToPods = nodeToPods(pods);
    if (manage) {
      // New pods' names avoid those of the pods released here too, which keep theirs.
      List<Intent> managed = manage(ds, nodes, nodeToPods, controlledPods, hash, burst);
      intents.addAll(managed);
      if (managed.isEmpty() && "RollingUpdate".equals(strategy(ds))) {
        RollingUpdate.Plan plan = RollingUpdate.plan(ds, nodes, copy(nodeToPods), hash, now);
        plan.delete().forEach(p -> intents.add(Intent.delete("pods", "", p, null)));
        intents.addAll(creates(ds, plan.create(), controlledPods, hash, burst));
      }
      intents.addAll(DaemonSetHistory.cleanup(ds, hash, revisions, pods));
    }
    DaemonSetStatus status = status(ds, nodes, nodeToPods, hash, manage, now);
    if (!KubeObjects.same(status, ds.getStatus())) {
      DaemonSet updated = KubeObjects.copy(ds);
      updated.setStatus(status);
      intents.add(Intent.updateStatus("daemonsets", "apps", updated));
    }
    intents.addAll(
        ControllerEvents.about(
                "DaemonSet", "apps/v1", ds.getMetadata(), "daemonset-controller", now)
            .forWrites(
                intents, "pods", pod -> "Created pod: " + pod, pod -> "Deleted pod: " + pod));
    return new Decision(intents, nextAvailable(ds, pods, now));
  }

  /**
   * Whether the DaemonSet's selector selects a pod or a ControllerRevision: what it adopts, and
   * what it releases once it no longer does.
   */
  public static boolean selects(DaemonSet ds, SpecificRecord object) {
    Map<String, String> labels = KubeObjects.meta(object).getLabels();
    return ds.getSpec() != null
        && ds.getSpec().getSelector() != null
        && LabelSelectors.matches(ds.getSpec().getSelector(), labels == null ? Map.of() : labels);
  }

  private static String strategy(DaemonSet ds) {
    return ds.getSpec().getUpdateStrategy() == null
        ? "RollingUpdate"
        : ds.getSpec().getUpdateStrategy().getType();
  }

  static int minReadySeconds(DaemonSet ds) {
    Integer min = ds.getSpec().getMinReadySeconds();
    return min == null ? 0 : min;
  }

  /**
   * {@code getNodesToDaemonPods}: the pods by the node they run on or are meant for, leaving out
   * finished pods being deleted.
   */
  static SortedMap<String, List<Pod>> nodeToPods(List<Pod> pods) {
    SortedMap<String, List<Pod>> byNode = new TreeMap<>();
    for (Pod pod : pods) {
      String phase = DaemonPods.phase(pod);
      boolean terminal = "Succeeded".equals(phase) || "Failed".equals(phase);
      if (terminal && DaemonPods.deleting(pod)) {
        continue;
      }
      String node = DaemonPods.targetNode(pod);
      if (node != null) {
        byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(pod);
      }
    }
    byNode.values().forEach(list -> list.sort(DaemonPods.OLDEST_FIRST));
    return byNode;
  }

  private static SortedMap<String, List<Pod>> copy(SortedMap<String, List<Pod>> nodeToPods) {
    SortedMap<String, List<Pod>> copy = new TreeMap<>();
    nodeToPods.forEach((node, pods) -> copy.put(node, new ArrayList<>(pods)));
    return copy;
  }

  /** {@code manage} and {@code podsShouldBeOnNode}, for every node and every pod's node. */
  private static List<Intent> manage(
      DaemonSet ds,
      SortedMap<String, Node> nodes,
      SortedMap<String, List<Pod>> nodeToPods,
      List<Pod> pods,
      String hash,
      int burst) {
    boolean surge = allowsSurge(ds);
    List<String> create = new ArrayList<>();
    List<Pod> delete = new ArrayList<>();
    for (Node node : nodes.values()) {
      String name = node.getMetadata().getName();
      List<Pod> onNode = nodeToPods.getOrDefault(name, List.of());
      DaemonPods.Fit fit = DaemonPods.fit(ds, node);
      if (fit.shouldRun() && onNode.isEmpty()) {
        create.add(name);
      } else if (fit.shouldContinueRunning()) {
        List<Pod> running = new ArrayList<>();
        for (Pod pod : onNode) {
          if (DaemonPods.deleting(pod)) {
            continue;
          }
          String phase = DaemonPods.phase(pod);
          if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
            delete.add(pod);
          } else {
            running.add(pod);
          }
        }
        if (!surge) {
          delete.addAll(running.subList(Math.min(1, running.size()), running.size()));
        } else if (running.isEmpty()) {
          if (fit.shouldRun()) {
            create.add(name);
          }
        } else if (running.size() > 1) {
          delete.addAll(surplusWhileSurging(running, hash));
        }
      } else {
        onNode.stream().filter(p -> !DaemonPods.deleting(p)).forEach(delete::add);
      }
    }
    for (Map.Entry<String, List<Pod>> entry : nodeToPods.entrySet()) {
      if (!nodes.containsKey(entry.getKey())) {
        entry.getValue().stream().filter(p -> !DaemonPods.deleting(p)).forEach(delete::add);
      }
    }
    List<Intent> intents = new ArrayList<>();
    delete.forEach(p -> intents.add(Intent.delete("pods", "", p, null)));
    intents.addAll(creates(ds, create, pods, hash, burst));
    return intents;
  }

  /**
   * While surging a node may keep the oldest new pod and the oldest old pod only while the new one
   * is not Ready and the old one is; every other pod goes.
   */
  private static List<Pod> surplusWhileSurging(List<Pod> running, String hash) {
    List<Pod> delete = new ArrayList<>();
    Pod oldestNew = null;
    Pod oldestOld = null;
    for (Pod pod : running) {
      if (hash.equals(DaemonPods.hash(pod))) {
        if (oldestNew == null) {
          oldestNew = pod;
          continue;
        }
      } else if (oldestOld == null) {
        oldestOld = pod;
        continue;
      }
      delete.add(pod);
    }
    if (oldestNew != null
        && oldestOld != null
        && (!PodReadiness.isReady(oldestOld) || PodReadiness.isReady(oldestNew))) {
      delete.add(oldestOld);
    }
    return delete;
  }

  private static boolean allowsSurge(DaemonSet ds) {
    var strategy = ds.getSpec().getUpdateStrategy();
    return strategy != null
        && "RollingUpdate".equals(strategy.getType())
        && strategy.getRollingUpdate() != null
        && RollingUpdate.scaled(strategy.getRollingUpdate().getMaxSurge(), 1) > 0;
  }

  private static List<Intent> creates(
      DaemonSet ds, List<String> nodes, List<Pod> named, String hash, int burst) {
    Set<String> taken = new HashSet<>();
    named.forEach(p -> taken.add(p.getMetadata().getName()));
    List<Intent> intents = new ArrayList<>();
    for (String node : nodes.subList(0, Math.min(nodes.size(), Math.min(burst, BURST)))) {
      String name = DaemonPods.podName(ds, node, taken);
      intents.add(Intent.create("pods", "", DaemonPods.newPod(ds, node, hash, name)));
    }
    return intents;
  }

  /** {@code updateDaemonSetStatus}. */
  static DaemonSetStatus status(
      DaemonSet ds,
      SortedMap<String, Node> nodes,
      SortedMap<String, List<Pod>> nodeToPods,
      String hash,
      boolean observed,
      Instant now) {
    int desired = 0;
    int current = 0;
    int misscheduled = 0;
    int ready = 0;
    int available = 0;
    int updated = 0;
    int minReady = minReadySeconds(ds);
    for (Node node : nodes.values()) {
      List<Pod> onNode = nodeToPods.getOrDefault(node.getMetadata().getName(), List.of());
      boolean scheduled = !onNode.isEmpty();
      if (!DaemonPods.fit(ds, node).shouldRun()) {
        if (scheduled) {
          misscheduled++;
        }
        continue;
      }
      desired++;
      if (!scheduled) {
        continue;
      }
      current++;
      Pod pod = onNode.get(0);
      if (PodReadiness.isReady(pod)) {
        ready++;
        if (DaemonPods.available(pod, minReady, now)) {
          available++;
        }
      }
      if (hash.equals(DaemonPods.hash(pod))) {
        updated++;
      }
    }
    DaemonSetStatus.Builder status =
        ds.getStatus() == null
            ? DaemonSetStatus.newBuilder()
            : DaemonSetStatus.newBuilder(ds.getStatus());
    status
        .setDesiredNumberScheduled(desired)
        .setCurrentNumberScheduled(current)
        .setNumberMisscheduled(misscheduled)
        .setNumberReady(ready)
        .setNumberAvailable(orNull(available))
        .setUpdatedNumberScheduled(orNull(updated))
        .setNumberUnavailable(orNull(desired - available));
    if (observed) {
      status.setObservedGeneration(ds.getMetadata().getGeneration());
    }
    return status.build();
  }

  /** Zero as Kubernetes writes an omitempty int32: left out. */
  private static Integer orNull(int value) {
    return value == 0 ? null : value;
  }

  /** The next moment one of the pods becomes available by the passing of time alone, or null. */
  static Instant nextAvailable(DaemonSet ds, List<Pod> pods, Instant now) {
    int minReady = minReadySeconds(ds);
    if (minReady <= 0) {
      return null;
    }
    Instant next = null;
    for (Pod pod : pods) {
      Instant since = PodReadiness.readySince(pod);
      if (since != null && !DaemonPods.deleting(pod)) {
        Instant at = since.plusSeconds(minReady);
        if (at.isAfter(now) && (next == null || at.isBefore(next))) {
          next = at;
        }
      }
    }
    return next;
  }
}
