package io.streamplane.controller.history;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.ControllerRevision;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.PodTemplateSpec;
import io.streamplane.controller.Intent;
import io.streamplane.controller.Owners;
import io.streamplane.controller.deployment.PodTemplateHash;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ControllerRevisions of an owner that rolls a pod template (a DaemonSet, a StatefulSet), as
 * Kubernetes' {@code pkg/controller/history} and the controllers' {@code snapshot}/{@code
 * newRevision}, {@code getPatch} and {@code truncateHistory}/{@code cleanupHistory} keep them: one
 * revision per template, {@code <owner>-<hash>}, labelled with the template's labels and {@code
 * controller-revision-hash}, annotated with the owner's annotations, with a controller reference to
 * the owner, holding the strategic merge patch that puts the template back ({@code
 * {"spec":{"template":{...,"$patch":"replace"}}}}, which {@code kubectl rollout undo} sends and
 * {@code kubectl rollout history} applies); the current one holds the highest revision number (a
 * template that comes back gets the next one); the oldest revisions beyond {@code
 * revisionHistoryLimit} that no live pod runs are deleted.
 *
 * <p>The current revision is found by name (its hash), where Kubernetes compares the revisions'
 * data: the hash is a function of the template ({@link PodTemplateHash}).
 */
public final class ControllerHistory {

  /** The label that carries a pod's (and a ControllerRevision's) template hash. */
  public static final String REVISION_HASH = "controller-revision-hash";

  private static final KubeJson KUBE_JSON = new KubeJson();

  /**
   * The owner of revisions: its apiVersion and kind (for the controller reference), metadata,
   * current template and revisionHistoryLimit (null: 10).
   */
  public record Owner(
      String apiVersion,
      String kind,
      ObjectMeta meta,
      PodTemplateSpec template,
      Integer revisionHistoryLimit) {}

  private ControllerHistory() {}

  /** The hash of a template, which labels the pods and the revision made from it. */
  public static String hash(PodTemplateSpec template) {
    return PodTemplateHash.of(template, null);
  }

  /** The template hash a pod or revision is labelled with, or null. */
  public static String hashOf(ObjectMeta meta) {
    Map<String, String> labels = meta == null ? null : meta.getLabels();
    return labels == null ? null : labels.get(REVISION_HASH);
  }

  public static String revisionName(String ownerName, String hash) {
    return (ownerName.length() > 223 ? ownerName.substring(0, 223) : ownerName) + "-" + hash;
  }

  /** The writes that make the current revision exist with the highest number. */
  public static List<Intent> construct(
      Owner owner, String hash, List<ControllerRevision> revisions) {
    String current = revisionName(owner.meta().getName(), hash);
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
      return List.of(Intent.create("controllerrevisions", "apps", snapshot(owner, hash, next)));
    }
    if (number(cur) < next) {
      ControllerRevision renumbered = KubeObjects.copy(cur);
      renumbered.setRevision(next);
      return List.of(Intent.update("controllerrevisions", "apps", renumbered));
    }
    return List.of();
  }

  /**
   * The deletes of the oldest revisions other than {@code keep} beyond {@code
   * revisionHistoryLimit}, skipping those a live pod (terminating ones included) still runs ({@code
   * live}, revision names).
   */
  public static List<Intent> cleanup(
      Owner owner, Set<String> keep, List<ControllerRevision> revisions, Set<String> live) {
    int limit = owner.revisionHistoryLimit() == null ? 10 : owner.revisionHistoryLimit();
    List<ControllerRevision> old = new ArrayList<>();
    for (ControllerRevision revision : revisions) {
      if (!keep.contains(revision.getMetadata().getName())) {
        old.add(revision);
      }
    }
    int toKill = old.size() - limit;
    if (toKill <= 0) {
      return List.of();
    }
    old.sort(
        Comparator.comparingLong(ControllerHistory::number)
            .thenComparing(r -> r.getMetadata().getName()));
    List<Intent> deletes = new ArrayList<>();
    for (ControllerRevision revision : old) {
      if (toKill <= 0) {
        break;
      }
      if (live.contains(revision.getMetadata().getName())) {
        continue;
      }
      deletes.add(Intent.delete("controllerrevisions", "apps", revision, null));
      toKill--;
    }
    return deletes;
  }

  public static long number(ControllerRevision revision) {
    return revision.getRevision() == null ? 0 : revision.getRevision();
  }

  /** The revision of the owner's current template. */
  public static ControllerRevision snapshot(Owner owner, String hash, long revision) {
    ObjectMeta meta = owner.meta();
    var templateMeta = owner.template().getMetadata();
    Map<String, String> labels =
        templateMeta == null || templateMeta.getLabels() == null
            ? new HashMap<>()
            : new HashMap<>(templateMeta.getLabels());
    labels.put(REVISION_HASH, hash);
    return ControllerRevision.newBuilder()
        .setApiVersion("apps/v1")
        .setKind("ControllerRevision")
        .setMetadata(
            ObjectMeta.newBuilder()
                .setName(revisionName(meta.getName(), hash))
                .setNamespace(meta.getNamespace())
                .setLabels(labels)
                .setAnnotations(
                    meta.getAnnotations() == null ? null : new HashMap<>(meta.getAnnotations()))
                .setOwnerReferences(
                    List.of(Owners.controllerRef(owner.apiVersion(), owner.kind(), meta)))
                .build())
        .setData(patch(owner.template()))
        .setRevision(revision)
        .build();
  }

  /** {@code getPatch}: the patch that replaces the owner's template with this one. */
  public static String patch(PodTemplateSpec template) {
    ObjectNode json = KUBE_JSON.toJson(template);
    json.put("$patch", "replace");
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    patch.putObject("spec").set("template", json);
    return patch.toString();
  }
}
