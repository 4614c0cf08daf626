package io.streamplane.controller.daemon;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ControllerRevision;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.controller.Intent;
import io.streamplane.controller.Owners;
import io.streamplane.controller.deployment.PodTemplateHash;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A DaemonSet's ControllerRevisions, as {@code constructHistory}, {@code snapshot} and {@code
 * cleanupHistory} of Kubernetes' {@code pkg/controller/daemon/update.go} keep them: one revision
 * per template, {@code <ds>-<hash>}, labelled with the template's labels and {@code
 * controller-revision-hash}, annotated with the DaemonSet's annotations, holding the strategic
 * merge patch that puts the template back ({@code {"spec":{"template":{...,"$patch":"replace"}}}},
 * which {@code kubectl rollout undo} sends and {@code kubectl rollout history} applies); the
 * current one holds the highest revision number (a template that comes back gets the next one); the
 * oldest revisions beyond {@code revisionHistoryLimit} that no live pod runs are deleted.
 *
 * <p>The current revision is found by name (its hash), where Kubernetes compares the revisions'
 * data: the hash is a function of the template ({@link PodTemplateHash}).
 */
final class DaemonSetHistory {

  private static final KubeJson KUBE_JSON = new KubeJson();

  private DaemonSetHistory() {}

  /** The template hash of the DaemonSet, which labels its current pods and revision. */
  static String hash(DaemonSet ds) {
    return PodTemplateHash.of(ds.getSpec().getTemplate(), null);
  }

  static String revisionName(DaemonSet ds, String hash) {
    String prefix = ds.getMetadata().getName();
    return (prefix.length() > 223 ? prefix.substring(0, 223) : prefix) + "-" + hash;
  }

  /** The writes that make the current revision exist with the highest number. */
  static List<Intent> construct(DaemonSet ds, String hash, List<ControllerRevision> revisions) {
    String current = revisionName(ds, hash);
    ControllerRevision cur = null;
    long maxOld = 0;
    for (ControllerRevision revision : revisions) {
      if (revision.getMetadata().getName().equals(current)) {
        cur = revision;
      } else {
        maxOld = Math.max(maxOld, number(revision));
      }
    }
    long next = maxOld + 1;
    if (cur == null) {
      return List.of(Intent.create("controllerrevisions", "apps", snapshot(ds, hash, next)));
    }
    if (number(cur) < next) {
      ControllerRevision renumbered = KubeObjects.copy(cur);
      renumbered.setRevision(next);
      return List.of(Intent.update("controllerrevisions", "apps", renumbered));
    }
    return List.of();
  }

  /**
   * The deletes of the oldest revisions other than the current one beyond {@code
   * revisionHistoryLimit}, skipping those a live pod (terminating ones included) still runs.
   */
  static List<Intent> cleanup(
      DaemonSet ds, String hash, List<ControllerRevision> revisions, List<Pod> pods) {
    int limit =
        ds.getSpec().getRevisionHistoryLimit() == null
            ? 10
            : ds.getSpec().getRevisionHistoryLimit();
    String current = revisionName(ds, hash);
    List<ControllerRevision> old = new ArrayList<>();
    for (ControllerRevision revision : revisions) {
      if (!revision.getMetadata().getName().equals(current)) {
        old.add(revision);
      }
    }
    int toKill = old.size() - limit;
    if (toKill <= 0) {
      return List.of();
    }
    Set<String> liveHashes = new HashSet<>();
    for (Pod pod : pods) {
      String podHash = DaemonPods.hash(pod);
      if (podHash != null) {
        liveHashes.add(podHash);
      }
    }
    old.sort(
        Comparator.comparingLong(DaemonSetHistory::number)
            .thenComparing(r -> r.getMetadata().getName()));
    List<Intent> deletes = new ArrayList<>();
    for (ControllerRevision revision : old) {
      if (toKill <= 0) {
        break;
      }
      Map<String, String> labels = revision.getMetadata().getLabels();
      if (labels != null && liveHashes.contains(labels.get(DaemonPods.REVISION_HASH))) {
        continue;
      }
      deletes.add(Intent.delete("controllerrevisions", "apps", revision, null));
      toKill--;
    }
    return deletes;
  }

  private static long number(ControllerRevision revision) {
    return revision.getRevision() == null ? 0 : revision.getRevision();
  }

  /** {@code snapshot}: the revision of the DaemonSet's current template. */
  static ControllerRevision snapshot(DaemonSet ds, String hash, long revision) {
    ObjectMeta meta = ds.getMetadata();
    var templateMeta = ds.getSpec().getTemplate().getMetadata();
    Map<String, String> labels =
        templateMeta == null || templateMeta.getLabels() == null
            ? new HashMap<>()
            : new HashMap<>(templateMeta.getLabels());
    labels.put(DaemonPods.REVISION_HASH, hash);
    return ControllerRevision.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("ControllerRevision")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(revisionName(ds, hash))
                .setNamespace(meta.getNamespace())
                .setLabels(labels)
                .setAnnotations(
                    meta.getAnnotations() == null ? null : new HashMap<>(meta.getAnnotations()))
                .setOwnerReferences(List.of(Owners.controllerRef("apps/v1", "DaemonSet", meta)))
                .build())
        .setData(patch(ds))
        .setRevision(revision)
        .build();
  }

  /** {@code getPatch}: the patch that replaces the DaemonSet's template with this one. */
  static String patch(DaemonSet ds) {
    ObjectNode template = KUBE_JSON.toJson(ds.getSpec().getTemplate());
    template.put("$patch", "replace");
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    patch.putObject("spec").set("template", template);
    return patch.toString();
  }
}
