package io.streamplane.controller.cronjob;

import io.streamplane.api.CronJob;
import io.streamplane.api.Job;
import io.streamplane.api.OwnerReference;
import io.streamplane.controller.ControlledObjects;
import io.streamplane.controller.Controller;
import io.streamplane.controller.ControllerCache;
import io.streamplane.controller.Expectations;
import io.streamplane.controller.Owners;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceEvent;
import io.streamplane.schema.objects.KindObjects;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * The CronJob controller, keyed by CronJob uid: a CronJob's events and those of the Jobs whose
 * controller reference names it go to its key, so one task sees one CronJob with its Jobs. The
 * schedule enters only through the controller's timer: each reconcile returns the next scheduled
 * time as the moment to look again, a due time in the queue's store that survives a rebalance.
 *
 * <p>Cache layout: {@code <uid>/~cronjob} → the CronJob's last event; {@code <uid>/job/<name>} →
 * each Job's last event. A deleted CronJob with no Job left is forgotten; its Jobs are the garbage
 * collector's.
 */
public final class CronJobController implements Controller<CronJobController.View> {

  /** What the controller knows of one CronJob: its last event (null if unseen) and its Jobs. */
  public record View(ResourceEvent cronJob, List<Job> jobs) {

    public View {
      jobs = List.copyOf(jobs);
    }
  }

  private static final ControlledObjects CACHE = new ControlledObjects("/~cronjob", "/job/");

  private final ZoneId localZone;

  public CronJobController(ZoneId localZone) {
    this.localZone = localZone;
  }

  @Override
  public String name() {
    return "cronjob";
  }

  @Override
  public List<String> keysOf(ResourceEvent event) {
    SpecificRecord object = KindObjects.of(event);
    if (object instanceof CronJob cronJob) {
      String uid = cronJob.getMetadata() == null ? null : cronJob.getMetadata().getUid();
      return uid == null ? List.of() : List.of(uid);
    }
    if (!(object instanceof Job job)) {
      return List.of();
    }
    Set<String> keys = new LinkedHashSet<>();
    add(Owners.controllerOf(job.getMetadata()), keys);
    if (event.getOwnersBefore() != null) {
      add(Owners.controllerOf(event.getOwnersBefore()), keys);
    }
    return new ArrayList<>(keys);
  }

  private static void add(OwnerReference ref, Set<String> keys) {
    if (ref != null && "CronJob".equals(ref.getKind()) && ref.getUid() != null) {
      keys.add(ref.getUid());
    }
  }

  @Override
  public boolean observe(String uid, ResourceEvent event, long timestampMs, ControllerCache cache) {
    CACHE.observe(uid, event, KindObjects.of(event) instanceof CronJob, cache);
    return true;
  }

  @Override
  public View view(String uid, ControllerCache cache) {
    ControlledObjects.Snapshot<Job> seen = CACHE.view(uid, cache, Job.class);
    return new View(seen.owner(), seen.dependents());
  }

  @Override
  public Result reconcile(String uid, View view, Expectations expectations, Instant now) {
    boolean gone = view.cronJob() == null || view.cronJob().getType() == EventType.DELETED;
    if (gone) {
      return view.jobs().isEmpty() ? Result.nothing().forgetting() : Result.nothing();
    }
    return CronJobReconciler.reconcile(
        (CronJob) KindObjects.of(view.cronJob()), view.jobs(), localZone, now);
  }

  @Override
  public void forget(String uid, ControllerCache cache) {
    CACHE.forget(uid, cache);
  }
}
