package io.streamplane.controller.job;

import io.streamplane.api.Job;
import io.streamplane.api.OwnerReference;
import io.streamplane.api.Pod;
import io.streamplane.controller.ControlledObjects;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Owners;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * The job controller and the TTL-after-finished controller, keyed by Job uid: a Job's events and
 * those of the pods whose controller reference names it (and, when a pod's references change, of
 * the Job it left) go to the Job's key, so one task sees one Job with exactly its pods, and a pod
 * event costs the work of its Job whatever the size of its namespace. Jobs spread over every
 * partition and instance.
 *
 * <p>Cache layout: {@code <uid>/~job} → the Job's last event (DELETED once it is gone, until its
 * pods are released); {@code <uid>/pod/<name>} → each pod's last event.
 *
 * <p>{@link JobReconciler} decides; a Job that is gone and has no pod left is forgotten.
 */
public final class JobController implements Controller<JobController.View> {

  /** What the controller knows of one Job: its last event (null if unseen) and its pods. */
  public record View(ResourceEvent job, List<Pod> pods) {

    public View {
      pods = List.copyOf(pods);
    }

    /** The Job, or null when it is unseen or deleted. */
    Job liveJob() {
      return job == null || job.getType() == EventType.DELETED ? null : (Job) KindObjects.of(job);
    }
  }

  private static final ControlledObjects CACHE = new ControlledObjects("/~job", "/pod/");

  @Override
  public String name() {
    return "job";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    if (object instanceof Job job) {
      String uid = job.getMetadata() == null ? null : job.getMetadata().getUid();
      return uid == null ? List.of() : List.of(uid);
    }
    if (!(object instanceof Pod pod)) {
      return List.of();
    }
    Set<String> keys = new LinkedHashSet<>();
    addJob(Owners.controllerOf(pod.getMetadata()), keys);
    if (event.getOwnersBefore() != null) {
      addJob(Owners.controllerOf(event.getOwnersBefore()), keys);
    }
    return new ArrayList<>(keys);
  }

  private static void addJob(OwnerReference ref, Set<String> keys) {
    if (ref != null
        && "Job".equals(ref.getKind())
        && ref.getApiVersion() != null
        && ref.getApiVersion().startsWith("batch/")
        && ref.getUid() != null) {
      keys.add(ref.getUid());
    }
  }

  @Override
  public boolean observe(String uid, ResourceEvent event, long timestampMs, ControllerCache cache) {
    CACHE.observe(uid, event, KindObjects.of(event) instanceof Job, cache);
    return true;
  }

  @Override
  public View view(String uid, ControllerCache cache) {
    ControlledObjects.Snapshot<Pod> seen = CACHE.view(uid, cache, Pod.class);
    return new View(seen.owner(), seen.dependents());
  }

  @Override
  public Result reconcile(String uid, View view, Expectations expectations, Instant now) {
    Result result = JobReconciler.reconcile(view.liveJob(), view.pods(), expectations, now);
    boolean gone = view.job() == null || view.job().getType() == EventType.DELETED;
    return gone && view.pods().isEmpty() && result.decisions().isEmpty()
        ? result.forgetting()
        : result;
  }

  @Override
  public void forget(String uid, ControllerCache cache) {
    CACHE.forget(uid, cache);
  }
}
