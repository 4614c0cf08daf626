package io.streamplane.scheduler.framework;

import io.streamplane.api.CSINode;
import io.streamplane.api.CSINodeDriver;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.StorageClass;
import io.streamplane.api.Volume;
import io.streamplane.controller.volume.VolumeAnnotations;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * kube-scheduler's NodeVolumeLimits plugin ({@code CSILimits}): a pod is not placed on a node where
 * the number of distinct volumes of a CSI driver — those the node's pods already use and the pod's
 * own — would exceed the driver's {@code CSINode.spec.drivers[].allocatable.count} there ({@code
 * node(s) exceed max volume count}). A driver without a count, or a node without a CSINode, has no
 * limit; a volume the node already uses is not counted again.
 *
 * <p>A pod's volumes are its {@code persistentVolumeClaim} and generic {@code ephemeral} volumes
 * whose claim resolves to a CSI driver: a bound claim to its PersistentVolume's {@code csi.driver},
 * a claim not bound yet (or whose volume is not found) to its StorageClass's provisioner; a claim
 * of no class, or of a class not found, a volume of another source, and inline {@code csi} volumes
 * are not counted, as in Kubernetes. Each volume is keyed {@code <driver>^<namespace>/<claim>}
 * ({@link #volumes}): the claim names one volume, before it is provisioned as after, which is the
 * key the pod's place in its node's ledger keeps (kube-scheduler counts the volume handle, or a
 * placeholder for a claim not bound yet, re-reading the node's pods at every cycle).
 *
 * <p>{@link #exceeds} is the check itself, as a pure function: the binder repeats it with the
 * limits the scheduler read ({@link #limitsOn}), so that two pods proposed at once never
 * over-commit a node.
 */
public final class NodeVolumeLimits {

  public static final String NAME = "NodeVolumeLimits";

  /** kube-scheduler's {@code ErrReasonMaxVolumeCountExceeded}. */
  public static final String MAX_VOLUME_COUNT = "node(s) exceed max volume count";

  private static final NodeVolumeLimits NONE = new NodeVolumeLimits(Map.of(), null);

  private final Map<String, String> volumes; // key -> driver
  private final VolumeBinding.Objects objects;
  private final Map<String, Map<String, Integer>> limits = new HashMap<>(); // by node

  private NodeVolumeLimits(Map<String, String> volumes, VolumeBinding.Objects objects) {
    this.volumes = volumes;
    this.objects = objects;
  }

  /** A pod without CSI volumes: no node is ruled out. */
  public static NodeVolumeLimits none() {
    return NONE;
  }

  /** PreFilter: the pod's CSI volumes, resolved through the claims, volumes and classes. */
  public static NodeVolumeLimits of(Pod pod, VolumeBinding.Objects objects) {
    if (pod.getSpec() == null || pod.getSpec().getVolumes() == null) {
      return NONE;
    }
    String namespace = pod.getMetadata().getNamespace();
    Map<String, String> volumes = new LinkedHashMap<>();
    for (Volume volume : pod.getSpec().getVolumes()) {
      String claimName;
      if (volume.getPersistentVolumeClaim() != null) {
        claimName = volume.getPersistentVolumeClaim().getClaimName();
      } else if (volume.getEphemeral() != null) {
        claimName = pod.getMetadata().getName() + "-" + volume.getName();
      } else {
        continue;
      }
      PersistentVolumeClaim claim = objects.claim(namespace, claimName);
      if (claim == null) {
        continue; // VolumeBinding keeps the pod Pending first
      }
      String driver = driver(claim, objects);
      if (driver != null && !driver.isEmpty()) {
        volumes.put(driver + "^" + namespace + "/" + claimName, driver);
      }
    }
    return volumes.isEmpty() ? NONE : new NodeVolumeLimits(volumes, objects);
  }

  /** {@code getCSIDriverInfo}, then {@code getCSIDriverInfoFromSC}. */
  private static String driver(PersistentVolumeClaim claim, VolumeBinding.Objects objects) {
    String volumeName = claim.getSpec() == null ? null : claim.getSpec().getVolumeName();
    if (volumeName != null && !volumeName.isEmpty()) {
      PersistentVolume pv = objects.volume(volumeName);
      if (pv != null && pv.getSpec() != null) {
        return pv.getSpec().getCsi() == null ? null : pv.getSpec().getCsi().getDriver();
      }
    }
    String className = VolumeAnnotations.claimClass(claim);
    if (className == null || className.isEmpty()) {
      return null;
    }
    StorageClass storageClass = objects.storageClass(className);
    return storageClass == null ? null : storageClass.getProvisioner();
  }

  /** The pod's volumes as {@link PodRequests#volumes}: each key, used once. */
  public Map<String, Long> volumes() {
    Map<String, Long> used = new HashMap<>();
    volumes.keySet().forEach(key -> used.put(key, 1L));
    return used;
  }

  /** Filter: whether the pod's volumes would exceed a limit of the node. */
  public Optional<Rejection> reject(NodeInfo node) {
    if (volumes.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Integer> nodeLimits = limitsOn(node.name());
    if (!nodeLimits.isEmpty() && exceeds(node.volumes(), volumes.keySet(), nodeLimits)) {
      return Optional.of(new Rejection(List.of(MAX_VOLUME_COUNT), false));
    }
    return Optional.empty();
  }

  /**
   * The counts of the node's CSINode for the drivers of the pod's volumes (kube-scheduler's {@code
   * getVolumeLimits}); empty: no limit.
   */
  public Map<String, Integer> limitsOn(String nodeName) {
    if (volumes.isEmpty()) {
      return Map.of();
    }
    return limits.computeIfAbsent(
        nodeName,
        name -> {
          CSINode csiNode = objects.csiNode(name);
          if (csiNode == null
              || csiNode.getSpec() == null
              || csiNode.getSpec().getDrivers() == null) {
            return Map.of();
          }
          Map<String, Integer> counts = new HashMap<>();
          for (CSINodeDriver driver : csiNode.getSpec().getDrivers()) {
            if (driver.getAllocatable() != null
                && driver.getAllocatable().getCount() != null
                && volumes.containsValue(driver.getName())) {
              counts.put(driver.getName(), driver.getAllocatable().getCount());
            }
          }
          return counts;
        });
  }

  /**
   * Whether adding {@code wanted} (volume keys {@code <driver>^<volume>}) to a node whose pods use
   * {@code inUse} (key → number of pods) exceeds a driver's limit: per driver of a new volume, the
   * distinct volumes in use plus the new ones above {@code limits}'s count. Volumes already in use
   * are not new.
   */
  public static boolean exceeds(
      Map<String, Long> inUse, Set<String> wanted, Map<String, Integer> limits) {
    Map<String, Integer> added = new HashMap<>();
    for (String key : wanted) {
      if (inUse.getOrDefault(key, 0L) <= 0) {
        added.merge(driverOf(key), 1, Integer::sum);
      }
    }
    for (Map.Entry<String, Integer> entry : added.entrySet()) {
      Integer limit = limits.get(entry.getKey());
      if (limit == null) {
        continue;
      }
      String prefix = entry.getKey() + "^";
      long attached =
          inUse.entrySet().stream()
              .filter(e -> e.getValue() > 0 && e.getKey().startsWith(prefix))
              .count();
      if (attached + entry.getValue() > limit) {
        return true;
      }
    }
    return false;
  }

  private static String driverOf(String key) {
    int at = key.indexOf('^');
    return at < 0 ? key : key.substring(0, at);
  }
}
