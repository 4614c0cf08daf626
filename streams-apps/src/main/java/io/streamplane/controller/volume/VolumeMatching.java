package io.streamplane.controller.volume;

import io.streamplane.api.Node;
import io.streamplane.api.ObjectReference;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.kinds.selection.LabelSelectors;
import io.streamplane.scheduler.framework.NodeAffinityPlugin;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which volume a claim gets, as Kubernetes' {@code persistentVolumeOrderedIndex.findByClaim} and
 * {@code storagehelpers.FindMatchingVolume}: a volume already bound to the claim (its claimRef
 * names the claim) wins; otherwise the smallest Available volume that is big enough, of the claim's
 * class and volume mode, whose labels the claim's selector matches, not being deleted, and (for the
 * scheduler) whose node affinity the node satisfies — looking first among the volumes whose access
 * modes are the fewest that include the claim's. With {@code delayBinding} and no node (the
 * controller looking at a WaitForFirstConsumer claim) only a volume already bound to the claim is
 * returned: the scheduler binds the others.
 */
public final class VolumeMatching {

  private VolumeMatching() {}

  /** {@code IsVolumeBoundToClaim}: the claimRef names the claim, with its uid or none. */
  public static boolean boundToClaim(PersistentVolume volume, PersistentVolumeClaim claim) {
    ObjectReference ref = volume.getSpec() == null ? null : volume.getSpec().getClaimRef();
    if (ref == null) {
      return false;
    }
    var meta = claim.getMetadata();
    return Objects.equals(ref.getName(), meta.getName())
        && Objects.equals(ref.getNamespace(), meta.getNamespace())
        && (ref.getUid() == null || ref.getUid().isEmpty() || ref.getUid().equals(meta.getUid()));
  }

  /** The best volume for {@code claim} among {@code volumes}, or null. */
  public static PersistentVolume findBestMatch(
      PersistentVolumeClaim claim,
      List<PersistentVolume> volumes,
      Node node,
      Set<String> excluded,
      boolean delayBinding) {
    List<String> wanted = accessModes(claim.getSpec().getAccessModes());
    List<PersistentVolume> candidates = new ArrayList<>();
    for (PersistentVolume v : volumes) {
      if (accessModes(v.getSpec().getAccessModes()).containsAll(wanted)) {
        candidates.add(v);
      }
    }
    // The index looks at the sets of access modes from the smallest that includes the claim's.
    List<List<String>> modeSets =
        candidates.stream()
            .map(v -> accessModes(v.getSpec().getAccessModes()))
            .distinct()
            .sorted(
                Comparator.<List<String>>comparingInt(List::size).thenComparing(Object::toString))
            .toList();
    for (List<String> modes : modeSets) {
      List<PersistentVolume> withModes =
          candidates.stream()
              .filter(v -> accessModes(v.getSpec().getAccessModes()).equals(modes))
              .toList();
      PersistentVolume found = findMatchingVolume(claim, withModes, node, excluded, delayBinding);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  /** {@code FindMatchingVolume}. */
  static PersistentVolume findMatchingVolume(
      PersistentVolumeClaim claim,
      List<PersistentVolume> volumes,
      Node node,
      Set<String> excluded,
      boolean delayBinding) {
    BigDecimal requested = VolumeAnnotations.requested(claim);
    String requestedClass = VolumeAnnotations.claimClass(claim);
    PersistentVolume smallest = null;
    BigDecimal smallestSize = null;
    for (PersistentVolume volume : volumes) {
      if (excluded.contains(volume.getMetadata().getName())) {
        continue;
      }
      if (volume.getSpec().getClaimRef() != null && !boundToClaim(volume, claim)) {
        continue;
      }
      BigDecimal size = VolumeAnnotations.capacity(volume);
      if (size.compareTo(requested) < 0) {
        continue;
      }
      if (!VolumeAnnotations.mode(claim.getSpec().getVolumeMode())
          .equals(VolumeAnnotations.mode(volume.getSpec().getVolumeMode()))) {
        continue;
      }
      if (volume.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      boolean nodeAffinityValid = node == null || fitsNode(volume, node);
      if (boundToClaim(volume, claim)) {
        return nodeAffinityValid ? volume : null;
      }
      if (node == null && delayBinding) {
        continue;
      }
      String phase = volume.getStatus() == null ? null : volume.getStatus().getPhase();
      if (!"Available".equals(phase)) {
        continue;
      }
      if (claim.getSpec().getSelector() != null
          && !LabelSelectors.matches(claim.getSpec().getSelector(), labels(volume))) {
        continue;
      }
      if (!VolumeAnnotations.volumeClass(volume).equals(requestedClass)) {
        continue;
      }
      if (!nodeAffinityValid) {
        continue;
      }
      if (smallest == null || smallestSize.compareTo(size) > 0) {
        smallest = volume;
        smallestSize = size;
      }
    }
    return smallest;
  }

  /** Whether the node satisfies the volume's node affinity (a volume without one fits any node). */
  public static boolean fitsNode(PersistentVolume volume, Node node) {
    var affinity = volume.getSpec() == null ? null : volume.getSpec().getNodeAffinity();
    if (affinity == null || affinity.getRequired() == null) {
      return true;
    }
    var terms = affinity.getRequired().getNodeSelectorTerms();
    return terms != null && NodeAffinityPlugin.matchesAnyTerm(terms, node);
  }

  private static Map<String, String> labels(PersistentVolume volume) {
    Map<String, String> labels = volume.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  private static List<String> accessModes(List<String> modes) {
    return modes == null ? List.of() : modes.stream().distinct().sorted().toList();
  }
}
