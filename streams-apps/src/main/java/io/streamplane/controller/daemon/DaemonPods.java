package io.streamplane.controller.daemon;

import io.streamplane.api.Affinity;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.Node;
import io.streamplane.api.NodeAffinity;
import io.streamplane.api.NodeSelector;
import io.streamplane.api.NodeSelectorRequirement;
import io.streamplane.api.NodeSelectorTerm;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.api.Taint;
import io.streamplane.api.Toleration;
import io.streamplane.controller.Owners;
import io.streamplane.controller.PodReadiness;
import io.streamplane.controller.history.ControllerHistory;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.scheduler.framework.NodeAffinityPlugin;
import io.streamplane.scheduler.framework.TaintTolerationPlugin;
import io.streamplane.schema.objects.KubeObjects;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * What the DaemonSet controller knows of its pods (Kubernetes' {@code pkg/controller/daemon/util}
 * and the predicates of {@code daemon_controller.go}): the pod it makes for a node — the template
 * with the {@code controller-revision-hash} label, the DaemonSet's default tolerations, and a
 * required node affinity on {@code metadata.name} that pins it to the node through the scheduler —,
 * whether a node should run one ({@link #fit}), the node a pod is meant for, and readiness.
 *
 * <p>Pure functions over immutable inputs.
 */
public final class DaemonPods {

  /** The label that carries a pod's (and a ControllerRevision's) template hash. */
  public static final String REVISION_HASH = ControllerHistory.REVISION_HASH;

  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private DaemonPods() {}

  /** The tolerations every DaemonSet pod gets ({@code AddOrUpdateDaemonPodTolerations}). */
  static List<Toleration> defaultTolerations(boolean hostNetwork) {
    List<Toleration> tolerations = new ArrayList<>();
    tolerations.add(exists("node.kubernetes.io/not-ready", "NoExecute"));
    tolerations.add(exists("node.kubernetes.io/unreachable", "NoExecute"));
    tolerations.add(exists("node.kubernetes.io/disk-pressure", "NoSchedule"));
    tolerations.add(exists("node.kubernetes.io/memory-pressure", "NoSchedule"));
    tolerations.add(exists("node.kubernetes.io/pid-pressure", "NoSchedule"));
    tolerations.add(exists("node.kubernetes.io/unschedulable", "NoSchedule"));
    if (hostNetwork) {
      tolerations.add(exists("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    return tolerations;
  }

  private static Toleration exists(String key, String effect) {
    return Toleration.newBuilder().setKey(key).setOperator("Exists").setEffect(effect).build();
  }

  /**
   * The tolerations of {@code spec} with the default ones added, as {@code
   * AddOrUpdateTolerationInPodSpec} adds them: a toleration of the same key, operator, value and
   * effect is replaced, any other kept.
   */
  static List<Toleration> withDefaultTolerations(PodSpec spec) {
    List<Toleration> tolerations =
        spec.getTolerations() == null ? new ArrayList<>() : new ArrayList<>(spec.getTolerations());
    for (Toleration added : defaultTolerations(Boolean.TRUE.equals(spec.getHostNetwork()))) {
      boolean present = false;
      for (int i = 0; i < tolerations.size(); i++) {
        Toleration t = tolerations.get(i);
        if (Objects.equals(t.getKey(), added.getKey())
            && Objects.equals(t.getEffect(), added.getEffect())
            && Objects.equals(t.getOperator(), added.getOperator())
            && Objects.equals(t.getValue(), added.getValue())) {
          tolerations.set(i, added);
          present = true;
        }
      }
      if (!present) {
        tolerations.add(added);
      }
    }
    return tolerations;
  }

  /** Whether a node should run the DaemonSet's pod, and whether one there may keep running. */
  public record Fit(boolean shouldRun, boolean shouldContinueRunning) {}

  /**
   * {@code NodeShouldRunDaemonPod}: the template's {@code nodeName}, {@code nodeSelector} and
   * required node affinity must select the node; a NoSchedule or NoExecute taint the pod (with the
   * default tolerations) does not tolerate keeps a new pod off it, and only an untolerated
   * NoExecute taint removes a pod already there.
   */
  public static Fit fit(DaemonSet ds, Node node) {
    PodSpec template = ds.getSpec().getTemplate().getSpec();
    String name = node.getMetadata().getName();
    String nodeName = template.getNodeName();
    if (nodeName != null && !nodeName.isEmpty() && !nodeName.equals(name)) {
      return new Fit(false, false);
    }
    if (!NodeAffinityPlugin.fits(template, node)) {
      return new Fit(false, false);
    }
    List<Toleration> tolerations = withDefaultTolerations(template);
    List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    boolean untoleratedNoSchedule = false;
    boolean untoleratedNoExecute = false;
    for (Taint taint : taints == null ? List.<Taint>of() : taints) {
      if (TaintTolerationPlugin.tolerated(tolerations, taint)) {
        continue;
      }
      if ("NoExecute".equals(taint.getEffect())) {
        untoleratedNoExecute = true;
      } else if ("NoSchedule".equals(taint.getEffect())) {
        untoleratedNoSchedule = true;
      }
    }
    if (untoleratedNoExecute || untoleratedNoSchedule) {
      return new Fit(false, !untoleratedNoExecute);
    }
    return new Fit(true, true);
  }

  /**
   * The pod for {@code node}: the template ({@code CreatePodTemplate}) labelled with {@code hash},
   * the default tolerations, its required node affinity replaced by one term on {@code
   * metadata.name} ({@code ReplaceDaemonSetPodNodeNameNodeAffinity}), a controller reference to the
   * DaemonSet, and the ServiceAccount defaults a pod written by a controller gets.
   */
  static Pod newPod(DaemonSet ds, String node, String hash, String name) {
    ObjectMeta dsMeta = ds.getMetadata();
    var template = ds.getSpec().getTemplate();
    ObjectMeta templateMeta =
        template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    Map<String, String> labels =
        templateMeta.getLabels() == null
            ? new HashMap<>()
            : new HashMap<>(templateMeta.getLabels());
    labels.put(REVISION_HASH, hash);
    PodSpec spec = KubeObjects.MODEL.deepCopy(template.getSpec().getSchema(), template.getSpec());
    spec.setTolerations(withDefaultTolerations(spec));
    spec.setAffinity(pinnedTo(spec.getAffinity(), node));
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(
                ObjectMeta.newBuilder()
                    .setName(name)
                    .setGenerateName(dsMeta.getName() + "-")
                    .setNamespace(dsMeta.getNamespace())
                    .setLabels(labels)
                    .setAnnotations(
                        templateMeta.getAnnotations() == null
                            ? null
                            : new HashMap<>(templateMeta.getAnnotations()))
                    .setOwnerReferences(
                        List.of(Owners.controllerRef("apps/v1", "DaemonSet", dsMeta)))
                    .build())
            .setSpec(spec)
            .setStatus(PodStatus.newBuilder().setPhase("Pending").build())
            .build();
    return ReplicaSetReconciler.withServiceAccount(pod);
  }

  /** {@code ReplaceDaemonSetPodNodeNameNodeAffinity}: one required term, the node's name. */
  static Affinity pinnedTo(Affinity affinity, String node) {
    NodeSelector required =
        NodeSelector.newBuilder()
            .setNodeSelectorTerms(
                List.of(
                    NodeSelectorTerm.newBuilder()
                        .setMatchFields(
                            List.of(
                                NodeSelectorRequirement.newBuilder()
                                    .setKey("metadata.name")
                                    .setOperator("In")
                                    .setValues(List.of(node))
                                    .build()))
                        .build()))
            .build();
    Affinity pinned = affinity == null ? new Affinity() : affinity;
    NodeAffinity nodeAffinity =
        pinned.getNodeAffinity() == null ? new NodeAffinity() : pinned.getNodeAffinity();
    nodeAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(required);
    pinned.setNodeAffinity(nodeAffinity);
    return pinned;
  }

  /**
   * The node a pod runs on or is meant for ({@code GetTargetNodeName}): its {@code nodeName}, or
   * the one node its required affinity names; null when neither.
   */
  static String targetNode(Pod pod) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return null;
    }
    if (spec.getNodeName() != null && !spec.getNodeName().isEmpty()) {
      return spec.getNodeName();
    }
    if (spec.getAffinity() == null
        || spec.getAffinity().getNodeAffinity() == null
        || spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return null;
    }
    var terms =
        spec.getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    for (NodeSelectorTerm term : terms == null ? List.<NodeSelectorTerm>of() : terms) {
      for (NodeSelectorRequirement r :
          term.getMatchFields() == null
              ? List.<NodeSelectorRequirement>of()
              : term.getMatchFields()) {
        if ("metadata.name".equals(r.getKey())
            && "In".equals(r.getOperator())
            && r.getValues() != null
            && r.getValues().size() == 1) {
          return r.getValues().get(0);
        }
      }
    }
    return null;
  }

  /**
   * {@code <ds>-<5 chars>}, the suffix a function of the DaemonSet's uid, the node and a slot: the
   * first slot whose name no pod in {@code taken} has, so a decision taken twice makes the same
   * pod.
   */
  static String podName(DaemonSet ds, String node, Set<String> taken) {
    for (int slot = 0; ; slot++) {
      CRC32 crc = new CRC32();
      crc.update(
          (ds.getMetadata().getUid() + "#" + node + "#" + slot).getBytes(StandardCharsets.UTF_8));
      long hash = crc.getValue();
      StringBuilder suffix = new StringBuilder();
      for (int i = 0; i < 5; i++) {
        suffix.append(ALPHABET.charAt((int) (hash % ALPHABET.length())));
        hash /= ALPHABET.length();
      }
      String name = ds.getMetadata().getName() + "-" + suffix;
      if (taken.add(name)) {
        return name;
      }
    }
  }

  static String hash(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels == null ? null : labels.get(REVISION_HASH);
  }

  static boolean deleting(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() != null;
  }

  static String phase(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  /** {@code IsPodAvailable}: Ready for at least {@code minReadySeconds}. */
  static boolean available(Pod pod, int minReadySeconds, Instant now) {
    Instant since = PodReadiness.readySince(pod);
    return since != null
        && (minReadySeconds == 0 || !since.plusSeconds(minReadySeconds).isAfter(now));
  }

  /**
   * {@code podByCreationTimestampAndPhase}: scheduled pods first, then the oldest, then by name.
   */
  static final Comparator<Pod> OLDEST_FIRST =
      Comparator.<Pod>comparingInt(
              p -> p.getSpec() != null && p.getSpec().getNodeName() != null ? 0 : 1)
          .thenComparing(
              (Pod p) ->
                  p.getMetadata().getCreationTimestamp() == null
                      ? Instant.MAX
                      : p.getMetadata().getCreationTimestamp())
          .thenComparing(p -> p.getMetadata().getName());
}
