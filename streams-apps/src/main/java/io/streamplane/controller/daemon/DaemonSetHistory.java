package io.streamplane.controller.daemon;

import io.streamplane.api.ControllerRevision;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.Pod;
import io.streamplane.controller.Intent;
import io.streamplane.controller.history.ControllerHistory;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A DaemonSet's ControllerRevisions, as {@code constructHistory} and {@code cleanupHistory} of
 * Kubernetes' {@code pkg/controller/daemon/update.go} keep them, through {@link ControllerHistory}.
 */
final class DaemonSetHistory {

  private DaemonSetHistory() {}

  /** The template hash of the DaemonSet, which labels its current pods and revision. */
  static String hash(DaemonSet ds) {
    return ControllerHistory.hash(ds.getSpec().getTemplate());
  }

  static String revisionName(DaemonSet ds, String hash) {
    return ControllerHistory.revisionName(ds.getMetadata().getName(), hash);
  }

  /** The writes that make the current revision exist with the highest number. */
  static List<Intent> construct(DaemonSet ds, String hash, List<ControllerRevision> revisions) {
    return ControllerHistory.construct(owner(ds), hash, revisions);
  }

  /**
   * The deletes of the oldest revisions other than the current one beyond {@code
   * revisionHistoryLimit}, skipping those a live pod (terminating ones included) still runs.
   */
  static List<Intent> cleanup(
      DaemonSet ds, String hash, List<ControllerRevision> revisions, List<Pod> pods) {
    Set<String> live = new HashSet<>();
    for (Pod pod : pods) {
      String podHash = DaemonPods.hash(pod);
      if (podHash != null) {
        live.add(revisionName(ds, podHash));
      }
    }
    return ControllerHistory.cleanup(owner(ds), Set.of(revisionName(ds, hash)), revisions, live);
  }

  private static ControllerHistory.Owner owner(DaemonSet ds) {
    return new ControllerHistory.Owner(
        "apps/v1",
        "DaemonSet",
        ds.getMetadata(),
        ds.getSpec().getTemplate(),
        ds.getSpec().getRevisionHistoryLimit());
  }
}
